"""The workspace checks (docs/agents.md#workspace-checks): run after the agent finished, in
its case's workspace. ``workspace_command`` runs a command there (the tests), ``file_exists``
and ``file_contains`` look at a file, ``diff`` scores what the agent changed. Each may be
negated (docs/tools.md#negate)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import assert_never

from evalwright.evalfile.action_specs import (
    DiffSpec,
    FileContainsSpec,
    FileExistsSpec,
    WorkspaceCommandSpec,
)
from evalwright.evaluators.base import EvalContext, EvaluatorFailure, Verdict
from evalwright.evaluators.builtin import negated
from evalwright.files.globs import GlobSet
from evalwright.files.reading import FileTooLarge, UnreadableFile, read_limited
from evalwright.providers.process import Finished, OutputTooLarge, run_command
from evalwright.providers.workspace_diff import Change
from evalwright.redact import clip
from evalwright.results.parts import CommandOutput, ScriptRequest

WorkspaceCheckSpec = WorkspaceCommandSpec | FileExistsSpec | FileContainsSpec | DiffSpec
OUTPUT_KEPT = 16 * 1024
"""Characters of a command's stdout and of its stderr a result keeps (the end)."""
FILE_LIMIT = 16 * 1024 * 1024
"""The largest file ``file_contains`` reads."""


async def workspace_check(
    spec: WorkspaceCheckSpec, ctx: EvalContext
) -> tuple[Verdict, ScriptRequest | None, CommandOutput | None]:
    """Score the case's workspace with ``spec``: the verdict (negated when the spec says
    so), and for a command what ran and what it printed."""
    if ctx.workspace is None:
        raise EvaluatorFailure(
            f"{spec.type} needs the case's workspace: give the case, its file or its agent "
            "target a 'workspace:' (docs/agents.md#workspaces)"
        )
    workspace = Path(ctx.workspace)
    raw: ScriptRequest | None = None
    output: CommandOutput | None = None
    match spec:
        case WorkspaceCommandSpec():
            raw = ScriptRequest(argv=list(spec.command), cwd=str(workspace))
            verdict, output = await _command(spec, workspace, ctx, raw)
        case FileExistsSpec():
            verdict = _exists(spec, workspace)
        case FileContainsSpec():
            verdict = _contains(spec, workspace)
        case DiffSpec():
            verdict = diff_verdict(spec, ctx.change)
        case _:
            assert_never(spec)
    return (negated(verdict) if spec.negate else verdict), raw, output


async def _command(
    spec: WorkspaceCommandSpec, workspace: Path, ctx: EvalContext, raw: ScriptRequest
) -> tuple[Verdict, CommandOutput]:
    """Pass on exit status 0, or the score of a last stdout line ``{"score": x}``; a
    timeout scores 0. Run in the agent's sandbox, the workspace its one writable place."""
    env = ctx.child_env.build(spec.pass_env, {"EVALWRIGHT_WORKSPACE": str(workspace)})
    argv = list(spec.command)
    if ctx.sandbox is not None:
        confined = ctx.sandbox.confine(
            argv, cwd=str(workspace), env=env, writable=[str(workspace)], passed=spec.pass_env
        )
        argv, env = confined.argv, confined.env
    try:
        finished = await run_command(
            argv, cwd=str(workspace), env=env, timeout=spec.timeout_seconds
        )
    except OSError as exc:
        raise EvaluatorFailure(
            f"cannot run {spec.command[0]!r}: {exc.strerror or exc}", raw
        ) from None
    except OutputTooLarge as exc:
        raise EvaluatorFailure(str(exc), raw) from None
    output = _output(finished)
    shown = " ".join(spec.command)
    if finished.timed_out:
        miss = f"{shown} timed out after {spec.timeout_seconds:g} s"
        return Verdict(0.0, [], [miss], miss), output
    score = _printed_score(output.stdout)
    if score is not None:
        why = f"{shown} exited with status {finished.returncode} and printed score {score:g}"
        return Verdict(score, [why] if score == 1 else [], [why] if score < 1 else [], why), output
    if finished.returncode == 0:
        hit = f"{shown} exited with status 0"
        return Verdict(1.0, [hit], [], hit), output
    miss = f"{shown} exited with status {finished.returncode}"
    return Verdict(0.0, [], [miss], miss), output


def _output(finished: Finished) -> CommandOutput:
    stdout = finished.stdout.decode("utf-8", errors="replace")
    marker = "[{cut} characters cut]\n"
    return CommandOutput(
        exit_code=None if finished.timed_out else finished.returncode,
        timed_out=finished.timed_out,
        stdout=clip(stdout, OUTPUT_KEPT, end=True, marker=marker),
        stderr=clip(finished.stderr_text(), OUTPUT_KEPT, end=True, marker=marker),
    )


def _printed_score(stdout: str) -> float | None:
    """The score of a last line ``{"score": x}``, or ``None`` when the line is no such
    object; a score outside [0, 1] is an error."""
    lines = stdout.strip().splitlines()
    if not lines:
        return None
    try:
        data = json.loads(lines[-1])
    except ValueError:
        return None
    if not isinstance(data, dict) or "score" not in data:
        return None
    score: object = data["score"]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        raise EvaluatorFailure(f"the command printed score {score!r}, not a number in [0, 1]")
    return float(score)


def _inside(workspace: Path, path: str) -> Path | None:
    """``path`` within the workspace, or ``None`` when it leads out (through a link the
    agent made, say)."""
    root = workspace.resolve()
    found = (root / path).resolve()
    return found if found == root or root in found.parents else None


def _exists(spec: FileExistsSpec, workspace: Path) -> Verdict:
    found = _inside(workspace, spec.path)
    if found is None:
        return Verdict(0.0, [], [f"{spec.path} leads out of the workspace"], "refused")
    if found.exists():
        return Verdict(1.0, [f"{spec.path} exists"], [], f"{spec.path} exists")
    return Verdict(0.0, [], [f"{spec.path} does not exist"], f"{spec.path} does not exist")


def _contains(spec: FileContainsSpec, workspace: Path) -> Verdict:
    found = _inside(workspace, spec.path)
    if found is None:
        return Verdict(0.0, [], [f"{spec.path} leads out of the workspace"], "refused")
    try:
        text = read_limited(found, FILE_LIMIT).decode("utf-8", errors="replace")
    except FileTooLarge:
        raise EvaluatorFailure(f"{spec.path} is larger than {FILE_LIMIT} bytes") from None
    except UnreadableFile as exc:
        return Verdict(0.0, [], [f"{spec.path}: {exc}"], f"{spec.path} cannot be read")
    values = [spec.value] if isinstance(spec.value, str) else spec.value
    haystack = text if spec.case_sensitive else text.casefold()
    hits: list[str] = []
    misses: list[str] = []
    for value in values:
        needle = value if spec.case_sensitive else value.casefold()
        if needle in haystack:
            hits.append(f"{spec.path} contains {value!r}")
        else:
            misses.append(f"{spec.path} lacks {value!r}")
    reasoning = f"{len(hits)} of {len(values)} values found in {spec.path}"
    return Verdict(0.0 if misses else 1.0, hits, misses, reasoning)


def diff_verdict(spec: DiffSpec, change: Change | None) -> Verdict:
    """1 unless a changed file is outside ``allowed_paths`` or inside ``forbidden_paths``;
    each such file is a miss, each other a hit."""
    if change is None:
        raise EvaluatorFailure("the agent's change to its workspace could not be read")
    allowed = GlobSet(spec.allowed_paths) if spec.allowed_paths is not None else None
    forbidden = GlobSet(spec.forbidden_paths)
    hits: list[str] = []
    misses: list[str] = []
    for file in change.files:
        counts = "binary" if file.added is None else f"+{file.added} -{file.removed}"
        if forbidden.match(file.path):
            misses.append(f"{file.path} ({counts}) matches forbidden_paths")
        elif allowed is not None and not allowed.match(file.path):
            misses.append(f"{file.path} ({counts}) is outside allowed_paths")
        else:
            hits.append(f"{file.path} ({counts})")
    reasoning = change.summary() + (f"; {len(misses)} not allowed" if misses else "")
    return Verdict(0.0 if misses else 1.0, hits, misses, reasoning)
