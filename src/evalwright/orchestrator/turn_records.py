"""A live conversation's turn records, made as each turn is answered
(docs/conversations.md#the-row): each request is stored at once as what it adds to the
previous one of its kind, so that a long conversation never holds every turn's request."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from evalwright.evaluators import case_score
from evalwright.prompts import BuiltPrompt, DeliveryNote
from evalwright.providers.base import ProviderResponse
from evalwright.providers.wire import WireRequest
from evalwright.results.parts import (
    Addition,
    CacheState,
    EvaluatorResult,
    RawRequest,
    SimulatorRecord,
    StepRecord,
    TurnRecord,
)
from evalwright.results.row import ResultRow
from evalwright.results.rows import judge_cost, raw_request, total_usage
from evalwright.results.turn_requests import Compactor, Kind

if TYPE_CHECKING:
    from evalwright.orchestrator.steps import Step


class Recorder:
    """Stores a conversation's requests in the order they are made: the target's and what
    was built for it, turn by turn, and the simulated user's."""

    def __init__(self) -> None:
        self._compactor = Compactor()
        self._previous: list[tuple[int, str]] = []
        """The last turn recorded, its number and reply: what the next requests add."""

    def _adds(self, kind: Kind, request: BaseModel | None) -> tuple[Addition, ...] | None:
        return self._compactor.store(kind, request, self._previous)

    def simulator(self, record: SimulatorRecord | None) -> SimulatorRecord | None:
        """A simulated user's record, its request as what it adds to its previous one."""
        if record is None:
            return None
        added = self._adds("simulator", record.wire_request)
        if added is None:
            return record
        return record.model_copy(update={"wire_request": None, "wire_added": added})

    def answered(
        self,
        number: int,
        inputs: BuiltPrompt,
        response: ProviderResponse,
        cache: CacheState,
        simulator: SimulatorRecord | None,
    ) -> TurnRecord:
        """The record of turn ``number``, answered (its evaluators' results come later)."""
        raw = raw_request(inputs)
        raw_added, wire_added = self._adds("raw", raw), self._adds("wire", response.wire_request)
        stored_simulator = self.simulator(simulator)
        self._previous = [(number, response.text)]
        return TurnRecord(
            turn=number,
            raw_request=None if raw_added is not None else raw,
            raw_added=raw_added,
            wire_request=None if wire_added is not None else response.wire_request,
            wire_added=wire_added,
            delivery_notes=tuple(response.delivery_notes),
            reply=response.text,
            tool_calls=response.tool_calls or None,
            reasoning=response.reasoning or None,
            finish_reason=response.finish_reason,
            usage=response.usage,
            cost_usd=response.cost_usd,
            latency_ms=round(response.latency_ms, 3),
            attempts=response.attempts,
            cache=cache,
            evaluator_results=(),
            score=None,
            simulator=stored_simulator,
        )

    def steps(self, steps: Sequence[Step], *, first_stored: bool = False) -> tuple[StepRecord, ...]:
        """The records of a tool loop's steps (docs/tools.md#the-row): the first step's
        request is its row's or turn's (``first_stored``: already stored there), each later
        one stored as what it adds to the one before."""
        records: list[StepRecord] = []
        for number, step in enumerate(steps, 1):
            response = step.response
            wire: WireRequest | None = None
            added = None
            if number > 1 or not first_stored:
                added = self._adds("wire", response.wire_request)
                wire = response.wire_request if added is None else None
            if number == 1:
                wire, added = None, None  # the row's (or turn's) own request
            records.append(
                StepRecord(
                    step=number,
                    wire_request=wire,
                    wire_added=added,
                    delivery_notes=(*response.delivery_notes, *step.notes),
                    reply=response.text,
                    tool_calls=response.tool_calls or None,
                    reasoning=response.reasoning or None,
                    tool_results=step.results or None,
                    finish_reason=response.finish_reason,
                    usage=response.usage,
                    cost_usd=response.cost_usd,
                    latency_ms=round(response.latency_ms, 3),
                    attempts=response.attempts,
                    cache=step.cache,
                )
            )
        return tuple(records)

    def failed(
        self,
        number: int,
        attempts: int,
        sent: tuple[RawRequest | None, WireRequest | None, tuple[DeliveryNote, ...]],
        simulator: SimulatorRecord | None,
    ) -> TurnRecord:
        """The record of the turn that failed: what was built and sent for it (``None``
        where nothing was), and the simulated user's record (already stored)."""
        raw, wire, notes = sent
        raw_added, wire_added = self._adds("raw", raw), self._adds("wire", wire)
        return TurnRecord(
            turn=number,
            raw_request=None if raw_added is not None else raw,
            raw_added=raw_added,
            wire_request=None if wire_added is not None else wire,
            wire_added=wire_added,
            delivery_notes=notes,
            reply=None,
            finish_reason=None,
            usage=None,
            cost_usd=None,
            latency_ms=None,
            attempts=attempts,
            cache="off",
            evaluator_results=(),
            score=None,
            simulator=simulator,
        )


def judged(record: TurnRecord, results: Sequence[EvaluatorResult]) -> TurnRecord:
    """``record`` with its evaluators' results, and their weighted mean (``None`` without
    any, or when one errored)."""
    score: float | None = None
    if results:
        score, problem = case_score(list(results))
        score = None if problem else score
    return record.model_copy(update={"evaluator_results": tuple(results), "score": score})


def with_turns(
    row: ResultRow, records: tuple[TurnRecord, ...], every: list[EvaluatorResult]
) -> ResultRow:
    """The row with its turns, their hits, misses and reasoning (each marked with its turn),
    and the whole conversation's usage, cost, latency and attempts. The last turn's requests
    are in ``turns``: the row does not hold them again."""
    hits, misses, reasoning = list(row.hits or ()), list(row.misses or ()), [row.reasoning or ""]
    for record in records:
        for result in record.evaluator_results:
            hits.extend(f"turn {record.turn}: {hit}" for hit in result.hits)
            misses.extend(f"turn {record.turn}: {miss}" for miss in result.misses)
            if result.reasoning:
                reasoning.append(f"turn {record.turn} {result.name}: {result.reasoning}")
    costs = [r.cost_usd for r in records]
    return row.model_copy(
        update={
            "turns": records,
            "raw_request": None,
            "wire_request": None,
            "hits": tuple(hits),
            "misses": tuple(misses),
            "reasoning": "\n".join(text for text in reasoning if text),
            "usage": total_usage([r.usage for r in records]),
            "cost_usd": None if None in costs else sum(c for c in costs if c is not None),
            "judge_cost_usd": judge_cost(every),
            "latency_ms": round(sum(r.latency_ms or 0.0 for r in records), 3),
            "attempts": sum(r.attempts for r in records),
        }
    )
