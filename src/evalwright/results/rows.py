"""Building result rows (docs/running.md#the-results-file): every row of a run, ok or error,
is made here, and a row that cannot be written is replaced here."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import JsonValue

from evalwright.evalfile.models import PassRule
from evalwright.prompts import BuiltPrompt, DeliveryNote
from evalwright.providers.base import ProviderResponse
from evalwright.providers.wire import AnswerToolCall, TraceEntry, Usage, WireRequest
from evalwright.records import ReasoningPart
from evalwright.results.parts import CacheState, ErrorInfo, ErrorType, EvaluatorResult, RawRequest
from evalwright.results.row import OPTIONAL_KEYS, ROW_KEYS, ResultRow


def utc_now() -> str:
    """ISO 8601 UTC with milliseconds, e.g. ``2026-11-22T14:03:05.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def raw_request(inputs: BuiltPrompt) -> RawRequest:
    """The row's ``raw_request``: what was built from the case
    (docs/delivery.md#what-is-recorded)."""
    chat = inputs.chat_prompt
    # One validation of the whole: a validation per entry cost twice as much. Each entry is
    # as ``prompt --json`` shows it: the keys it leaves out stay left out.
    return RawRequest.model_validate(
        {
            "question": inputs.question,
            "guidelines": inputs.guidelines,
            "guideline_paths": inputs.guideline_paths,
            "input_files": inputs.input_files,
            "chat_prompt": None if chat is None else [m.to_json() for m in chat],
        }
    )


@dataclass(frozen=True, slots=True)
class RowIdentity:
    """Which run, case and target a row belongs to, and what the case expects."""

    run_id: str
    eval_file: str
    eval_id: str
    dataset: str
    conversation_id: str | None
    metadata: dict[str, JsonValue] | None
    tags: tuple[str, ...]
    target: str
    provider: str | None
    expected_outcome: str
    repeat: int = 0
    vars: dict[str, JsonValue] | None = None
    """The record a template case was filled from (docs/eval-files.md#variables)."""
    variant: str | None = None
    pass_rule: PassRule | None = None
    """The rule the case is judged by (docs/eval-files.md#pass-rules)."""
    pass_rate: float | None = None
    """The share of the case's repeats that must pass (docs/running.md#gates-over-repeats)."""


def answered_row(
    who: RowIdentity,
    response: ProviderResponse,
    cache: CacheState,
    results: Sequence[EvaluatorResult],
    score: float | None,
    *,
    raw: RawRequest | None,
    reference: str,
    error: ErrorInfo | None = None,
    passed: bool | None = None,
    failures: Sequence[str] = (),
) -> ResultRow:
    """The row of a case its target answered; ``error`` when an evaluator failed.

    ``passed`` is the case's verdict under its pass rule; ``failures`` say which evaluators
    failed it: each reason is a miss, and the reasoning's first lines
    (docs/eval-files.md#pass-rules).
    """
    wire, usage, trace = response.wire_request, response.usage, response.trace
    hits, misses, reasoning = _aggregate(results)
    if failures:
        misses = (*misses, *failures)
        reasoning = "\n".join([*failures, *([reasoning] if reasoning else [])])
    return _row(
        who,
        error,
        score=None if error else score,
        passed=None if error else passed,
        hits=hits,
        misses=misses,
        reasoning=reasoning,
        answer=response.text,
        tool_calls=response.tool_calls or None,
        answer_reasoning=response.reasoning or None,
        finish_reason=response.finish_reason,
        reference=reference,
        raw=raw,
        wire=wire,
        notes=tuple(response.delivery_notes),
        trace=trace,
        evaluator_results=tuple(results),
        usage=usage,
        cost_usd=response.cost_usd,
        judge_cost_usd=judge_cost(results),
        latency_ms=round(response.latency_ms, 3),
        attempts=response.attempts,
        cache=cache,
        node=response.node,
    )


def error_row(
    who: RowIdentity,
    error: ErrorInfo,
    *,
    attempts: int = 0,
    reference: str = "",
    raw: RawRequest | None = None,
    wire: WireRequest | None = None,
    notes: tuple[DeliveryNote, ...] = (),
) -> ResultRow:
    """The row of a case whose target failed: what was built of its request (``None`` where
    it could not be), and the error."""
    return _row(who, error, attempts=attempts, reference=reference, raw=raw, wire=wire, notes=notes)


def _row(
    who: RowIdentity,
    error: ErrorInfo | None,
    *,
    score: float | None = None,
    passed: bool | None = None,
    hits: tuple[str, ...] = (),
    misses: tuple[str, ...] = (),
    reasoning: str = "",
    answer: str = "",
    tool_calls: tuple[AnswerToolCall, ...] | None = None,
    answer_reasoning: tuple[ReasoningPart, ...] | None = None,
    finish_reason: str | None = None,
    reference: str = "",
    raw: RawRequest | None = None,
    wire: WireRequest | None = None,
    notes: tuple[DeliveryNote, ...] = (),
    trace: tuple[TraceEntry, ...] = (),
    evaluator_results: tuple[EvaluatorResult, ...] = (),
    usage: Usage | None = None,
    cost_usd: float | None = None,
    judge_cost_usd: float | None = None,
    latency_ms: float | None = None,
    attempts: int = 0,
    cache: CacheState = "off",
    node: str | None = None,
) -> ResultRow:
    """The one place a row is made: an error row is the empty row plus what is known."""
    return ResultRow(
        run_id=who.run_id,
        timestamp=utc_now(),
        eval_file=who.eval_file,
        eval_id=who.eval_id,
        dataset=who.dataset,
        conversation_id=who.conversation_id,
        metadata=who.metadata,
        tags=who.tags,
        vars=who.vars,
        target=who.target,
        repeat=who.repeat,
        variant=who.variant,
        provider=who.provider,
        status="error" if error else "ok",
        score=score,
        passed=passed,
        pass_rule=who.pass_rule,
        pass_rate=who.pass_rate,
        hits=hits,
        misses=misses,
        reasoning=reasoning,
        candidate_answer=answer,
        tool_calls=tool_calls,
        answer_reasoning=answer_reasoning,
        finish_reason=finish_reason,
        expected_outcome=who.expected_outcome,
        reference_answer=reference,
        raw_request=raw,
        wire_request=wire,
        delivery_notes=notes,
        trace=trace,
        evaluator_results=evaluator_results,
        usage=usage,
        cost_usd=cost_usd,
        judge_cost_usd=judge_cost_usd,
        latency_ms=latency_ms,
        attempts=attempts,
        cache=cache,
        error=error,
        node=node,
    )


def judge_cost(results: Sequence[EvaluatorResult]) -> float | None:
    """What the row's judges cost together: ``None`` without a judge, or when one judge's
    cost is unknown (docs/running.md#cost)."""
    costs = [r.cost_usd for r in results if r.type == "llm_judge"]
    if not costs or any(cost is None for cost in costs):
        return None
    return sum(cost for cost in costs if cost is not None)


def _aggregate(results: Sequence[EvaluatorResult]) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """Hits and misses concatenated in evaluator order; reasoning as ``NAME: TEXT`` lines."""
    hits = tuple(hit for r in results for hit in r.hits)
    misses = tuple(miss for r in results for miss in r.misses)
    reasoning = "\n".join(f"{r.name}: {r.reasoning}" for r in results if r.reasoning)
    return hits, misses, reasoning


def error_info(kind: ErrorType, message: str) -> ErrorInfo:
    """The row's ``error`` object."""
    return ErrorInfo(type=kind, message=message)


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


def unwritable_row(row: ResultRow, problem: Exception) -> ResultRow:
    """The error row written instead of a row that cannot be serialized: each field that
    can be written is kept, the others are ``null``."""
    dumped = row.model_dump(mode="json")
    # An optional key is left out of a row that has none, and kept (or nulled) in one that has.
    keys = (*ROW_KEYS, *(key for key in OPTIONAL_KEYS if key in dumped))
    data: dict[str, Any] = {key: dumped.get(key) for key in keys}
    safe = {key: data[key] if _writable(data[key]) else None for key in keys}
    for key in _IDENTITY:
        if isinstance(data[key], str) and safe[key] is None:
            safe[key] = _scrub(data[key])
    # ``error`` is written anew below, so it is never among the fields left null.
    dropped = [k for k in keys if safe[k] is None and data[k] is not None and k != "error"]
    reason = (
        "it holds text that is not valid Unicode (a lone surrogate)"
        if isinstance(problem, UnicodeError)
        else f"{type(problem).__name__}: {problem}"
    )
    message = f"the row cannot be written: {reason}; null: {', '.join(dropped)}"
    kind: ErrorType = "target_error"
    if row.error is not None:
        kind, message = row.error.type, f"{_scrub(row.error.message)}; {message}"
    safe.update(status="error", score=None, error={"type": kind, "message": message})
    return ResultRow.model_validate(safe)


def total_usage(usages: Sequence[Usage | None]) -> Usage | None:
    """The calls' token counts added up, ``None`` where one did not report them."""
    if not usages or any(u is None for u in usages):
        return None
    known = [u for u in usages if u is not None]

    def total(name: str) -> int | None:
        values: list[int | None] = [getattr(u, name) for u in known]
        if any(v is None for v in values):
            return None
        return sum(v for v in values if v is not None)

    return Usage.model_validate({name: total(name) for name in Usage.model_fields})
