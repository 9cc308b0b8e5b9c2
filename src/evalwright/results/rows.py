"""Result rows (docs/running.md#the-results-file): one JSON object per case and target,
every key always."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

ROW_KEYS = (
    "run_id",
    "timestamp",
    "eval_file",
    "eval_id",
    "dataset",
    "conversation_id",
    "metadata",
    "target",
    "provider",
    "status",
    "score",
    "hits",
    "misses",
    "reasoning",
    "candidate_answer",
    "finish_reason",
    "expected_outcome",
    "reference_answer",
    "raw_request",
    "wire_request",
    "delivery_notes",
    "trace",
    "evaluator_results",
    "usage",
    "latency_ms",
    "attempts",
    "cache",
    "error",
)
ErrorType = Literal[
    "target_error", "timeout", "blocked", "response_too_large", "evaluator_error", "config_error"
]
CacheState = Literal["hit", "miss", "off"]


def utc_now() -> str:
    """ISO 8601 UTC with milliseconds, e.g. ``2026-11-22T14:03:05.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def error_json(kind: ErrorType | str, message: str) -> dict[str, str]:
    """The row's ``error`` object."""
    return {"type": kind, "message": message}


def aggregate(results: list[dict[str, Any]]) -> tuple[list[str], list[str], str]:
    """Hits and misses concatenated in evaluator order; reasoning as ``NAME: TEXT`` lines."""
    hits = [hit for r in results for hit in r["hits"]]
    misses = [miss for r in results for miss in r["misses"]]
    reasoning = "\n".join(f"{r['name']}: {r['reasoning']}" for r in results if r["reasoning"])
    return hits, misses, reasoning
