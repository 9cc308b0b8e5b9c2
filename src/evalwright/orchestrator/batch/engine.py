"""Batch mode's engine (docs/batch.md): requests of one target submitted through its provider's
batch API, recorded in the state file as soon as each batch exists, polled with backoff, and
read back; a failed request is sent again in a follow-up batch up to the target's
``retry.max_retries``. Each request reserves its worst case in the run's budget before its
batch is submitted (docs/batch.md#cost).

What a request is for stays with it (a :class:`Member`): a case's answer
(:mod:`~evalwright.orchestrator.batch.cases`) or a judge's verdict
(:mod:`~evalwright.orchestrator.batch.judges`). The engine only sends bodies and tells each
member how it went.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from evalwright.errors import OverBudget, ProviderError
from evalwright.orchestrator.batch import pending as batch_pending
from evalwright.orchestrator.batch.members import Member, bodies, fail, release
from evalwright.orchestrator.batch.state import (
    BatchState,
    PendingSubmission,
    Phase,
    SubmittedBatch,
)
from evalwright.orchestrator.budget import Budget
from evalwright.providers.batching import (
    BatchStatus,
    LineResult,
    Outcome,
    Unreadable,
    batch_api,
)
from evalwright.providers.chat import ChatProvider, http_error
from evalwright.providers.http import HttpResult

logger = logging.getLogger(__name__)

POLL_FIRST = 2.0
"""Seconds before a batch's status is first asked (tests lower it; not a setting)."""
POLL_MAX = 60.0
"""The longest wait between two status requests: the wait doubles up to it."""

POLL_FAILURES = 10
"""Failed status requests in a row (connection failures, retryable statuses) after which the
batch's requests are error rows; the batch stays in the state file for ``--resume``."""

Tell = Callable[[str, str, BatchStatus], None]
"""Told each status of a batch: the target, the batch id and what the API said."""
Working = Callable[[], contextlib.AbstractContextManager[object]]
"""Held while a finished batch's members are told their outcomes."""
ReadBack = Callable[[], Awaitable[None]]
"""Called once a batch's members were told their outcomes."""


@dataclass(slots=True)
class _Flight:
    """A batch in flight and the requests of this run it carries."""

    submitted: SubmittedBatch
    members: dict[str, Member]
    wait: float = field(default_factory=lambda: POLL_FIRST)  # as the module says now
    due: float = field(default_factory=time.monotonic)
    failures: int = 0
    """Status requests in a row that failed."""


class TargetBatches:
    """The batches of one target in one phase (answers or judges)."""

    def __init__(
        self,
        state: BatchState,
        tell: Tell,
        provider: ChatProvider,
        phase: Phase,
        working: Working = contextlib.nullcontext,
        read_back: ReadBack | None = None,
        *,
        budget: Budget,
    ) -> None:
        self.state = state
        self.budget = budget
        self.tell = tell
        self.provider = provider
        self.phase: Phase = phase
        self.working = working
        self.read_back = read_back
        """Called once the members of a read batch were told their outcomes."""
        self.api = batch_api(provider)
        self.flights: list[_Flight] = []
        self.read: dict[str, frozenset[str]] = {}
        """The batches read back, each with the custom_ids it answered: they leave the state
        file once the run's rows are written (:meth:`BatchState.settle_read`)."""

    @property
    def target(self) -> str:
        """The target's name."""
        return self.provider.target.name

    def attach(self, submitted: SubmittedBatch, members: dict[str, Member]) -> None:
        """Follow a batch an earlier run submitted, for the requests of it this run owes."""
        for member in members.values():
            member.attempts = submitted.attempt
        self.flights.append(_Flight(submitted, members))

    async def submit(self, members: Sequence[Member]) -> None:
        """Send ``members`` in as few batches as the API's limits allow; those whose worst
        case the budget cannot cover are not sent."""
        chunk: list[Member] = []
        size = 0
        for member in members:
            body = member.body()
            if body is None:
                await member.failed(ProviderError("its batch failed and it cannot be sent again"))
                continue
            if not await self._reserve(member, body):
                continue
            # The body's size plus the line's envelope, a generous estimate.
            line = len(body) + 200
            full = len(chunk) >= self.api.max_requests or size + line > self.api.max_bytes
            if chunk and full:
                await self._submit_one(chunk)
                chunk, size = [], 0
            chunk.append(member)  # its body is read again as the batch is written: not held
            size += line
        if chunk:
            await self._submit_one(chunk)
        await self._read_back()  # those that cannot be sent

    async def _reserve(self, member: Member, body: bytes) -> bool:
        """Reserve the request's worst case; False (and the member failed) when refused."""
        purpose = "candidate" if self.phase == "answers" else "judge"
        try:
            member.charge = await self.budget.reserve_batch(self.provider.target, body, purpose)
        except OverBudget as exc:
            exc.attempts = member.attempts
            await member.failed(exc)
            return False
        return True

    async def _submit_one(self, chunk: list[Member]) -> None:
        attempt = max(member.attempts for member in chunk) + 1
        tag = batch_pending.new_tag()
        members = {batch_pending.custom_id(tag, i): member for i, member in enumerate(chunk)}
        entries = {custom_id: member.entry for custom_id, member in members.items()}
        # On disk before the create call: a kill before it answers must not lose the batch.
        pending = batch_pending.pending_submission(
            self.target, self.provider.kind, tag, attempt, entries
        )
        self.state.begin(pending)
        sent: dict[str, str] = {}
        creating = functools.partial(self.state.creating, tag, sent=sent)
        try:
            batch_id = await self.api.submit(bodies(members, sent), tag, creating)
        except ProviderError as exc:
            found = await batch_pending.after_failed_create(self.api, self.state, pending, exc)
            if found is None:  # no batch was made: nothing was billed
                for member in chunk:
                    release(member)
                    member.attempts = attempt
                    await fail(member, exc)
                return
            batch_id = found
        for member in members.values():
            member.attempts = attempt
        submitted = batch_pending.submitted_from(self.state.pending[tag], batch_id, time.time())
        self.state.settle(tag, submitted)
        self.flights.append(_Flight(submitted, members))

    async def resolve_pending(self) -> list[tuple[PendingSubmission, ProviderError]]:
        """Settle the submissions an earlier run was killed in (``--resume``): a batch found
        becomes a submitted batch, re-attached as any other; one the API does not have is
        forgotten, its requests sent as new. Those the API cannot be asked about stay
        recorded, with why. Each is looked for at once: one the API does not list yet is
        waited for."""

        async def resolve(pending: PendingSubmission) -> ProviderError | None:
            try:
                await batch_pending.resolve(self.api, self.state, pending)
            except ProviderError as exc:
                return exc
            return None

        pending = self.state.pending_of(self.target, self.phase)
        outcomes = await asyncio.gather(*map(resolve, pending))
        return [(p, exc) for p, exc in zip(pending, outcomes, strict=True) if exc is not None]

    async def poll(self) -> None:
        """Ask each batch's status when due, doubling its wait, until all are read back."""
        while self.flights:
            flight = min(self.flights, key=lambda f: f.due)
            await asyncio.sleep(max(0.0, flight.due - time.monotonic()))
            try:
                status = await self.api.status(flight.submitted.batch_id)
            except ProviderError as exc:
                if self._keep_polling(flight, exc):
                    continue
                await self._give_up(flight, exc)
                await self._read_back()
                continue
            flight.failures = 0
            self.tell(self.target, flight.submitted.batch_id, status)
            if not status.done:
                self._later(flight)
                continue
            self.flights.remove(flight)
            try:
                with self.working():
                    reading = await self._collect(flight, status)
            except ProviderError as exc:  # its answers cannot be read now
                await self._give_up(flight, exc, removed=True)
                await self._read_back()
                continue
            self.read[flight.submitted.batch_id] = frozenset(reading.answered)
            await self.submit(reading.retry)
            await self._read_back()

    async def _read_back(self) -> None:
        if self.read_back is not None:
            with self.working():
                await self.read_back()

    def _later(self, flight: _Flight) -> None:
        flight.wait = min(flight.wait * 2, POLL_MAX)
        flight.due = time.monotonic() + flight.wait

    def _keep_polling(self, flight: _Flight, exc: ProviderError) -> bool:
        """Whether a failed status request is asked again: a connection failure or a
        retryable status, up to POLL_FAILURES in a row."""
        flight.failures += 1
        retryable = exc.status is None or exc.status in self.provider.retry.retryable_status_codes
        if retryable and flight.failures < POLL_FAILURES:
            self._later(flight)
            return True
        return False

    async def _give_up(self, flight: _Flight, exc: ProviderError, *, removed: bool = False) -> None:
        """The batch's status or answers cannot be had: its requests fail, and the batch stays
        in the state file, so that ``--resume`` asks it again rather than submitting them
        twice (unless the API does not know it)."""
        if not removed:
            self.flights.remove(flight)
        batch_id = flight.submitted.batch_id
        then = "--resume asks again"
        if exc.status == 404:  # no such batch there: nothing to ask again
            self.state.remove(batch_id)
            then = "the API does not know the batch; --resume submits its requests again"
        error = ProviderError(f"batch {batch_id} of {self.api.where}: {exc} ({then})")
        for member in flight.members.values():
            await fail(member, error)

    async def _collect(self, flight: _Flight, status: BatchStatus) -> _Reading:
        """Tell each member of a finished batch its outcome: which were answered, which are
        sent again. Raises ProviderError when its answers cannot be read."""
        latency_ms = (time.time() - flight.submitted.submitted_at) * 1000
        reading = _Reading(flight, f"batch {flight.submitted.batch_id} of {self.api.where}")
        expected = len(flight.submitted.requests) + len(flight.submitted.judges)
        # Each line is told as it is read: the answers of a batch are never all held at once.
        for number, line in enumerate(await self.api.results(status, expected), 1):
            member = reading.claim(line, number)
            if member is None:
                continue
            if isinstance(line, Unreadable):
                await self._send_again(reading, member, f"line {number}")
            elif line.status is not None and line.status < 400:
                reading.answered.add(line.custom_id)
                await member.answered(line, latency_ms)
            elif self._retryable(line, member):
                release(member)  # an error status: not billed; sending it again re-reserves
                reading.retry.append(member)
            else:
                await fail(member, self._line_error(reading.where, status, line))
        for custom_id, member in flight.members.items():
            if custom_id in reading.told:
                continue
            if reading.lost:  # its answer may be a line that could not be read
                await self._send_again(reading, member, reading.lost)
            else:
                await fail(member, self._line_error(reading.where, status, None))
        return reading

    async def _send_again(self, reading: _Reading, member: Member, lost: str) -> None:
        """A request whose answer could not be read goes in the follow-up batch; after the
        last retry it is an error row, which ``--resume`` sends again."""
        if member.attempts <= self.provider.retry.max_retries:
            reading.retry.append(member)
            return
        problem = f"{reading.where}: its answer could not be read (results {lost})"
        await fail(member, ProviderError(f"{problem}; --resume sends it again"))

    def _retryable(self, line: LineResult | None, member: Member) -> bool:
        """A request that ran and failed with a retryable status, with retries left."""
        retry = self.provider.retry
        if line is None or line.status is None:
            return False
        return line.status in retry.retryable_status_codes and member.attempts <= retry.max_retries

    @staticmethod
    def _line_error(where: str, status: BatchStatus, line: LineResult | None) -> ProviderError:
        if line is not None and line.status is not None:
            body = json.dumps(line.body).encode("utf-8")
            return http_error(HttpResult(line.status, {}, body), where)
        if line is not None:
            return ProviderError(f"{where} did not run this request ({line.error})")
        if status.state == "failed":
            return ProviderError(f"{where} failed: {status.problem or 'no reason given'}")
        return ProviderError(f"{where} ended {status.shown} without an answer to this request")


@dataclass(slots=True)
class _Reading:
    """A finished batch's results being read: which requests were answered, which go in the
    follow-up batch, which lines could not be read."""

    flight: _Flight
    where: str
    """The batch, as messages name it."""
    told: set[str] = field(default_factory=set[str])
    answered: set[str] = field(default_factory=set[str])
    retry: list[Member] = field(default_factory=list[Member])
    lost: str = ""
    """The results lines that could not be read, as messages name them ("" when none)."""

    def claim(self, line: Outcome, number: int) -> Member | None:
        """The member of this run the ``number``-th line answers, the first time one does. A
        line that cannot be read, or answers a custom_id the batch never held, is logged; the
        requests left without an answer are then sent again (:attr:`lost`)."""
        submitted = self.flight.submitted
        known = line.custom_id in submitted.requests or line.custom_id in submitted.judges
        if isinstance(line, Unreadable):
            request = "" if line.custom_id is None else f" (custom_id {line.custom_id!r})"
            self._lose(number, f"results line {number}{request} cannot be read ({line.problem})")
        elif not known:
            held = f"answers {line.custom_id!r}, which the batch did not hold"
            self._lose(number, f"results line {number} {held}")
        if line.custom_id is None or line.custom_id in self.told:
            return None
        member = self.flight.members.get(line.custom_id)
        if member is not None:
            self.told.add(line.custom_id)
        return member

    def _lose(self, number: int, problem: str) -> None:
        self.lost = f"line {number}" if not self.lost else f"{self.lost}, {number}"
        logger.warning(
            "%s: %s: ignored; the request it leaves without an answer is sent again",
            self.where,
            problem,
        )
