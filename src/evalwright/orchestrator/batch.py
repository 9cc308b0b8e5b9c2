"""Batch mode (docs/batch.md): a target's single-turn cases sent through its provider's batch
API instead of one request each.

Every request is built exactly as a live one (``prepare``) and the cache is asked first; the
rest go out as one batch (or more, at the API's limits), recorded in the state file as soon as
each batch exists. The batches are polled with backoff; each answer becomes its case's row as a
live answer would (evaluators run, the cache filled). A failed request is retried in a
follow-up batch up to the target's ``retry.max_retries``; the requests of an expired or
cancelled batch that never ran are error rows (``--resume`` sends them again).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from evalwright.errors import ProviderError
from evalwright.orchestrator import batch_pending
from evalwright.orchestrator.batch_state import BatchState, PendingSubmission, SubmittedBatch
from evalwright.orchestrator.case import AnsweredCase, CaseRunner, internal_error
from evalwright.orchestrator.plan import WorkItem
from evalwright.orchestrator.requests import candidate_request, case_prompt
from evalwright.prompts import BuiltPrompt
from evalwright.providers.base import PreparedRequest
from evalwright.providers.batching import BatchStatus, LineResult, batch_api
from evalwright.providers.chat import ChatProvider, http_error
from evalwright.providers.http import HttpResult, encode_json
from evalwright.providers.wire import ChatWireRequest, JsonValue
from evalwright.results.index import RowKey

POLL_FIRST = 2.0
"""Seconds before a batch's status is first asked (tests lower it; not a setting)."""
POLL_MAX = 60.0
"""The longest wait between two status requests: the wait doubles up to it."""

POLL_FAILURES = 10
"""Failed status requests in a row (connection failures, retryable statuses) after which the
batch's requests are error rows; the batch stays in the state file for ``--resume``."""

Hand = Callable[[AnsweredCase], Awaitable[None]]
"""Finishes an answered case: evaluators, the row written (the run's pipeline)."""
Tell = Callable[[str, str, BatchStatus], None]
"""Told each status of a batch: the target, the batch id and what the API said."""


def key_of(item: WorkItem) -> RowKey:
    """The row ``item`` writes."""
    return (item.suite.relative_path, item.case.id, item.target, item.repeat)


def batchable(item: WorkItem) -> bool:
    """Whether the case is one request (a live conversation is not)."""
    return not item.case.turns and item.case.simulated_user is None


@dataclass(slots=True)
class _Request:
    """One case's request, ready to go into a batch."""

    item: WorkItem
    inputs: BuiltPrompt
    prepared: PreparedRequest
    attempts: int = 0
    """Batches that carried it so far."""


@dataclass(slots=True)
class _Flight:
    """A batch in flight and the requests of this run it carries."""

    submitted: SubmittedBatch
    members: dict[str, _Request]
    wait: float = POLL_FIRST
    due: float = field(default_factory=time.monotonic)
    failures: int = 0
    """Status requests in a row that failed."""


class BatchRunner:
    """Runs the batched items of one run, target by target."""

    def __init__(self, runner: CaseRunner, state: BatchState, hand: Hand, tell: Tell) -> None:
        self.runner = runner
        self.state = state
        self.hand = hand
        self.tell = tell

    async def run(self, items: list[WorkItem]) -> None:
        """Answer every item: from the cache, a batch in flight, or a new batch."""
        by_target: dict[str, list[WorkItem]] = {}
        for item in items:
            by_target.setdefault(item.target, []).append(item)
        # Each target's batches run at once: one target's 24 hours must not wait on another's.
        tasks = [
            asyncio.ensure_future(_TargetBatches(self, target).run(group))
            for target, group in by_target.items()
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


class _TargetBatches:
    """The batches of one target."""

    def __init__(self, owner: BatchRunner, target: str) -> None:
        self.owner = owner
        self.target = target
        caller = owner.runner.caller
        provider = caller.registry.provider(target)
        assert isinstance(provider, ChatProvider)  # the plan admits no other (BATCH_PROVIDERS)
        self.provider = provider
        self.api = batch_api(provider)
        self.flights: list[_Flight] = []

    async def run(self, items: list[WorkItem]) -> None:
        """Prepare, re-attach, submit, then poll until every batch is read back."""
        waiting: dict[RowKey, _Request] = {}
        for item in items:
            request = await self._prepare(item)
            if request is not None:
                waiting[key_of(item)] = request
        for pending in self.owner.state.pending_of(self.target):
            await self._resolve(pending, waiting)
        for submitted in self.owner.state.of_target(self.target):
            self._reattach(submitted, waiting)
        await self._submit(list(waiting.values()))
        await self._poll()

    async def _prepare(self, item: WorkItem) -> _Request | None:
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
        return _Request(item, inputs, prepared)

    async def _resolve(self, pending: PendingSubmission, waiting: dict[RowKey, _Request]) -> None:
        """Look up the batch of a submission an earlier run was killed in: found, it is
        re-attached below; not found, its requests are submitted as new. When the API cannot
        be asked, its requests are error rows and the record stays for ``--resume``."""
        try:
            await batch_pending.resolve(self.api, self.owner.state, pending)
        except ProviderError as exc:
            error = ProviderError(
                f"cannot find out from {self.api.where} whether the batch tagged "
                f"{pending.tag} exists: {exc} (--resume asks again)"
            )
            for row in pending.requests.values():
                request = waiting.pop((row[0], row[1], row[2], row[3]), None)
                if request is not None:
                    await self._fail(request, error)

    def _reattach(self, submitted: SubmittedBatch, waiting: dict[RowKey, _Request]) -> None:
        """Follow a batch an earlier run submitted: its requests whose rows this run still
        owes are answered from it, not sent again."""
        members: dict[str, _Request] = {}
        for custom_id in submitted.requests:
            key = self.owner.state.key(submitted, custom_id)
            request = waiting.pop(key, None) if key is not None else None
            if request is not None:
                request.attempts = submitted.attempt
                members[custom_id] = request
        if not members:  # every row of it is written already
            self.owner.state.remove(submitted.batch_id)
            return
        self.flights.append(_Flight(submitted, members))

    async def _submit(self, requests: list[_Request]) -> None:
        """Send ``requests`` in as few batches as the API's limits allow."""
        chunk: list[_Request] = []
        size = 0
        for request in requests:
            # The body's size plus the line's envelope, a generous estimate.
            line = len(encode_json(_body(request))) + 200
            full = len(chunk) >= self.api.max_requests or size + line > self.api.max_bytes
            if chunk and full:
                await self._submit_one(chunk)
                chunk, size = [], 0
            chunk.append(request)
            size += line
        if chunk:
            await self._submit_one(chunk)

    async def _submit_one(self, chunk: list[_Request]) -> None:
        attempt = max(request.attempts for request in chunk) + 1
        tag = batch_pending.new_tag()
        members = {batch_pending.custom_id(tag, i): request for i, request in enumerate(chunk)}
        keys = {custom_id: key_of(r.item) for custom_id, r in members.items()}
        # On disk before the create call: a kill before it answers must not lose the batch.
        pending = batch_pending.pending_submission(
            self.target, self.provider.kind, tag, attempt, keys
        )
        state = self.owner.state
        state.begin(pending)
        lines = [(c, _body(r)) for c, r in members.items()]
        noted = functools.partial(state.note_input_file, tag)
        try:
            batch_id = await self.api.submit(lines, tag, noted)
        except ProviderError as exc:
            found = await batch_pending.after_failed_create(self.api, state, pending, exc)
            if found is None:
                for request in chunk:
                    request.attempts = attempt
                    await self._fail(request, exc)
                return
            batch_id = found
        for request in members.values():
            request.attempts = attempt
        submitted = batch_pending.submitted_from(state.pending[tag], batch_id, time.time())
        state.settle(tag, submitted)
        self.flights.append(_Flight(submitted, members))

    async def _poll(self) -> None:
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
                continue
            flight.failures = 0
            self.owner.tell(self.target, flight.submitted.batch_id, status)
            if not status.done:
                self._later(flight)
                continue
            self.flights.remove(flight)
            try:
                retry = await self._collect(flight, status)
            except ProviderError as exc:  # its answers cannot be read now
                await self._give_up(flight, exc, removed=True)
                continue
            self.owner.state.remove(flight.submitted.batch_id)
            await self._submit(retry)

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
        """The batch's status or answers cannot be had: its requests are error rows, and the
        batch stays in the state file, so that ``--resume`` asks it again rather than
        submitting them twice (unless the API does not know it)."""
        if not removed:
            self.flights.remove(flight)
        batch_id = flight.submitted.batch_id
        then = "--resume asks again"
        if exc.status == 404:  # no such batch there: nothing to ask again
            self.owner.state.remove(batch_id)
            then = "the API does not know the batch; --resume submits its requests again"
        error = ProviderError(f"batch {batch_id} of {self.api.where}: {exc} ({then})")
        for request in flight.members.values():
            await self._fail(request, error)

    async def _collect(self, flight: _Flight, status: BatchStatus) -> list[_Request]:
        """Turn a finished batch's lines into answered cases; the requests to send again.
        Raises ProviderError when its answers cannot be read."""
        batch_id = flight.submitted.batch_id
        expected = len(flight.submitted.requests)
        lines: dict[str, LineResult] = {}
        for line in await self.api.results(status, expected):
            lines[line.custom_id] = line
        latency_ms = (time.time() - flight.submitted.submitted_at) * 1000
        retry: list[_Request] = []
        for custom_id, request in flight.members.items():
            line = lines.get(custom_id)
            if line is not None and line.status is not None and line.status < 400:
                await self._answer(request, line, latency_ms)
                continue
            error = self._line_error(batch_id, status, line)
            if self._retryable(line, request):
                retry.append(request)
            else:
                await self._fail(request, error)
        return retry

    async def _answer(self, request: _Request, line: LineResult, latency_ms: float) -> None:
        item, caller = request.item, self.owner.runner.caller
        try:
            response = self.provider.response_from(request.prepared, line.body, latency_ms)
        except ProviderError as exc:
            await self._fail(request, exc)
            return
        if request.attempts != 1:
            response = dataclasses.replace(response, attempts=request.attempts)
        response, cache = await caller.answered(
            item.target, request.prepared, response, item.repeat
        )
        await self.owner.hand(AnsweredCase(item, request.inputs, response, cache))

    def _retryable(self, line: LineResult | None, request: _Request) -> bool:
        """A request that ran and failed with a retryable status, with retries left."""
        retry = self.provider.retry
        if line is None or line.status is None:
            return False
        return line.status in retry.retryable_status_codes and request.attempts <= retry.max_retries

    def _line_error(
        self, batch_id: str, status: BatchStatus, line: LineResult | None
    ) -> ProviderError:
        where = f"batch {batch_id} of {self.api.where}"
        if line is not None and line.status is not None:
            body = json.dumps(line.body).encode("utf-8")
            return http_error(HttpResult(line.status, {}, body), where)
        if line is not None:
            return ProviderError(f"{where} did not run this request ({line.error})")
        if status.state == "failed":
            return ProviderError(f"{where} failed: {status.problem or 'no reason given'}")
        return ProviderError(f"{where} ended {status.shown} without an answer to this request")

    async def _fail(self, request: _Request, error: ProviderError) -> None:
        error.attempts = max(request.attempts, 1)
        await self.owner.hand(AnsweredCase(request.item, request.inputs, None, "off", error))


def _body(request: _Request) -> dict[str, JsonValue]:
    """The request's body exactly as the live request sends it."""
    wire = request.prepared.wire
    assert isinstance(wire, ChatWireRequest)
    return wire.body
