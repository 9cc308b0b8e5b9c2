"""The script a ``python`` assertion runs through: it reads the ``code`` evaluator's stdin
(docs/eval-files.md#code) and calls the assertion as promptfoo would, ``get_assert(output,
context)`` or an inline expression or body over ``output`` and ``context``
(docs/importing.md#python-assertions)."""

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
