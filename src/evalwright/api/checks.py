"""Checking and previewing from Python: :func:`validate`, :func:`build_prompt` and
:func:`preview` (docs/python-api.md#checking-and-previewing)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from evalwright.evalfile.diagnostics import Diagnostic
from evalwright.evalfile.models import EvalCaseSpec
from evalwright.evalfile.suite import Suite, resolved_cases
from evalwright.orchestrator.preview import PreviewItem, preview_suite
from evalwright.orchestrator.validate import validate_paths
from evalwright.prompts import PromptInputs
from evalwright.prompts import build_prompt as build_case_prompt
from evalwright.prompts.render import Mode
from evalwright.targets.models import Target

PathArg = str | os.PathLike[str]


def validate(paths: PathArg | Sequence[PathArg]) -> list[Diagnostic]:
    """Every problem in eval files, directories of them and targets files (and each
    project's config and targets), as ``evalwright validate`` reports them."""
    given = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    return validate_paths([os.fspath(p) for p in given]).diagnostics


def build_prompt(
    case: EvalCaseSpec,
    mode: Mode = "lm",
    *,
    system_prompt: str | None = None,
    base_dir: PathArg | None = None,
) -> PromptInputs:
    """A case's question, guidelines and chat prompt in ``mode``, its files read from
    ``base_dir`` (default: the working directory). ``system_prompt`` is a target's
    (``None``: the default; ``""``: none)."""
    suite = Suite((case,), base_dir=Path(base_dir) if base_dir is not None else None)
    (resolved,) = resolved_cases(suite)
    return build_case_prompt(resolved, mode=mode, system_prompt=system_prompt)


def preview(
    source: EvalCaseSpec | Suite | PathArg,
    target: str | Target | None = None,
    *,
    mode: Mode = "lm",
    eval_id: str | Sequence[str] = (),
    targets_file: PathArg | None = None,
    base_dir: PathArg | None = None,
) -> list[PreviewItem]:
    """What each case would send, with no network: the objects ``evalwright prompt --json``
    prints. With ``target``, built in that target's mode with its exact wire request and
    delivery notes. ``source`` is a case, a suite or an eval file; ``target`` is a name in
    the targets file or a target object."""
    opened: Suite | Path
    if isinstance(source, EvalCaseSpec):
        base = Path(base_dir) if base_dir is not None else None
        opened = Suite((source,), base_dir=base)
    elif isinstance(source, Suite):
        opened = source
    else:
        opened = Path(os.fspath(source))
    return preview_suite(
        opened,
        eval_id=(eval_id,) if isinstance(eval_id, str) else tuple(eval_id),
        mode=mode,
        target=target,
        targets_file=Path(targets_file) if targets_file is not None else None,
    )
