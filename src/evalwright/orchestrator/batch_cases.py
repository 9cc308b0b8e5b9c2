"""Batch mode for a run's cases (docs/batch.md): a target's single-turn cases sent through its
provider's batch API instead of one request each.

Every request is built exactly as a live one (``prepare``) and the cache is asked first; the
rest go out through the batch engine (:mod:`~evalwright.orchestrator.batch`). Each answer
becomes its case's row as a live answer would (evaluators run, the cache filled); the judges of
those cases go in batches of their own (:mod:`~evalwright.orchestrator.batch_judges`) unless
the run judges live. A request the batch could not answer is an error row (``--resume`` sends
it again).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass

from evalwright.errors import ProviderError
from evalwright.orchestrator.batch import Member, TargetBatches, Tell
from evalwright.orchestrator.batch_judges import JudgeBatcher
from evalwright.orchestrator.batch_state import BatchState, SubmittedBatch
from evalwright.orchestrator.case import AnsweredCase, CaseRunner, internal_error
from evalwright.orchestrator.plan import Plan, WorkItem
from evalwright.orchestrator.requests import candidate_request, case_prompt
from evalwright.prompts import BuiltPrompt
from evalwright.providers.base import PreparedRequest
from evalwright.providers.batching import LineResult
from evalwright.providers.chat import ChatProvider
from evalwright.providers.wire import ChatWireRequest, JsonValue
from evalwright.results.index import RowKey

Hand = Callable[[AnsweredCase], Awaitable["asyncio.Future[None]"]]
"""Starts finishing an answered case (evaluators, the row written: the run's pipeline); the
future ends with its row written."""


def key_of(item: WorkItem) -> RowKey:
    """The row ``item`` writes."""
    return (item.suite.relative_path, item.case.id, item.target, item.repeat)


def batchable(item: WorkItem) -> bool:
    """Whether the case is one request (a live conversation is not)."""
    return not item.case.turns and item.case.simulated_user is None


class BatchRunner:
    """Runs the batched items of one run, target by target; ``judges`` batches their judge
    calls (None: they run live)."""

    def __init__(
        self,
        runner: CaseRunner,
        state: BatchState,
        hand: Hand,
        tell: Tell,
        judges: JudgeBatcher | None = None,
    ) -> None:
        self.runner = runner
        self.state = state
        self._hand = hand
        self.tell = tell
        self.judges = judges
        self.engines: list[TargetBatches] = []

    async def run(self, items: list[WorkItem]) -> None:
        """Answer every item: from the cache, a batch in flight, or a new batch."""
        by_target: dict[str, list[WorkItem]] = {}
        for item in items:
            by_target.setdefault(item.target, []).append(item)
        # Each target's batches run at once: one target's 24 hours must not wait on another's.
        tasks = [
            asyncio.ensure_future(_TargetCases(self, target).run(group))
            for target, group in by_target.items()
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def hand(self, asked: AnsweredCase) -> None:
        """Finish an answered case; with batched judges, its judge calls join a judges batch."""
        case = None
        if self.judges is not None and asked.response is not None:
            case = self.judges.for_case(asked.item.repeat)
            asked = dataclasses.replace(asked, judge=case)
        try:
            finishing = await self._hand(asked)
        except BaseException:
            if case is not None:
                case.done()
            raise
        if case is not None:
            finishing.add_done_callback(lambda _: case.done())

    def working(self) -> contextlib.AbstractContextManager[object]:
        """Held while answers are being handed: judge requests keep gathering meanwhile."""
        return self.judges.working() if self.judges is not None else contextlib.nullcontext()

    def settle(self) -> None:
        """Every row of the run is written: forget the batches read back (and the judges
        batches no case of this run asked for)."""
        done = [batch_id for engine in self.engines for batch_id in engine.read]
        if self.judges is not None:
            done += self.judges.settle()
        self.state.remove(*done)

    async def aclose(self) -> None:
        """Stop the judges' batches' tasks."""
        if self.judges is not None:
            await self.judges.aclose()


@dataclass(slots=True)
class _CaseRequest:
    """One case's request in a batch (a batch :class:`~evalwright.orchestrator.batch.Member`)."""

    owner: BatchRunner
    provider: ChatProvider
    item: WorkItem
    inputs: BuiltPrompt
    prepared: PreparedRequest
    attempts: int = 0

    @property
    def entry(self) -> RowKey:
        """The row it answers."""
        return key_of(self.item)

    def body(self) -> dict[str, JsonValue]:
        """The request's body exactly as the live request sends it."""
        wire = self.prepared.wire
        assert isinstance(wire, ChatWireRequest)
        return wire.body

    async def answered(self, line: LineResult, latency_ms: float) -> None:
        """The case's answer: its row is finished as a live answer's would be."""
        item, caller = self.item, self.owner.runner.caller
        try:
            response = self.provider.response_from(self.prepared, line.body, latency_ms)
        except ProviderError as exc:
            await self.failed(exc)
            return
        if self.attempts != 1:
            response = dataclasses.replace(response, attempts=self.attempts)
        response, cache = await caller.answered(item.target, self.prepared, response, item.repeat)
        await self.owner.hand(AnsweredCase(item, self.inputs, response, cache))

    async def failed(self, error: ProviderError) -> None:
        """The case's error row."""
        await self.owner.hand(AnsweredCase(self.item, self.inputs, None, "off", error))


class _TargetCases:
    """The cases of one target, through its batches."""

    def __init__(self, owner: BatchRunner, target: str) -> None:
        self.owner = owner
        provider = owner.runner.caller.registry.provider(target)
        assert isinstance(provider, ChatProvider)  # the plan admits no other (BATCH_PROVIDERS)
        self.provider = provider
        self.engine = TargetBatches(owner.state, owner.tell, provider, "answers", owner.working)
        owner.engines.append(self.engine)

    async def run(self, items: list[WorkItem]) -> None:
        """Prepare, re-attach, submit, then poll until every batch is read back."""
        waiting: dict[RowKey, _CaseRequest] = {}
        with self.owner.working():
            for item in items:
                request = await self._prepare(item)
                if request is not None:
                    waiting[key_of(item)] = request
        for submitted in self.owner.state.of_target(self.provider.target.name):
            self._reattach(submitted, waiting)
        await self.engine.submit([*waiting.values()])
        await self.engine.poll()

    async def _prepare(self, item: WorkItem) -> _CaseRequest | None:
        """The case's request; None when the cache answered it or it cannot be built (its
        row is then on its way)."""
        runner = self.owner.runner
        inputs: BuiltPrompt | None = None
        try:
            inputs = case_prompt(item.case, runner.plan.registry.target(item.target))
            prepared = self.provider.prepare(candidate_request(item.case, inputs))
            hit = await runner.caller.cached(item.target, prepared, item.repeat)
        except ProviderError as exc:
            await self.owner.hand(AnsweredCase(item, inputs, None, "off", exc))
            return None
        except Exception as exc:  # a case that cannot be built costs its row an error
            await self.owner.hand(AnsweredCase(item, inputs, None, "off", internal_error(exc)))
            return None
        if hit is not None:
            await self.owner.hand(AnsweredCase(item, inputs, hit, "hit"))
            return None
        return _CaseRequest(self.owner, self.provider, item, inputs, prepared)

    def _reattach(self, submitted: SubmittedBatch, waiting: dict[RowKey, _CaseRequest]) -> None:
        """Follow a batch an earlier run submitted: its requests whose rows this run still
        owes are answered from it, not sent again."""
        members: dict[str, Member] = {}
        for custom_id in submitted.requests:
            key = self.owner.state.key(submitted, custom_id)
            request = waiting.pop(key, None) if key is not None else None
            if request is not None:
                members[custom_id] = request
        if not members:  # every row of it is written already
            self.owner.state.remove(submitted.batch_id)
            return
        self.engine.attach(submitted, members)


class SetAside:
    """Sets aside the items of batched targets (docs/batch.md) from those that run live, and
    answers them once every case is read, while the live cases still run."""

    def __init__(self, plan: Plan, make: Callable[[], BatchRunner]) -> None:
        self.plan = plan
        self.make = make
        self.batched: list[WorkItem] = []
        self.all_read = asyncio.Event()
        self.runner: BatchRunner | None = None
        self.batching: asyncio.Future[None] | None = None

    def live(self, items: Iterator[WorkItem]) -> Iterator[WorkItem]:
        """The items that run live; the others are kept for :meth:`run_batches`."""
        for item in items:
            if batchable(item) and self.plan.batched(item.target):
                self.batched.append(item)
            else:
                yield item
        self.all_read.set()

    async def alongside(self, live: Awaitable[None]) -> None:
        """Run the live items (``live``) and the batched ones together."""
        self.batching = asyncio.ensure_future(self._run_batches())
        await live
        await self.batching

    async def _run_batches(self) -> None:
        """Once every case is read, answer the batched ones (a run without any opens no
        batch state)."""
        await self.all_read.wait()
        if self.batched:
            self.runner = self.make()
            await self.runner.run(self.batched)

    def settle(self) -> None:
        """Every row is written: the batches read back leave the state file."""
        if self.runner is not None:
            self.runner.settle()

    async def aclose(self) -> None:
        """Stop what still runs of the batches (on an interrupt or a failure)."""
        if self.batching is not None and not self.batching.done():
            self.batching.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.batching
        if self.runner is not None:
            await self.runner.aclose()
