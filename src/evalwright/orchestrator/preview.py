"""What each case of an eval file will send, with no network (``evalwright prompt``)."""

from __future__ import annotations

import fnmatch
import os
from typing import Any

from evalwright.errors import ConfigError
from evalwright.evalfile.loader import load_eval_file
from evalwright.evalfile.resolved import EvalCase, EvalSuite
from evalwright.prompts import build_prompt
from evalwright.prompts.render import Mode


def select_cases(suite: EvalSuite, eval_id: str | None) -> list[EvalCase]:
    """The suite's cases whose id matches the glob ``eval_id`` (all when ``None``)."""
    if eval_id is None:
        return list(suite.cases)
    chosen = [c for c in suite.cases if fnmatch.fnmatchcase(c.id, eval_id)]
    if not chosen:
        raise ConfigError(f"no case of {suite.display_path} matches --eval-id {eval_id!r}")
    return chosen


def preview(
    path: str | os.PathLike[str], *, eval_id: str | None = None, mode: Mode = "lm"
) -> list[dict[str, Any]]:
    """One JSON-ready object per selected case: its prompt inputs and the chat array."""
    suite = load_eval_file(path)
    return [preview_case(suite, case, mode) for case in select_cases(suite, eval_id)]


def preview_case(suite: EvalSuite, case: EvalCase, mode: Mode) -> dict[str, Any]:
    """The preview object of one case."""
    inputs = build_prompt(case, mode=mode)
    lm = inputs if mode == "lm" else build_prompt(case, mode="lm")
    return {
        "eval_id": case.id,
        "eval_file": suite.relative_path,
        "mode": mode,
        **inputs.raw_request(),
        "messages": [m.to_json() for m in lm.messages],
    }
