// Writes promptfoo's own rendering of each (prompt, test) pair of a config, one JSON line
// each: the oracle the importer's wire messages are compared with. Run from a directory
// where `npm install promptfoo` was done:
//   node oracle.js DIR/NAME.yaml | grep '^{"prompt"' > DIR/NAME.rendered.jsonl
// (lines come in the order the renders finish; the corpus test sorts them; the grep keeps
// out what the configs' own scripts print).
const fs = require('fs');
const path = require('path');
const yaml = require(path.resolve('node_modules/js-yaml'));
const dist = path.resolve('node_modules/promptfoo/dist/src');
const { renderPrompt } = require(`${dist}/evaluatorHelpers.js`);
const { readPrompts } = require(`${dist}/prompts/index.js`);
const { readTests } = require(`${dist}/util/testCaseReader.js`);
const { parseChatPrompt } = require(`${dist}/providers/shared.js`);
const { readFilters } = require(`${dist}/util/index.js`);
const { transform, TransformInputType } = require(`${dist}/util/transform.js`);
const { randomUUID } = require('crypto');
const cliState = require(`${dist}/cliState.js`).default;
const { globSync } = require(path.resolve('node_modules/glob'));

// The provider promptfoo hands a prompt function (its id() and label), the config's first,
// as `promptfoo eval` renders each prompt once per provider; none when the config names none.
function firstProvider(providers) {
  const first = Array.isArray(providers) ? providers[0] : providers;
  if (first === undefined || first === null) return undefined;
  if (typeof first === 'string') return { id: () => first, label: undefined };
  if (first.id) return { id: () => first.id, label: first.label, config: first.config };
  const key = Object.keys(first)[0];
  const options = first[key] || {};
  return { id: () => options.id || key, label: options.label, config: options.config };
}

// Each entry of `tests` read alone: an entry promptfoo cannot read (a generator that fails)
// stands as one test whose pairs are errors, so the others are still rendered.
async function readEach(tests, base) {
  if (tests === undefined) return [{}];
  const entries = Array.isArray(tests) ? tests : [tests];
  const out = [];
  for (const entry of entries) {
    try {
      out.push(...(await readTests(Array.isArray(tests) ? [entry] : entry, base)));
    } catch (err) {
      out.push({ error: String(err).split('\n')[0] });
    }
  }
  return out;
}

// A test's variables as promptfoo's evaluator combines them (generateVarCombinations): a list
// gives one combination per value, a `file://` value one per file its glob matches, in glob's
// order.
function expand(vars, base) {
  let combos = [{}];
  for (const [key, value] of Object.entries(vars)) {
    let values = Array.isArray(value) ? value : [value];
    if (typeof value === 'string' && value.startsWith('file://')) {
      const resolved = path.resolve(base, value.slice('file://'.length));
      values = globSync(resolved.replace(/\\/g, '/'), { windowsPathsNoEscape: true }).map(
        (found) => `file://${found}`,
      );
      if (values.length === 0) values = [value]; // promptfoo fails the test; its render says why
    }
    combos = combos.flatMap((combo) => values.map((v) => ({ ...combo, [key]: v })));
  }
  return combos;
}

// Each entry of `prompts` read alone: one promptfoo cannot read (a prompt file whose module
// does not load) stands as one prompt whose pairs are errors.
async function readEachPrompt(prompts, base) {
  if (!Array.isArray(prompts)) return readPrompts(prompts, base);
  const out = [];
  for (const entry of prompts) {
    try {
      out.push(...(await readPrompts([entry], base)));
    } catch (err) {
      out.push({ raw: '', label: String(entry), error: String(err).split('\n')[0] });
    }
  }
  return out;
}

(async () => {
  const configPath = path.resolve(process.argv[2]);
  const base = path.dirname(configPath);
  cliState.basePath = base; // file:// vars resolve beside the config, as `promptfoo eval -c` does
  const config = yaml.load(fs.readFileSync(configPath, 'utf8'));
  // promptfoo's default prompt when a config gives none (util/config/load)
  const prompts = await readEachPrompt(config.prompts ?? ['{{prompt}}'], base);
  const tests = await readEach(config.tests, base);
  const provider = firstProvider(config.providers);
  const defaults = config.defaultTest || {};
  // each test's transformVars (else defaultTest's) over its variables, as the evaluator runs it
  for (const test of tests) {
    const code = test.options?.transformVars || defaults.options?.transformVars;
    test.vars = { ...(defaults.vars || {}), ...(test.vars || {}) };
    if (!code || test.error) continue;
    try {
      const context = { prompt: {}, uuid: randomUUID() };
      const found = await transform(code, test.vars, context, true, TransformInputType.VARS);
      test.vars = { ...test.vars, ...found };
    } catch (err) {
      test.error = String(err).split('\n')[0];
    }
  }
  // the config's own Nunjucks filters, read as `promptfoo eval` reads them
  const filters = config.nunjucksFilters ? await readFilters(config.nunjucksFilters, base) : {};
  prompts.forEach((prompt, p) => {
    tests.forEach((test, t) => {
      const combos = expand(test.vars, base);
      combos.forEach(async (vars, n) => {
        try {
          if (prompt.error || test.error) throw new Error(prompt.error || test.error);
          const rendered = await renderPrompt(prompt, vars, filters, provider);
          const messages = parseChatPrompt(rendered, [{ role: 'user', content: rendered }]);
          console.log(JSON.stringify({ prompt: p, test: t, expansion: n, messages }));
        } catch (err) {
          console.log(JSON.stringify({ prompt: p, test: t, expansion: n, error: String(err) }));
        }
      });
    });
  });
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
