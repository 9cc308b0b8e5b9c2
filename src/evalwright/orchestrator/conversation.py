"""Live conversations (docs/conversations.md): the target answers each user turn in order,
its reply becoming the assistant turn before the next; the row is made when the
conversation ends, with every turn's request, reply and evaluators."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalwright.errors import ProviderError
from evalwright.evalfile.resolved import LoadedCase
from evalwright.evaluators import case_score, evaluate, required_failures
from evalwright.evaluators.base import EvalContext
from evalwright.evaluators.context import eval_context
from evalwright.orchestrator.plan import WorkItem
from evalwright.orchestrator.requests import candidate_request, case_prompt
from evalwright.prompts import BuiltPrompt, reference_answer
from evalwright.prompts.turns import turn_case
from evalwright.providers.base import ProviderResponse
from evalwright.providers.wire import Usage
from evalwright.results.row import CacheState, EvaluatorResult, ResultRow, TurnRecord
from evalwright.results.rows import answered_row, error_info, judge_cost, raw_request

if TYPE_CHECKING:
    from evalwright.orchestrator.case import CaseRunner


@dataclass(frozen=True, slots=True)
class TurnAnswer:
    """One answered turn: the case as it stood at the turn, what was built and the reply."""

    case: LoadedCase
    inputs: BuiltPrompt
    response: ProviderResponse
    cache: CacheState


@dataclass(frozen=True, slots=True)
class Conversation:
    """The turns answered, and the failure that ended the conversation early (if one did)."""

    turns: tuple[TurnAnswer, ...]
    failure: ProviderError | None = None
    failed_inputs: BuiltPrompt | None = None
    """What was built for the turn that failed, when it could be built."""


async def hold(runner: CaseRunner, item: WorkItem) -> Conversation:
    """Ask every turn in order, each with the replies so far; stop at the first failure
    (an unforeseen one too: it ends this conversation, not the run)."""
    from evalwright.orchestrator.case import internal_error

    target = runner.plan.registry.target(item.target)
    replies: list[str] = []
    answers: list[TurnAnswer] = []
    for _ in item.case.turns:
        at = turn_case(item.case, replies)
        inputs: BuiltPrompt | None = None
        try:
            inputs = case_prompt(at, target)
            request = candidate_request(at, inputs)
            response, cache = await runner.caller.call(item.target, request, repeat=item.repeat)
        except ProviderError as exc:
            return Conversation(tuple(answers), exc, inputs)
        except Exception as exc:  # one turn that cannot be sent costs its row an error
            return Conversation(tuple(answers), internal_error(exc), inputs)
        answers.append(TurnAnswer(at, inputs, response, cache))
        replies.append(response.text)
    return Conversation(tuple(answers))


def combined_cache(turns: Sequence[TurnAnswer]) -> CacheState:
    """``hit`` when every turn was replayed, ``off`` without a cache, else ``miss``."""
    states = {turn.cache for turn in turns}
    if states == {"hit"}:
        return "hit"
    return "off" if "off" in states else "miss"


async def finish(runner: CaseRunner, item: WorkItem, turns: tuple[TurnAnswer, ...]) -> ResultRow:
    """Judge each turn's reply and the whole conversation, and build the row: the answer and
    wire request are the last turn's; the score is the weighted mean of every result."""
    plan = runner.plan
    reference = reference_answer(item.case.expected_messages)

    def context(turn: TurnAnswer) -> EvalContext:
        return eval_context(
            item.suite,
            turn.case,
            turn.inputs,
            turn.response.text,
            plan.registry.default_judge(item.target),
            runner.caller.judge_for(item.repeat),
            plan.registry.child_env,
            reference,
        )

    loaded = item.case.turns
    per_turn, case_results = await asyncio.gather(
        asyncio.gather(
            *(evaluate(t.evaluators, context(a)) for t, a in zip(loaded, turns, strict=True))
        ),
        evaluate(item.case.evaluators, context(turns[-1])),
    )
    every = [*case_results, *(r for results in per_turn for r in results)]
    score, problem = case_score(every)
    evaluators = (*item.case.evaluators, *(e for t in loaded for e in t.evaluators))
    failures = required_failures(evaluators, every, plan.options.pass_mark)
    last = turns[-1]
    row = answered_row(
        runner.identity(item),
        last.response,
        combined_cache(turns),
        case_results,
        0.0 if failures and score is not None else score,
        raw=raw_request(last.inputs),
        failed_required=failures,
        reference=reference,
        error=error_info("evaluator_error", problem) if problem else None,
    )
    records = tuple(
        _record(n, a, tuple(r)) for n, (a, r) in enumerate(zip(turns, per_turn, strict=True), 1)
    )
    return _with_turns(row, records, every)


def failed(runner: CaseRunner, item: WorkItem, conversation: Conversation) -> ResultRow:
    """The error row of a conversation a turn of which failed: the turns answered before it
    (unjudged: the conversation is unfinished), and the failed turn's request."""
    assert conversation.failure is not None
    exc = conversation.failure
    row = runner.failed_row(item, exc, conversation.failed_inputs)
    records = [_record(n, a, ()) for n, a in enumerate(conversation.turns, 1)]
    records.append(
        TurnRecord(
            turn=len(records) + 1,
            wire_request=row.wire_request,
            delivery_notes=row.delivery_notes or (),
            reply=None,
            finish_reason=None,
            usage=None,
            cost_usd=None,
            latency_ms=None,
            attempts=exc.attempts,
            cache="off",
            evaluator_results=(),
            score=None,
        )
    )
    return row.model_copy(update={"turns": tuple(records)})


def _record(number: int, answer: TurnAnswer, results: tuple[EvaluatorResult, ...]) -> TurnRecord:
    response = answer.response
    score: float | None = None
    if results:
        score, problem = case_score(list(results))
        score = None if problem else score
    return TurnRecord(
        turn=number,
        wire_request=response.wire_request,
        delivery_notes=tuple(response.delivery_notes),
        reply=response.text,
        finish_reason=response.finish_reason,
        usage=response.usage,
        cost_usd=response.cost_usd,
        latency_ms=round(response.latency_ms, 3),
        attempts=response.attempts,
        cache=answer.cache,
        evaluator_results=results,
        score=score,
    )


def _with_turns(
    row: ResultRow, records: tuple[TurnRecord, ...], every: list[EvaluatorResult]
) -> ResultRow:
    """The row with its turns, their hits, misses and reasoning (each marked with its turn),
    and the whole conversation's usage, cost, latency and attempts."""
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
            "hits": tuple(hits),
            "misses": tuple(misses),
            "reasoning": "\n".join(text for text in reasoning if text),
            "usage": _total_usage([r.usage for r in records]),
            "cost_usd": None if None in costs else sum(c for c in costs if c is not None),
            "judge_cost_usd": judge_cost(every),
            "latency_ms": round(sum(r.latency_ms or 0.0 for r in records), 3),
            "attempts": sum(r.attempts for r in records),
        }
    )


def _total_usage(usages: Sequence[Usage | None]) -> Usage | None:
    """The turns' token counts added up, ``None`` where a turn did not report one."""
    if not usages or any(u is None for u in usages):
        return None
    known = [u for u in usages if u is not None]

    def total(name: str) -> int | None:
        values: list[int | None] = [getattr(u, name) for u in known]
        if any(v is None for v in values):
            return None
        return sum(v for v in values if v is not None)

    return Usage.model_validate({name: total(name) for name in Usage.model_fields})
