"""Live conversations (docs/conversations.md): the target answers each user turn in order,
its reply becoming the assistant turn before the next; the row is made when the
conversation ends, with every turn's request, reply and evaluators.

A turn's transcript grows with the conversation, so no turn keeps its own: each turn's record
is made as it is answered, its requests stored as what each adds to the previous one
(:mod:`evalwright.orchestrator.turn_records`), and what was built for a turn is built again
when it is judged."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalwright.errors import ProviderError, internal_error
from evalwright.evalfile.models import SimulatedUser
from evalwright.evalfile.resolved import Evaluator, LoadedCase
from evalwright.evaluators import case_verdict, evaluate
from evalwright.evaluators.base import EvalContext
from evalwright.evaluators.context import answer_tool_calls, eval_context
from evalwright.orchestrator import steps, workspaces
from evalwright.orchestrator.plan import WorkItem
from evalwright.orchestrator.requests import case_prompt
from evalwright.orchestrator.simulator import SimulatorFailure, ask_simulator, simulator_request
from evalwright.orchestrator.turn_records import Recorder, judged, with_turns
from evalwright.prompts import BuiltPrompt, reference_answer
from evalwright.prompts.turns import Reply, simulated_case, turn_case
from evalwright.providers.base import ProviderResponse
from evalwright.providers.wire import AnswerToolCall
from evalwright.providers.workspace_diff import Change
from evalwright.results.parts import CacheState, EvaluatorResult, SimulatorRecord, TurnRecord
from evalwright.results.row import ResultRow
from evalwright.results.rows import answered_row, error_info
from evalwright.results.turn_requests import named_results

if TYPE_CHECKING:
    from evalwright.orchestrator.case import CaseRunner


TRANSCRIPTS_JUDGED_AT_ONCE = 8_000_000
"""How many characters of replies the turns of one conversation being judged at once may
hold (one turn is always judged): each holds its transcript while its judges run, and a long
conversation's transcripts together grow with its square."""


class Budget:
    """Lets turns be judged while the replies they hold stay within a budget."""

    def __init__(self, budget: int) -> None:
        self._left, self._running = budget, 0
        self._changed = asyncio.Condition()

    @contextlib.asynccontextmanager
    async def holding(self, size: int) -> AsyncGenerator[None]:
        """Wait until ``size`` fits (or nothing else runs), and hold it meanwhile."""
        async with self._changed:
            await self._changed.wait_for(lambda: not self._running or size <= self._left)
            self._left, self._running = self._left - size, self._running + 1
        try:
            yield
        finally:
            async with self._changed:
                self._left, self._running = self._left + size, self._running - 1
                self._changed.notify_all()


@dataclass(frozen=True, slots=True)
class TurnAnswer:
    """One answered turn: the case as it stood at the turn, and the turn's record (what was
    built from the case is built again when needed: :func:`built_at`)."""

    case: LoadedCase
    record: TurnRecord
    tool_calls: tuple[AnswerToolCall, ...] = ()
    """The turn's tool calls, for its evaluators (docs/tools.md#where-the-calls-come-from)."""
    trajectory: str | None = None
    """The turn's tool loop for judges, when one ran (docs/tools.md#judging-a-trajectory)."""
    exhausted: bool = False
    """Whether the turn's tool loop was cut at ``max_steps``."""

    @property
    def reply(self) -> str:
        """The target's reply."""
        return self.record.reply or ""


@dataclass(frozen=True, slots=True)
class Conversation:
    """The turns answered, and the failure that ended the conversation early (if one did).
    The simulated user's records are stored as :class:`Recorder` stores them."""

    turns: tuple[TurnAnswer, ...]
    recorder: Recorder
    last: ProviderResponse | None = None
    """The last answered turn's response."""
    failure: ProviderError | None = None
    failed_inputs: BuiltPrompt | None = None
    """What was built for the turn that failed, when it could be built."""
    simulator_done: SimulatorRecord | None = None
    """The simulated user's call that ended the conversation."""
    failed_simulator: SimulatorRecord | None = None
    """The simulated user's call for the turn that failed (its bad reply, or the message
    the target failed to answer)."""


def built_at(runner: CaseRunner, item: WorkItem, at: LoadedCase) -> BuiltPrompt:
    """What is built for the conversation as it stands at a turn (the same every time)."""
    return case_prompt(at, runner.plan.registry.target(item.target))


class _Talk:
    """A conversation under way: its turns so far, each recorded as it is answered."""

    def __init__(self, runner: CaseRunner, item: WorkItem, workspace: str | None) -> None:
        self.runner, self.item = runner, item
        self.workspace = workspace
        """The case's workspace, every turn's (docs/agents.md#workspaces)."""
        self.recorder = Recorder()
        self.answers: list[TurnAnswer] = []
        self.replies: list[str] = []
        self.history: list[Reply] = []
        """Each turn's answer as the next turns carry it (a tool loop's whole)."""
        self.last: ProviderResponse | None = None

    async def ask(
        self, at: LoadedCase, simulator: SimulatorRecord | None = None
    ) -> Conversation | None:
        """Send the conversation ``at`` to the target: ``None`` once answered, else the
        conversation its failure ends (an unforeseen one too: it ends this conversation,
        not the run)."""
        runner, item = self.runner, self.item
        inputs: BuiltPrompt | None = None
        try:
            inputs = built_at(runner, item, at)
            stepped = await steps.answer(runner, item, at, inputs, self.workspace)
        except ProviderError as exc:
            return self.ended(exc, inputs, failed_simulator=simulator)
        except Exception as exc:  # one turn that cannot be sent costs its row an error
            return self.ended(internal_error(exc), inputs, failed_simulator=simulator)
        if stepped.failure is not None or stepped.response is None:
            failure = stepped.failure or internal_error(RuntimeError("no answer"))
            return self.ended(failure, inputs, failed_simulator=simulator)
        response, number = stepped.response, len(self.answers) + 1
        record = self.recorder.answered(number, inputs, response, stepped.cache, simulator)
        if stepped.steps:
            records = self.recorder.steps(stepped.steps, first_stored=True)
            record = record.model_copy(update={"steps": records})
        calls = answer_tool_calls(response)
        answer = TurnAnswer(at, record, calls, stepped.trajectory, stepped.exhausted)
        self.answers.append(answer)
        self.replies.append(response.text)
        self.history.append(stepped.messages or response.text)
        self.last = response
        return None

    def ended(
        self,
        failure: ProviderError | None = None,
        inputs: BuiltPrompt | None = None,
        *,
        simulator_done: SimulatorRecord | None = None,
        failed_simulator: SimulatorRecord | None = None,
    ) -> Conversation:
        """The conversation as it ended."""
        return Conversation(
            tuple(self.answers),
            self.recorder,
            self.last,
            failure,
            inputs,
            self.recorder.simulator(simulator_done),
            self.recorder.simulator(failed_simulator),
        )


async def hold(runner: CaseRunner, item: WorkItem, workspace: str | None = None) -> Conversation:
    """Ask every turn in order, each with the replies so far, in the case's ``workspace``
    when it has one; stop at the first failure."""
    if item.case.simulated_user is not None:
        return await simulate(runner, item, item.case.simulated_user, workspace)
    talk = _Talk(runner, item, workspace)
    for _ in item.case.turns:
        ended = await talk.ask(turn_case(item.case, talk.history))
        if ended is not None:
            return ended
    return talk.ended()


async def simulate(
    runner: CaseRunner, item: WorkItem, user: SimulatedUser, workspace: str | None = None
) -> Conversation:
    """Let the simulated user talk with the target until it is done or ``max_turns``
    turns have run (docs/conversations.md#simulated-user); its ``done`` message is not sent."""
    talk = _Talk(runner, item, workspace)
    sent: list[str] = [user.first_message] if user.first_message is not None else []
    while len(talk.answers) < user.max_turns:
        record: SimulatorRecord | None = None
        if len(sent) == len(talk.replies):  # the simulated user's move
            request = simulator_request(item.case.id, user, sent, talk.replies)
            try:
                turn = await ask_simulator(runner.caller, request, user.target, item.repeat)
            except SimulatorFailure as exc:
                return talk.ended(exc, failed_simulator=exc.record)
            if turn.done:
                return _ended(talk, turn.record, user)
            sent.append(turn.message)
            record = turn.record
        ended = await talk.ask(simulated_case(item.case, sent, talk.history), record)
        if ended is not None:
            return ended
    return talk.ended()


def _ended(talk: _Talk, done: SimulatorRecord, user: SimulatedUser) -> Conversation:
    """The conversation the simulated user ended; before its first message that is an error."""
    if talk.answers:
        return talk.ended(simulator_done=done)
    message = (
        f"simulated user target '{user.target}' ended the conversation before its first "
        "message (done: true)"
    )
    return talk.ended(SimulatorFailure(message, done), failed_simulator=done)


def combined_cache(turns: Sequence[TurnAnswer]) -> CacheState:
    """``hit`` when every turn was replayed, ``off`` without a cache, else ``miss``."""
    return steps.combined_cache([turn.record.cache for turn in turns])


async def finish(
    runner: CaseRunner,
    item: WorkItem,
    held: Conversation,
    workspace: tuple[str | None, Change | None] = (None, None),
) -> ResultRow:
    """Judge each turn's reply and the whole conversation, and build the row: the answer is
    the last turn's; the score is the weighted mean of every result. ``workspace``: the
    case's and the agent's change to it, for the workspace checks."""
    plan, turns = runner.plan, held.turns
    reference = reference_answer(item.case.expected_messages)

    def context(turn: TurnAnswer) -> EvalContext:
        return eval_context(
            item.suite,
            turn.case,
            built_at(runner, item, turn.case),
            turn.reply,
            plan.registry.default_judge(item.target),
            runner.caller.judge_for(item.repeat),
            plan.registry.child_env,
            reference,
            tool_calls=turn.tool_calls,
            trajectory=turn.trajectory,
            reasoning=turn.record.reasoning or (),
            workspace=workspace[0],
            change=workspace[1],
            sandbox=workspaces.sandbox(item.target, plan.registry),
            target=item.target,
            spent=(turn.record.latency_ms, turn.record.cost_usd),
        )

    replies = [(n, turn.reply) for n, turn in enumerate(turns, 1)]
    budget = Budget(TRANSCRIPTS_JUDGED_AT_ONCE)

    async def turn_results(evaluators: tuple[Evaluator, ...], n: int) -> list[EvaluatorResult]:
        if not evaluators:
            return []
        # Made as the turn is judged and dropped after: a turn's transcript is held while
        # its judges run, and its judges' requests keep only what its replies do not hold.
        async with budget.holding(sum(len(reply) for _, reply in replies[:n])):
            results = await evaluate(evaluators, context(turns[n - 1]))
        return named_results(results, replies[:n])

    async def case_results() -> list[EvaluatorResult]:
        # The whole conversation's checks see every turn's calls, in order.
        every_call = tuple(call for turn in turns for call in turn.tool_calls)
        whole_context = dataclasses.replace(
            context(turns[-1]),
            tool_calls=every_call,
            latency_ms=_total([turn.record.latency_ms for turn in turns]),
            cost_usd=_total([turn.record.cost_usd for turn in turns]),
        )
        return named_results(await evaluate(item.case.evaluators, whole_context), replies)

    loaded = item.case.turns
    # A simulated user's turns have no evaluators of their own.
    own = [t.evaluators for t in loaded] if loaded else [() for _ in turns]
    per_turn, whole = await asyncio.gather(
        asyncio.gather(*(turn_results(e, n) for n, e in enumerate(own, 1))), case_results()
    )
    every = [*whole, *(r for results in per_turn for r in results)]
    evaluators = (*item.case.evaluators, *(e for t in loaded for e in t.evaluators))
    rule = runner.pass_rule(item.case)
    verdict = case_verdict(evaluators, every, rule, plan.options.pass_mark)
    assert held.last is not None
    row = answered_row(
        runner.identity(item),
        held.last,
        combined_cache(turns),
        whole,
        verdict.score,
        raw=None,
        passed=verdict.passed,
        failures=verdict.failures,
        reference=reference,
        error=error_info("evaluator_error", verdict.problem) if verdict.problem else None,
    )
    records = [judged(a.record, r) for a, r in zip(turns, per_turn, strict=True)]
    if held.simulator_done is not None:
        records[-1] = records[-1].model_copy(update={"simulator_done": held.simulator_done})
    row = with_turns(row, tuple(records), every)
    cut = [n for n, turn in enumerate(turns, 1) if turn.exhausted]
    return steps.cut_short(row, item.case.spec.max_steps, cut[0]) if cut else row


def failed(runner: CaseRunner, item: WorkItem, conversation: Conversation) -> ResultRow:
    """The error row of a conversation a turn of which failed: the turns answered before it
    (unjudged: the conversation is unfinished), and the failed turn's request."""
    assert conversation.failure is not None
    exc, inputs = conversation.failure, conversation.failed_inputs
    simulator_failed = isinstance(exc, SimulatorFailure)
    if simulator_failed and conversation.turns:  # no request was built for the failed turn
        inputs = built_at(runner, item, conversation.turns[-1].case)
    row = runner.failed_row(item, exc, inputs)
    records = [answer.record for answer in conversation.turns]
    sent = (
        (None, None, ())
        if simulator_failed
        else (row.raw_request, row.wire_request, row.delivery_notes or ())
    )
    number = len(records) + 1
    records.append(
        conversation.recorder.failed(number, exc.attempts, sent, conversation.failed_simulator)
    )
    update: dict[str, object] = {"turns": tuple(records)}
    if records[0].raw_request is not None or records[0].wire_request is not None:
        # The turns hold the row's requests: the row does not hold them again.
        update.update(raw_request=None, wire_request=None)
    return row.model_copy(update=update)


def _total(values: list[float | None]) -> float | None:
    """The whole conversation's latency or cost: the turns' sum, unknown if one is."""
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)
