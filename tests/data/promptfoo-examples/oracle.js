// Writes promptfoo's own rendering of each (prompt, test) pair of a config, one JSON line
// each: the oracle the importer's wire messages are compared with. Run from a directory
// where `npm install promptfoo` was done:
//   node oracle.js DIR/NAME.yaml > DIR/NAME.rendered.jsonl
// (lines come in the order the renders finish; the corpus test sorts them).
const fs = require('fs');
const path = require('path');
const yaml = require(path.resolve('node_modules/js-yaml'));
const dist = path.resolve('node_modules/promptfoo/dist/src');
const { renderPrompt } = require(`${dist}/evaluatorHelpers.js`);
const { readPrompts } = require(`${dist}/prompts/index.js`);
const { readTests } = require(`${dist}/util/testCaseReader.js`);
const { parseChatPrompt } = require(`${dist}/providers/shared.js`);
const cliState = require(`${dist}/cliState.js`).default;

function expand(vars) {
  let combos = [{}];
  for (const [key, value] of Object.entries(vars)) {
    const values = Array.isArray(value) ? value : [value];
    combos = combos.flatMap((combo) => values.map((v) => ({ ...combo, [key]: v })));
  }
  return combos;
}

(async () => {
  const configPath = path.resolve(process.argv[2]);
  const base = path.dirname(configPath);
  cliState.basePath = base; // file:// vars resolve beside the config, as `promptfoo eval -c` does
  const config = yaml.load(fs.readFileSync(configPath, 'utf8'));
  // promptfoo's default prompt when a config gives none (util/config/load)
  const prompts = await readPrompts(config.prompts ?? ['{{prompt}}'], base);
  const tests = config.tests === undefined ? [{}] : await readTests(config.tests, base);
  const defaults = config.defaultTest || {};
  prompts.forEach((prompt, p) => {
    tests.forEach((test, t) => {
      const combos = expand({ ...(defaults.vars || {}), ...(test.vars || {}) });
      combos.forEach(async (vars, n) => {
        try {
          const rendered = await renderPrompt(prompt, vars, {});
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
