"""The ``code`` evaluator: a script reads the case as JSON on stdin and prints a verdict.

An argv list runs without a shell; a string runs with ``/bin/sh -c``. The script runs in its
own process group so a timeout stops everything it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from typing import Any

from evalwright.evalfile.evaluator_specs import CodeSpec
from evalwright.evaluators.base import EvalContext, EvaluatorFailure, Verdict, parse_verdict

STDERR_TAIL = 2000


def script_argv(spec: CodeSpec) -> list[str]:
    """The argv a code evaluator runs."""
    return list(spec.script) if isinstance(spec.script, list) else ["/bin/sh", "-c", spec.script]


async def run_script(spec: CodeSpec, cwd: str, ctx: EvalContext) -> tuple[Verdict, dict[str, Any]]:
    """Run the script once; raise EvaluatorFailure carrying the tail of its stderr."""
    argv = script_argv(spec)
    raw: dict[str, Any] = {"argv": argv, "cwd": cwd}
    payload = json.dumps(ctx.script_input(), ensure_ascii=False).encode("utf-8")
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise EvaluatorFailure(f"cannot run {argv[0]!r}: {exc.strerror or exc}", raw) from None
    out, err, timed_out = await _communicate(process, payload, spec.timeout_seconds)
    tail = err.decode("utf-8", errors="replace")[-STDERR_TAIL:]
    if timed_out:
        raise EvaluatorFailure(_with_tail(f"timed out after {spec.timeout_seconds:g} s", tail), raw)
    if process.returncode != 0:
        raise EvaluatorFailure(_with_tail(f"exited with status {process.returncode}", tail), raw)
    try:
        return parse_verdict(json.loads(out.decode("utf-8"))), raw
    except (UnicodeDecodeError, ValueError) as exc:
        shown = out.decode("utf-8", errors="replace").strip()[:200]
        message = f"printed no valid verdict ({exc}); stdout: {shown!r}"
        raise EvaluatorFailure(_with_tail(message, tail), raw) from None


def _with_tail(message: str, tail: str) -> str:
    return f"{message}; stderr: {tail.strip()}" if tail.strip() else message


async def _communicate(
    process: asyncio.subprocess.Process, payload: bytes, timeout: float
) -> tuple[bytes, bytes, bool]:
    assert process.stdin
    assert process.stdout
    assert process.stderr
    reads = (
        asyncio.ensure_future(process.stdout.read()),
        asyncio.ensure_future(process.stderr.read()),
    )
    try:
        process.stdin.write(payload)
        await process.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the script did not read its input; its exit status decides
    finally:
        process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), timeout)
        timed_out = False
    except TimeoutError:
        timed_out = True
        _kill_group(process)
        await process.wait()
    out, err = await asyncio.gather(*reads)
    return out, err, timed_out


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
