"""The ``code`` evaluator: a script reads the case as JSON on stdin and prints a verdict.

An argv list runs without a shell; a string runs with ``/bin/sh -c``. The script runs in its
own process group so a timeout stops everything it started, with no secret in its
environment unless ``pass_env`` names it.
"""

from __future__ import annotations

import json

from evalwright import jsontext
from evalwright.evalfile.evaluator_specs import CodeSpec
from evalwright.evaluators.base import (
    EvalContext,
    EvaluatorFailure,
    Verdict,
    agentv_input,
    parse_verdict,
)
from evalwright.providers.process import OutputTooLarge, run_command
from evalwright.redact import clip
from evalwright.results.parts import ScriptRequest


def script_argv(spec: CodeSpec) -> list[str]:
    """The argv a code evaluator runs."""
    return list(spec.script) if isinstance(spec.script, list) else ["/bin/sh", "-c", spec.script]


async def run_script(spec: CodeSpec, cwd: str, ctx: EvalContext) -> tuple[Verdict, ScriptRequest]:
    """Run the script once; raise EvaluatorFailure carrying the tail of its stderr."""
    argv = script_argv(spec)
    raw = ScriptRequest(argv=argv, cwd=cwd)
    fields = ctx.script_input()
    if spec.payload == "agentv":
        fields = agentv_input(fields)
    payload = json.dumps(fields, ensure_ascii=False).encode("utf-8")
    try:
        finished = await run_command(
            argv,
            cwd=cwd,
            env=ctx.child_env.build(spec.pass_env),
            stdin=payload,
            timeout=spec.timeout_seconds,
        )
    except OSError as exc:
        raise EvaluatorFailure(f"cannot run {argv[0]!r}: {exc.strerror or exc}", raw) from None
    except OutputTooLarge as exc:
        raise EvaluatorFailure(str(exc), raw) from None
    tail = finished.stderr_tail()
    if finished.timed_out:
        raise EvaluatorFailure(_with_tail(f"timed out after {spec.timeout_seconds:g} s", tail), raw)
    if finished.returncode != 0:
        raise EvaluatorFailure(_with_tail(f"exited with status {finished.returncode}", tail), raw)
    try:
        return parse_verdict(jsontext.loads(finished.stdout.decode("utf-8"))), raw
    except (UnicodeDecodeError, ValueError) as exc:
        shown = clip(finished.stdout.decode("utf-8", errors="replace").strip(), 200)
        message = f"printed no valid verdict ({exc}); stdout: {shown!r}"
        raise EvaluatorFailure(_with_tail(message, tail), raw) from None


def _with_tail(message: str, tail: str) -> str:
    return f"{message}; stderr: {tail}" if tail else message
