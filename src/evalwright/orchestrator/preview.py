"""What each case of an eval file will send, with no network (``evalwright prompt``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalwright.errors import ConfigError
from evalwright.evalfile.loader import load_eval_file
from evalwright.evalfile.resolved import EvalCase, EvalSuite
from evalwright.orchestrator.plan import eval_id_option, selected
from evalwright.orchestrator.requests import candidate_request, case_inputs
from evalwright.orchestrator.targets import TargetRegistry
from evalwright.prompts import build_prompt
from evalwright.prompts.render import Mode
from evalwright.results.row import RawRequest
from evalwright.results.rows import raw_request


def select_cases(suite: EvalSuite, eval_ids: Sequence[str]) -> list[EvalCase]:
    """The suite's cases whose id matches any of the globs ``eval_ids`` (all when none)."""
    chosen = [case for case in suite.cases if selected(case, eval_ids)]
    if not chosen:
        shown = eval_id_option(eval_ids)
        raise ConfigError(f"no case of {suite.display_path} matches {shown}")
    return chosen


def preview(
    path: str | os.PathLike[str],
    *,
    eval_id: str | Sequence[str] = (),
    mode: Mode = "lm",
    target: str | None = None,
    targets_file: Path | None = None,
) -> list[dict[str, Any]]:
    """One JSON-ready object per selected case: its prompt inputs and the chat array.

    With ``target``, the case is built in that target's mode with its system prompt, and
    the object adds the exact ``wire_request`` and the ``delivery_notes`` (the target comes
    from ``targets_file`` when given, else the project's). ``eval_id`` is one glob or several
    (a case matching any is selected).
    """
    suite = load_eval_file(path)
    cases = select_cases(suite, (eval_id,) if isinstance(eval_id, str) else eval_id)
    if target is None:
        return [preview_case(suite, case, mode) for case in cases]
    registry = TargetRegistry(suite.project, targets_path=targets_file, require_keys=False)
    provider = registry.provider(target)
    out: list[dict[str, Any]] = []
    for case in cases:
        inputs = case_inputs(case, registry.target(target))
        prepared = provider.prepare(candidate_request(case, inputs))
        lm = inputs if inputs.mode == "lm" else build_prompt(case, mode="lm")
        item = _item(suite, case, inputs.mode, raw_request(inputs), lm.messages)
        item["target"] = target
        item["wire_request"] = prepared.wire_request
        item["delivery_notes"] = [note.model_dump() for note in prepared.notes]
        out.append(item)
    return out


def preview_case(suite: EvalSuite, case: EvalCase, mode: Mode) -> dict[str, Any]:
    """The preview object of one case, without a target."""
    inputs = build_prompt(case, mode=mode)
    lm = inputs if mode == "lm" else build_prompt(case, mode="lm")
    return _item(suite, case, mode, raw_request(inputs), lm.messages)


def _item(
    suite: EvalSuite, case: EvalCase, mode: Mode, raw: RawRequest, messages: Any
) -> dict[str, Any]:
    return {
        "eval_id": case.id,
        "eval_file": suite.relative_path,
        "mode": mode,
        **raw.model_dump(mode="json"),
        "messages": [m.to_json() for m in messages],
    }
