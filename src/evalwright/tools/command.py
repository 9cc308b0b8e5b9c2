"""Tools run as commands (docs/tools.md#commands): an argv, never a shell, given the call's
arguments as JSON on stdin; what it prints on stdout is the result. It runs through the one
hardened runner: its own process group, a timeout, a cap on its output, no secret in its
environment unless ``pass_env`` names it."""

from __future__ import annotations

import json
from collections.abc import Mapping

from evalwright.jsontext import JsonObject
from evalwright.providers.process import ChildEnvironment, Finished, OutputTooLarge, run_command
from evalwright.redact import clip
from evalwright.targets.tools import ToolSpec
from evalwright.tools.base import Outcome

MAX_RESULT_BYTES = 1024 * 1024
"""The most a tool command may print: a result goes into the next request and the row."""


async def run_tool(
    tool: ToolSpec,
    arguments: JsonObject,
    env: ChildEnvironment,
    about: Mapping[str, str] | None = None,
) -> Outcome:
    """Run ``tool``'s command once for a call; a failure is an error outcome, never raised.
    ``about``: the ``EVALWRIGHT_*`` variables naming the case and call it answers."""
    assert tool.command is not None
    payload = json.dumps(arguments, ensure_ascii=False).encode("utf-8")
    try:
        finished = await run_command(
            tool.command,
            cwd=tool.cwd,
            env=env.build(tool.pass_env, about),
            stdin=payload,
            timeout=tool.timeout_seconds,
            max_stdout=MAX_RESULT_BYTES,
        )
    except OSError as exc:
        return Outcome(f"{tool.name}: cannot run {tool.command[0]!r}: {exc.strerror or exc}", True)
    except OutputTooLarge as exc:
        return Outcome(f"{tool.name}: {exc}", True)
    if finished.timed_out:
        return Outcome(_failed(tool, f"timed out after {tool.timeout_seconds:g} s", finished), True)
    text = finished.stdout.decode("utf-8", errors="replace")
    if finished.returncode != 0:
        return Outcome(_failed(tool, f"exited with status {finished.returncode}", finished), True)
    return Outcome(text)


def _failed(tool: ToolSpec, what: str, finished: Finished) -> str:
    """Why a command's call failed, with the ends of its output (secrets redacted)."""
    tail = finished.stderr_tail(500)
    shown = clip(finished.stdout.decode("utf-8", errors="replace").strip(), 500)
    message = f"{tool.name} {what}"
    if shown:
        message += f"; stdout: {shown}"
    return f"{message}; stderr: {tail}" if tail else message
