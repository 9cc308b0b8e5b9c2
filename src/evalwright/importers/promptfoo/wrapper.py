"""The scripts ``python`` and ``javascript`` assertions run through: each reads the ``code``
evaluator's stdin (docs/eval-files.md#code) and calls the assertion as promptfoo would,
``get_assert(output, context)`` (a JavaScript file's export) or an inline expression or body
over ``output`` and ``context`` (docs/importing.md#python-and-javascript-assertions)."""

SCRIPT = r'''"""Runs a promptfoo python assertion as an evalwright code evaluator (written by
`evalwright import promptfoo`)."""

import argparse
import contextlib
import importlib.util
import json
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vars", default="{}")
    parser.add_argument("--file")
    parser.add_argument("--function", default="get_assert")
    parser.add_argument("--inline")
    parser.add_argument("--config", default="{}")
    args = parser.parse_args()
    given = json.load(sys.stdin)
    output = given["candidate_answer"]
    context = {"vars": json.loads(args.vars), "prompt": given["question"],
               "test": {"vars": json.loads(args.vars)}, "config": json.loads(args.config)}
    # The assertion's prints must not mix with the verdict on stdout.
    with contextlib.redirect_stdout(sys.stderr):
        result = call(args, output, context)
    print(json.dumps(verdict(result)))


def call(args, output, context):
    if args.file:
        spec = importlib.util.spec_from_file_location("promptfoo_assertion", args.file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return getattr(module, args.function)(output, context)
    elif "\n" in args.inline.strip() or args.inline.lstrip().startswith("return "):
        body = "".join("    " + line + "\n" for line in args.inline.splitlines())
        scope = {}
        exec("def _assertion(output, context):\n" + body, scope)
        return scope["_assertion"](output, context)
    return eval(args.inline, {"output": output, "context": context})


def verdict(result):
    if isinstance(result, bool):
        return {"score": 1 if result else 0}
    if isinstance(result, (int, float)):
        return {"score": max(0.0, min(1.0, float(result)))}
    if isinstance(result, dict):
        passed = result.get("pass", result.get("pass_", True))
        score = result.get("score", 1 if passed else 0)
        reason = str(result.get("reason", ""))
        return {"score": max(0.0, min(1.0, float(score))) if passed else 0, "reasoning": reason}
    raise SystemExit(f"the assertion returned {result!r}: expected a bool, a number or a dict")


main()
'''

JS_SCRIPT = r"""// Runs a promptfoo javascript assertion as an evalwright code evaluator (written by
// `evalwright import promptfoo`): the code evaluator's payload on stdin, the verdict on stdout.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) {
  args[process.argv[i].slice(2)] = process.argv[i + 1];
}
const given = JSON.parse(readFileSync(0, 'utf8'));
const vars = JSON.parse(args.vars || '{}');
const config = JSON.parse(args.config || '{}');
const context = { vars, prompt: given.question, test: { vars }, config };
const inverse = args.inverse === 'true';
const threshold = args.threshold === undefined ? undefined : Number(args.threshold);

async function assertion() {
  if (args.file) {
    const file = resolve(args.file);
    let module;
    try {
      module = await import(pathToFileURL(file).href);
    } catch (err) {
      module = createRequire(file)(file);
    }
    const found = module?.default?.default || module?.default || module;
    return args.function ? found[args.function] : found;
  }
  const code = args.inline.trimEnd();
  return new Function('output', 'context', code.includes('\n') ? code : `return ${code}`);
}

function verdict(result) {
  // promptfoo's rule: a boolean (not- inverts it), a number above 0 or at the threshold, or
  // its own {pass, score, reason}; the score here is the verdict, promptfoo's own in the reason
  if (typeof result === 'boolean') {
    const pass = result !== inverse;
    return { score: pass ? 1 : 0, reasoning: `returned ${result}` };
  }
  if (typeof result === 'number') {
    const pass = threshold ? result >= threshold : result > 0;
    return { score: pass ? 1 : 0, reasoning: `returned ${result}` };
  }
  if (result && typeof result === 'object' && 'pass' in result) {
    const why = result.reason ? `: ${result.reason}` : '';
    return { score: result.pass ? 1 : 0, reasoning: `score ${result.score ?? '-'}${why}` };
  }
  const shown = JSON.stringify(result);
  throw new Error(`it returned ${shown}: expected a boolean, a number or {pass, score, reason}`);
}

const log = console.log;
console.log = (...items) => console.error(...items); // the assertion's prints go to stderr
try {
  const found = await assertion();
  log(JSON.stringify(verdict(await found(given.candidate_answer, context))));
} catch (err) {
  log(JSON.stringify({ score: 0, reasoning: `the assertion threw: ${err && err.message}` }));
}
"""
