"""Live conversations (docs/conversations.md): the target answers each user turn in order,
its reply becoming the assistant turn before the next; the row is made when the
conversation ends, with every turn's request, reply and evaluators."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalwright.errors import ProviderError
from evalwright.evalfile.models import SimulatedUser
from evalwright.evalfile.resolved import LoadedCase
from evalwright.evaluators import case_score, evaluate, required_failures
from evalwright.evaluators.base import EvalContext
from evalwright.evaluators.context import eval_context
from evalwright.orchestrator.plan import WorkItem
from evalwright.orchestrator.requests import candidate_request, case_prompt
from evalwright.orchestrator.simulator import SimulatorFailure, ask_simulator, simulator_request
from evalwright.prompts import BuiltPrompt, reference_answer
from evalwright.prompts.turns import simulated_case, turn_case
from evalwright.providers.base import ProviderResponse
from evalwright.results.row import (
    CacheState,
    EvaluatorResult,
    ResultRow,
    SimulatorRecord,
    TurnRecord,
)
from evalwright.results.rows import (
    answered_row,
    error_info,
    judge_cost,
    raw_request,
    total_usage,
)

if TYPE_CHECKING:
    from evalwright.orchestrator.case import CaseRunner


@dataclass(frozen=True, slots=True)
class TurnAnswer:
    """One answered turn: the case as it stood at the turn, what was built and the reply."""

    case: LoadedCase
    inputs: BuiltPrompt
    response: ProviderResponse
    cache: CacheState
    simulator: SimulatorRecord | None = None
    """The simulated user's call that wrote this turn's message."""


@dataclass(frozen=True, slots=True)
class Conversation:
    """The turns answered, and the failure that ended the conversation early (if one did)."""

    turns: tuple[TurnAnswer, ...]
    failure: ProviderError | None = None
    failed_inputs: BuiltPrompt | None = None
    """What was built for the turn that failed, when it could be built."""
    simulator_done: SimulatorRecord | None = None
    """The simulated user's call that ended the conversation."""
    failed_simulator: SimulatorRecord | None = None
    """The simulated user's call for the turn that failed (its bad reply, or the message
    the target failed to answer)."""


async def hold(runner: CaseRunner, item: WorkItem) -> Conversation:
    """Ask every turn in order, each with the replies so far; stop at the first failure
    (an unforeseen one too: it ends this conversation, not the run)."""

    if item.case.simulated_user is not None:
        return await simulate(runner, item, item.case.simulated_user)
    replies: list[str] = []
    answers: list[TurnAnswer] = []
    for _ in item.case.turns:
        answer = await _answer(runner, item, turn_case(item.case, replies))
        if isinstance(answer, Conversation):
            return dataclasses.replace(answer, turns=tuple(answers))
        answers.append(answer)
        replies.append(answer.response.text)
    return Conversation(tuple(answers))


async def _answer(runner: CaseRunner, item: WorkItem, at: LoadedCase) -> TurnAnswer | Conversation:
    """The target's answer to the conversation ``at``, or the (turnless) failure that
    ends it (an unforeseen one too: it ends this conversation, not the run)."""
    from evalwright.orchestrator.case import internal_error

    inputs: BuiltPrompt | None = None
    try:
        inputs = case_prompt(at, runner.plan.registry.target(item.target))
        request = candidate_request(at, inputs)
        response, cache = await runner.caller.call(item.target, request, repeat=item.repeat)
    except ProviderError as exc:
        return Conversation((), exc, inputs)
    except Exception as exc:  # one turn that cannot be sent costs its row an error
        return Conversation((), internal_error(exc), inputs)
    return TurnAnswer(at, inputs, response, cache)


async def simulate(runner: CaseRunner, item: WorkItem, user: SimulatedUser) -> Conversation:
    """Let the simulated user talk with the target until it is done or ``max_turns``
    turns have run (docs/conversations.md#simulated-user); its ``done`` message is not sent."""
    sent: list[str] = [user.first_message] if user.first_message is not None else []
    replies: list[str] = []
    answers: list[TurnAnswer] = []
    while len(answers) < user.max_turns:
        record: SimulatorRecord | None = None
        if len(sent) == len(replies):  # the simulated user's move
            request = simulator_request(item.case.id, user, sent, replies)
            try:
                turn = await ask_simulator(runner.caller, request, user.target, item.repeat)
            except SimulatorFailure as exc:
                return Conversation(tuple(answers), exc, failed_simulator=exc.record)
            if turn.done:
                return _ended(tuple(answers), turn.record, user)
            sent.append(turn.message)
            record = turn.record
        answer = await _answer(runner, item, simulated_case(item.case, sent, replies))
        if isinstance(answer, Conversation):
            return dataclasses.replace(answer, turns=tuple(answers), failed_simulator=record)
        answers.append(dataclasses.replace(answer, simulator=record))
        replies.append(answer.response.text)
    return Conversation(tuple(answers))


def _ended(
    turns: tuple[TurnAnswer, ...], done: SimulatorRecord, user: SimulatedUser
) -> Conversation:
    """The conversation the simulated user ended; before its first message that is an error."""
    if turns:
        return Conversation(turns, simulator_done=done)
    message = (
        f"simulated user target '{user.target}' ended the conversation before its first "
        "message (done: true)"
    )
    return Conversation(turns, SimulatorFailure(message, done), failed_simulator=done)


def combined_cache(turns: Sequence[TurnAnswer]) -> CacheState:
    """``hit`` when every turn was replayed, ``off`` without a cache, else ``miss``."""
    states = {turn.cache for turn in turns}
    if states == {"hit"}:
        return "hit"
    return "off" if "off" in states else "miss"


async def finish(runner: CaseRunner, item: WorkItem, held: Conversation) -> ResultRow:
    """Judge each turn's reply and the whole conversation, and build the row: the answer and
    wire request are the last turn's; the score is the weighted mean of every result."""
    plan, turns = runner.plan, held.turns
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
    # A simulated user's turns have no evaluators of their own.
    own = [t.evaluators for t in loaded] if loaded else [() for _ in turns]
    per_turn, case_results = await asyncio.gather(
        asyncio.gather(*(evaluate(e, context(a)) for e, a in zip(own, turns, strict=True))),
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
    records = [
        _record(n, a, tuple(r)) for n, (a, r) in enumerate(zip(turns, per_turn, strict=True), 1)
    ]
    if held.simulator_done is not None:
        records[-1] = records[-1].model_copy(update={"simulator_done": held.simulator_done})
    return _with_turns(row, tuple(records), every)


def failed(runner: CaseRunner, item: WorkItem, conversation: Conversation) -> ResultRow:
    """The error row of a conversation a turn of which failed: the turns answered before it
    (unjudged: the conversation is unfinished), and the failed turn's request."""
    assert conversation.failure is not None
    exc, inputs = conversation.failure, conversation.failed_inputs
    simulator_failed = isinstance(exc, SimulatorFailure)
    if simulator_failed and conversation.turns:  # no request was built for the failed turn
        inputs = conversation.turns[-1].inputs
    row = runner.failed_row(item, exc, inputs)
    records = [_record(n, a, ()) for n, a in enumerate(conversation.turns, 1)]
    records.append(
        TurnRecord(
            turn=len(records) + 1,
            wire_request=None if simulator_failed else row.wire_request,
            delivery_notes=() if simulator_failed else row.delivery_notes or (),
            reply=None,
            finish_reason=None,
            usage=None,
            cost_usd=None,
            latency_ms=None,
            attempts=exc.attempts,
            cache="off",
            evaluator_results=(),
            score=None,
            simulator=conversation.failed_simulator,
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
        simulator=answer.simulator,
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
            "usage": total_usage([r.usage for r in records]),
            "cost_usd": None if None in costs else sum(c for c in costs if c is not None),
            "judge_cost_usd": judge_cost(every),
            "latency_ms": round(sum(r.latency_ms or 0.0 for r in records), 3),
            "attempts": sum(r.attempts for r in records),
        }
    )
