"""Result rows made in tests, for the code that reads rows (summary, progress, index)."""

from __future__ import annotations

from typing import Any

from evalwright.results.row import ResultRow

_EMPTY: dict[str, Any] = {
    "run_id": "20260101T000000Z-00000000",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "eval_file": "evals/a.yaml",
    "eval_id": "case",
    "dataset": "a",
    "conversation_id": None,
    "metadata": None,
    "target": "t",
    "provider": "mock",
    "status": "ok",
    "score": 1.0,
    "hits": [],
    "misses": [],
    "reasoning": "",
    "candidate_answer": "",
    "finish_reason": "stop",
    "expected_outcome": "o",
    "reference_answer": "",
    "raw_request": None,
    "wire_request": None,
    "delivery_notes": [],
    "trace": [],
    "evaluator_results": [],
    "usage": None,
    "latency_ms": 0.0,
    "attempts": 1,
    "cache": "off",
    "error": None,
}


def sample_row(**changes: Any) -> ResultRow:
    """A valid row with ``changes`` applied (validated, so a change must fit the row)."""
    return ResultRow.model_validate({**_EMPTY, **changes})
