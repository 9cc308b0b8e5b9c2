"""Batch mode for a run's cases (docs/batch.md): a target's single-turn cases sent through its
provider's batch API instead of one request each.

Every request is built exactly as a live one (``prepare``) and the cache is asked first; the
rest go out through the batch engine (:mod:`~evalwright.orchestrator.batch.engine`). Each answer
becomes its case's row as a live answer would (evaluators run, the cache filled); the judges of
those cases go in batches of their own (:mod:`~evalwright.orchestrator.batch.judges`) unless
the run judges live. A request the batch could not answer is an error row (``--resume`` sends
it again).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from evalwright.errors import ProviderError, internal_error
from evalwright.orchestrator.batch.engine import TargetBatches, Tell
from evalwright.orchestrator.batch.judges import JudgeBatcher
from evalwright.orchestrator.batch.members import Member
from evalwright.orchestrator.batch.pending import body_digest
from evalwright.orchestrator.batch.state import BatchState
from evalwright.orchestrator.budget import Charge
from evalwright.orchestrator.case import AnsweredCase, CaseRunner
from evalwright.orchestrator.plan import WorkItem, work_key
from evalwright.orchestrator.requests import candidate_request, case_prompt
from evalwright.orchestrator.reread import reread
from evalwright.prompts import BuiltPrompt
from evalwright.providers.base import PreparedRequest
from evalwright.providers.batching import LineResult
from evalwright.providers.chat import ChatProvider
from evalwright.providers.http import encode_json
from evalwright.providers.media import with_bytes
from evalwright.providers.wire import ChatWireRequest
from evalwright.results.index import RowKey

logger = logging.getLogger(__name__)

Hand = Callable[[AnsweredCase], Awaitable["asyncio.Future[None]"]]
"""Starts finishing an answered case (evaluators, the row written: the run's pipeline); the
future ends with its row written."""


def key_of(item: WorkItem) -> RowKey:
    """The row ``item`` writes."""
    return work_key(item)


def batchable(item: WorkItem) -> bool:
    """Whether the case is one request (a live conversation is not, nor a case whose tools
    run: its tool loop's requests depend on each answer, docs/tools.md#the-tool-loop)."""
    case = item.case
    if item.variant is not None:  # a batch's saved state keys a row without a variant
        return False
    if case.turns or case.simulated_user is not None or case.tool_servers:
        return False
    return not any(tool.implemented for tool in case.tools)


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
        self.keys: set[RowKey] = set()
        """The rows this run owes from batches."""

    async def run(self, keys: set[RowKey]) -> None:
        """Answer the items of rows ``keys``: from the cache, a batch in flight, or a new
        batch. Their cases are read again here and when their answers are back; only the keys
        are held meanwhile."""
        self.keys = keys
        names = sorted({key[2] for key in keys})
        targets = {name: _TargetCases(self, name) for name in names}
        # Each target's pending submissions are looked for at once: a wait for one (a batch
        # not listed yet) is no wait for another.
        judges = [self.judges.reattach()] if self.judges is not None else []
        await asyncio.gather(*judges, *(cases.reattach() for cases in targets.values()))
        with self.working():
            for item in reread(self.runner.plan, keys):
                await targets[item.target].add(item)
        # Each target's batches run at once: one target's 24 hours must not wait on another's.
        tasks = [asyncio.ensure_future(cases.send()) for cases in targets.values()]
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

    def settle(self, errors: bool) -> None:
        """Every row of the run is written: forget the batches read back (and the judges
        batches no case of this run asked for). With ``errors`` (some rows are errors) the
        batches read keep the requests they answered, for the next ``--resume``
        (:meth:`BatchState.settle_read`)."""
        read: dict[str, frozenset[str]] = {}
        for engine in self.engines:
            read.update(engine.read)
        if self.judges is not None:
            judged, unasked = self.judges.settle()
            read.update(judged)
            self.state.remove(*unasked)
        self.state.settle_read(read, keep_answers=errors)

    async def aclose(self) -> None:
        """Stop the judges' batches' tasks."""
        if self.judges is not None:
            await self.judges.aclose()


@dataclass(frozen=True, slots=True)
class _Answer:
    """A batched request's answer, kept until its case is read again."""

    body: tuple[int, int]
    """Where the answer's body (JSON) is in the spool."""
    latency_ms: float
    attempts: int
    """The batches that carried the request."""
    sent: tuple[int, int]
    """Where the body sent is in the spool: the case read again must build the same."""
    charge: Charge | None
    """The request's reservation, settled once the answer is priced."""


Outcome = _Answer | ProviderError
"""A batched request's answer, or why it has none."""


@dataclass(slots=True)
class _CaseRequest:
    """One case's request in a batch (a batch
    :class:`~evalwright.orchestrator.batch.members.Member`):
    its row key and where its body is spooled, not the case."""

    owner: _TargetCases
    key: RowKey
    attempts: int = 0
    charge: Charge | None = None
    offset: int = -1
    """Where its body is in the target's spool (-1: not read in this run)."""
    length: int = 0
    sent: str | None = None
    """A re-attached request's: the digest of the body its batch carries (None: not known)."""
    superseded: bool = False
    """Its case builds another request now: what its batch says of it is not used."""

    @property
    def entry(self) -> RowKey:
        """The row it answers."""
        return self.key

    def body(self) -> bytes | None:
        """The request's body exactly as the live request sends it."""
        return None if self.offset < 0 else self.owner.spooled(self.offset, self.length)

    async def answered(self, line: LineResult, latency_ms: float) -> None:
        """Kept until its case is read again (:meth:`_TargetCases.read_back`)."""
        if self.superseded:
            return
        body = json.dumps(line.body, ensure_ascii=False, separators=(",", ":")).encode()
        sent = (self.offset, self.length)
        at = self.owner.spool_write(body)
        self.owner.outcomes[self.key] = _Answer(at, latency_ms, self.attempts, sent, self.charge)

    async def failed(self, error: ProviderError) -> None:
        """Kept until its case is read again: an error row."""
        if not self.superseded:
            self.owner.outcomes[self.key] = error


class _TargetCases:
    """The cases of one target, through its batches."""

    def __init__(self, owner: BatchRunner, target: str) -> None:
        self.owner = owner
        provider = owner.runner.caller.registry.provider(target)
        assert isinstance(provider, ChatProvider)  # the plan admits no other (has_batch_api)
        self.provider = provider
        self.engine = TargetBatches(
            owner.state,
            owner.tell,
            provider,
            "answers",
            owner.working,
            self.read_back,
            budget=owner.runner.caller.budget,
        )
        owner.engines.append(self.engine)
        self.spool = tempfile.TemporaryFile()  # noqa: SIM115 (closed by send)
        """The bodies of its requests, so that they need not be held (nor built again for a
        follow-up batch)."""
        self.attached: dict[RowKey, _CaseRequest] = {}
        self.waiting: list[_CaseRequest] = []
        self.outcomes: dict[RowKey, Outcome] = {}

    async def reattach(self) -> None:
        """Follow the batches an earlier run submitted (or was killed submitting): their
        requests whose rows this run still owes are answered from there, not sent again."""
        for pending, exc in await self.engine.resolve_pending():
            error = ProviderError(
                f"cannot find out from {self.engine.api.where} whether the batch tagged "
                f"{pending.tag} exists: {exc} (--resume asks again)"
            )
            for row in pending.requests.values():
                key = (row[0], row[1], row[2], row[3], None)  # batched: no variant
                if key in self.owner.keys and key not in self.attached:
                    self.attached[key] = request = _CaseRequest(self, key)
                    await request.failed(error)  # an error row; not sent
        for submitted in self.owner.state.of_target(self.provider.target.name):
            members: dict[str, Member] = {}
            for custom_id in submitted.requests:
                key = self.owner.state.key(submitted, custom_id)
                if key is not None and key in self.owner.keys and key not in self.attached:
                    request = _CaseRequest(self, key, sent=submitted.sent.get(custom_id))
                    members[custom_id] = self.attached[key] = request
            if not members:  # every row of it is written already
                self.owner.state.remove(submitted.batch_id)
                continue
            self.engine.attach(submitted, members)

    async def add(self, item: WorkItem) -> None:
        """Build the case's request: answered by the cache at once, or spooled for a batch."""
        built = await self._build(item, cache=True)
        if built is None:
            return
        body = _sent_body(built[1])
        key = key_of(item)
        request = self.attached.pop(key, None)
        if request is not None and request.sent not in (None, body_digest(body)):
            # The case changed since its batch was sent: the answer there is to another
            # request, so it goes as it is now.
            request.superseded = True
            request = None
        if request is None:
            request = _CaseRequest(self, key)
            self.waiting.append(request)
        request.offset, request.length = self.spool_write(body)

    def spool_write(self, data: bytes) -> tuple[int, int]:
        """Keep ``data`` in the spool; where it is."""
        offset = self.spool.seek(0, os.SEEK_END)
        return offset, self.spool.write(data)

    def spooled(self, offset: int, length: int) -> bytes:
        """A spooled body."""
        self.spool.seek(offset)
        return self.spool.read(length)

    async def send(self) -> None:
        """Submit the waiting requests, then poll until every batch is read back."""
        try:
            waiting, self.waiting = self.waiting, []
            await self.engine.submit(waiting)
            await self.engine.poll()
        finally:
            self.spool.close()

    async def _build(
        self, item: WorkItem, *, cache: bool
    ) -> tuple[BuiltPrompt, PreparedRequest] | None:
        """The case's prompt and request; None when the cache answered it (``cache``) or it
        cannot be built (its row is then on its way)."""
        runner = self.owner.runner
        inputs: BuiltPrompt | None = None
        try:
            inputs = case_prompt(item.case, runner.plan.registry.target(item.target))
            prepared = self.provider.prepare(candidate_request(item.case, inputs))
            hit = await runner.caller.cached(item.target, prepared, item.repeat) if cache else None
        except ProviderError as exc:
            await self.owner.hand(AnsweredCase(item, inputs, None, "off", exc))
            return None
        except Exception as exc:  # a case that cannot be built costs its row an error
            await self.owner.hand(AnsweredCase(item, inputs, None, "off", internal_error(exc)))
            return None
        if hit is not None:
            await self.owner.hand(AnsweredCase(item, inputs, hit, "hit"))
            return None
        return inputs, prepared

    async def read_back(self) -> None:
        """A batch was read: read its cases again and finish each with its outcome."""
        outcomes, self.outcomes = self.outcomes, {}
        if not outcomes:
            return
        for item in reread(self.owner.runner.plan, outcomes):
            outcome = outcomes.pop(key_of(item))
            try:
                await self._finish(item, outcome)
            finally:
                _unpriced(outcome)
        for key, outcome in outcomes.items():  # its case is gone from the file since it was sent
            _unpriced(outcome)
            logger.warning(
                "%s: case %s is no longer in the file; its batch answer is dropped", *key[:2]
            )

    async def _finish(self, item: WorkItem, outcome: Outcome) -> None:
        built = await self._build(item, cache=False)
        if built is None:
            return
        inputs, prepared = built
        if isinstance(outcome, ProviderError):
            await self.owner.hand(AnsweredCase(item, inputs, None, "off", outcome))
            return
        try:
            self._check_unchanged(prepared, outcome)
            response = self.provider.response_from(
                prepared, json.loads(self.spooled(*outcome.body)), outcome.latency_ms
            )
        except ProviderError as exc:
            exc.attempts = outcome.attempts
            await self.owner.hand(AnsweredCase(item, inputs, None, "off", exc))
            return
        if outcome.attempts != 1:
            response = dataclasses.replace(response, attempts=outcome.attempts)
        caller = self.owner.runner.caller
        response, cache = await caller.answered(
            item.target, prepared, response, item.repeat, charge=outcome.charge
        )
        await self.owner.hand(AnsweredCase(item, inputs, response, cache))

    def _check_unchanged(self, prepared: PreparedRequest, answer: _Answer) -> None:
        """Raise when the case read again builds another body than the one sent: its row
        would record a request its answer does not belong to."""
        offset, length = answer.sent
        if offset >= 0 and _sent_body(prepared) != self.spooled(offset, length):
            raise ProviderError(
                "the case changed in its eval file while its batch ran: the answer is to the "
                "request sent before, so it is not used (--resume sends the case as it is now)"
            )


def _unpriced(outcome: Outcome) -> None:
    """An answer whose cost was not settled (it could not be read, or its case is gone) keeps
    its worst case counted against the budget."""
    if isinstance(outcome, _Answer) and outcome.charge is not None:
        outcome.charge.keep()


def _sent_body(prepared: PreparedRequest) -> bytes:
    """The JSON a batch line carries: the live request's body, media bytes in
    (docs/delivery.md#media)."""
    return encode_json(with_bytes(_wire(prepared).body, prepared.request.messages))


def _wire(prepared: PreparedRequest) -> ChatWireRequest:
    wire = prepared.wire
    assert isinstance(wire, ChatWireRequest)  # a chat API's request
    return wire
