"""Result rows (docs/running.md#the-results-file): one JSON object per case and target,
every key always."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any, Literal, cast

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


def as_object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object (read back from a file, it may not be), else ``{}``."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def utc_now() -> str:
    """ISO 8601 UTC with milliseconds, e.g. ``2026-11-22T14:03:05.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def empty_row() -> dict[str, Any]:
    """A row with every key and nothing in it (an error row starts from it)."""
    return {
        **dict.fromkeys(ROW_KEYS),
        "status": "error",
        "hits": [],
        "misses": [],
        "reasoning": "",
        "candidate_answer": "",
        "reference_answer": "",
        "delivery_notes": [],
        "trace": [],
        "evaluator_results": [],
        "attempts": 0,
        "cache": "off",
    }


def error_json(kind: ErrorType | str, message: str) -> dict[str, str]:
    """The row's ``error`` object."""
    return {"type": kind, "message": message}


def aggregate(results: list[dict[str, Any]]) -> tuple[list[str], list[str], str]:
    """Hits and misses concatenated in evaluator order; reasoning as ``NAME: TEXT`` lines."""
    hits = [hit for r in results for hit in r["hits"]]
    misses = [miss for r in results for miss in r["misses"]]
    reasoning = "\n".join(f"{r['name']}: {r['reasoning']}" for r in results if r["reasoning"])
    return hits, misses, reasoning


_SURROGATE = re.compile("[\ud800-\udfff]")
_IDENTITY = ("run_id", "timestamp", "eval_file", "eval_id", "dataset", "target", "provider")


def _writable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError):
        return False
    return True


def _scrub(text: str) -> str:
    """``text`` with each character UTF-8 cannot encode (a lone surrogate) as U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def unwritable_row(row: dict[str, Any], problem: Exception) -> dict[str, Any]:
    """The error row written instead of a row that cannot be serialized: each field that
    can be written is kept, the others are ``null``."""
    safe = {key: row.get(key) if _writable(row.get(key)) else None for key in ROW_KEYS}
    for key in _IDENTITY:
        if isinstance(row.get(key), str) and safe[key] is None:
            safe[key] = _scrub(row[key])
    dropped = [key for key in ROW_KEYS if safe[key] is None and row.get(key) is not None]
    reason = (
        "it holds text that is not valid Unicode (a lone surrogate)"
        if isinstance(problem, UnicodeError)
        else f"{type(problem).__name__}: {problem}"
    )
    message = f"the row cannot be written: {reason}; null: {', '.join(dropped)}"
    earlier = as_object(row.get("error"))
    kind = str(earlier.get("type") or "target_error")
    if earlier:
        message = f"{_scrub(str(earlier.get('message')))}; {message}"
    safe.update(status="error", score=None, error=error_json(kind, message))
    return safe
