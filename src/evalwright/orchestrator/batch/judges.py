"""The judges of a batched run in a second batch phase (docs/batch.md#judges).

A batched case's judge calls are built exactly as live ones and the cache is asked first; the
rest wait in a queue per judge target. The queue goes out as a batch once every case being
finished is waiting on a judge (nothing more is about to join it), or once its oldest request
has waited ``GATHER_MAX`` seconds. While a case waits on a batch it holds no ``--workers``
slot. Each judges batch is recorded in the state file with a digest of each request (its
target, body and repeat), so that ``--resume`` finds an identical request in it rather than
submitting it again. A judge target whose provider has no batch API is called live.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Callable, Coroutine, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from evalwright.errors import ProviderError
from evalwright.orchestrator.batch.engine import TargetBatches, Tell
from evalwright.orchestrator.batch.members import Member
from evalwright.orchestrator.batch.state import BatchState
from evalwright.orchestrator.budget import Charge
from evalwright.orchestrator.calls import TargetCaller, request_digest
from evalwright.providers.base import PreparedRequest, ProviderRequest, ProviderResponse
from evalwright.providers.batching import LineResult
from evalwright.providers.chat import ChatProvider
from evalwright.providers.http import encode_json
from evalwright.providers.media import with_bytes
from evalwright.providers.wire import ChatWireRequest

GATHER = 0.2
"""Seconds between two looks at the queues (tests lower it; not a setting)."""
GATHER_MAX = 60.0
"""The longest a judge request waits for others to join its batch."""

Answer = tuple[LineResult, float]
"""A judge request's line of its batch, and the batch's latency in milliseconds."""


def _future() -> asyncio.Future[Answer]:
    future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
    # An answer no case claims is dropped quietly, an error included.
    future.add_done_callback(lambda f: f.cancelled() or f.exception())
    return future


@dataclass(slots=True)
class _JudgeRequest:
    """One judge request in a batch (a batch
    :class:`~evalwright.orchestrator.batch.members.Member`)."""

    digest: str
    prepared: PreparedRequest | None
    """None for a request of a re-attached batch that no case has asked for yet."""
    answer: asyncio.Future[Answer] = field(default_factory=_future)
    queued_at: float = field(default_factory=time.monotonic)
    attempts: int = 0
    charge: Charge | None = None

    @property
    def entry(self) -> str:
        """What the state file records: the request's digest."""
        return self.digest

    def body(self) -> bytes | None:
        """The request's body exactly as a live judge call sends it."""
        if self.prepared is None:
            return None
        wire = self.prepared.wire
        assert isinstance(wire, ChatWireRequest)
        return encode_json(with_bytes(wire.body, self.prepared.request.messages))

    async def answered(self, line: LineResult, latency_ms: float) -> None:
        """Its line: the case waiting on it reads the verdict."""
        if not self.answer.done():
            self.answer.set_result((line, latency_ms))

    async def failed(self, error: ProviderError) -> None:
        """No answer: the case waiting on it gets the error, as from a live call."""
        if not self.answer.done():
            self.answer.set_exception(error)


class JudgeBatcher:
    """The judges batches of one run."""

    def __init__(
        self, caller: TargetCaller, state: BatchState, tell: Tell, slots: asyncio.Semaphore
    ) -> None:
        self.caller = caller
        self.state = state
        self.tell = tell
        self.slots = slots
        """The run's ``--workers`` slots: a case waiting on a batch gives its slot back."""
        self.engines: dict[str, TargetBatches | None] = {}
        self.queues: dict[str, list[_JudgeRequest]] = {}
        self.attached: dict[tuple[str, str], _JudgeRequest] = {}
        """Requests of re-attached batches, by judge target and digest, until claimed."""
        self.active = 0
        """Cases being finished that wait on no judges batch (and answer batches being read)."""
        self.tasks: set[asyncio.Future[None]] = set()
        self.pollers: dict[str, asyncio.Future[None]] = {}
        self.ticker: asyncio.Future[None] | None = None

    async def reattach(self) -> None:
        """Follow the judges batches of the state file (``--resume``): their requests are
        answered from there when a case asks them again. A submission an earlier run was
        killed in is looked up first; one the API cannot be asked about stays recorded, and
        its requests fail (the next ``--resume`` asks again) rather than go out twice."""
        targets = {pending.target for pending in self.state.pending.values()}
        await asyncio.gather(*map(self._resolve, targets))
        for submitted in self.state.of_phase("judges"):
            engine = self.engine(submitted.target)
            if engine is None:  # the target is gone or has no batch API now
                continue
            members: dict[str, Member] = {}
            for custom_id, digest in submitted.judges.items():
                request = _JudgeRequest(digest, None)
                self.attached.setdefault((submitted.target, digest), request)
                members[custom_id] = request
            engine.attach(submitted, members)
            self._poll(submitted.target, engine)

    async def _resolve(self, target: str) -> None:
        """Settle the pending judges submissions to ``target``."""
        engine = self.engine(target)
        if engine is None:
            return
        for pending, exc in await engine.resolve_pending():
            error = ProviderError(
                f"cannot find out from {engine.api.where} whether the judges batch tagged "
                f"{pending.tag} exists: {exc} (--resume asks again)"
            )
            for digest in pending.judges.values():
                request = _JudgeRequest(digest, None)
                await request.failed(error)
                self.attached.setdefault((target, digest), request)

    def engine(self, target: str) -> TargetBatches | None:
        """The batch engine of judge target ``target``; None when it is called live."""
        if target not in self.engines:
            self.engines[target] = None
            with contextlib.suppress(Exception):  # a target that cannot be made is called live
                provider = self.caller.registry.provider(target)
                if isinstance(provider, ChatProvider):
                    self.engines[target] = TargetBatches(
                        self.state,
                        self.tell,
                        provider,
                        "judges",
                        self.working,
                        budget=self.caller.budget,
                    )
        return self.engines[target]

    def for_case(self, repeat: int) -> CaseJudges:
        """The judge caller of a case about to be finished (counted active until
        :meth:`CaseJudges.done`)."""
        self.active += 1
        return CaseJudges(self, repeat)

    @contextlib.contextmanager
    def working(self) -> Generator[None]:
        """Held while more judge requests may come at once (answers being handed)."""
        self.active += 1
        try:
            yield
        finally:
            self.idle()

    def idle(self) -> None:
        """One fewer case or reader at work."""
        self.active -= 1

    def enqueue(self, target: str, request: _JudgeRequest) -> None:
        """Queue a judge request for the next batch of ``target``."""
        self.queues.setdefault(target, []).append(request)
        if self.ticker is None or self.ticker.done():
            self.ticker = asyncio.ensure_future(self._tick())

    async def _tick(self) -> None:
        """Send the queues when nothing more is coming (or they waited long enough)."""
        while any(self.queues.values()):
            await asyncio.sleep(GATHER)
            now = time.monotonic()
            for target, queue in list(self.queues.items()):
                if queue and (self.active <= 0 or now - queue[0].queued_at >= GATHER_MAX):
                    self.queues[target] = []
                    self._spawn(self._send(target, queue))

    async def _send(self, target: str, queue: list[_JudgeRequest]) -> None:
        engine = self.engine(target)
        assert engine is not None  # only batched targets are queued
        await engine.submit(queue)
        self._poll(target, engine)

    def _poll(self, target: str, engine: TargetBatches) -> None:
        """Poll ``engine``'s batches, unless that is being done."""
        poller = self.pollers.get(target)
        if poller is None or poller.done():
            self.pollers[target] = self._spawn(engine.poll())

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Future[None]:
        """Run ``work``; a failure of ours fails the requests waiting on it, not the run."""
        task = asyncio.ensure_future(self._guarded(work))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def _guarded(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except Exception as exc:  # a bug must cost the judges waiting, not hang them
            error = ProviderError(f"internal error in a judges batch: {type(exc).__name__}: {exc}")
            for request in self._waiting():
                await request.failed(error)

    def _waiting(self) -> Iterator[_JudgeRequest]:
        for engine in self.engines.values():
            for flight in engine.flights if engine is not None else ():
                yield from (m for m in flight.members.values() if isinstance(m, _JudgeRequest))
        for queue in self.queues.values():
            yield from queue

    def settle(self) -> tuple[dict[str, frozenset[str]], list[str]]:
        """Once every row is written: the judges batches read back (each with the custom_ids
        it answered), and those still running that no case of the run asked for."""
        read: dict[str, frozenset[str]] = {}
        unasked: list[str] = []
        for engine in self.engines.values():
            if engine is not None:
                read.update(engine.read)
                unasked += [flight.submitted.batch_id for flight in engine.flights]
        return read, unasked

    async def aclose(self) -> None:
        """Stop polling and sending."""
        pending = [*self.tasks, *([self.ticker] if self.ticker is not None else [])]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


class CaseJudges:
    """The judge caller of one batched case (the evaluators' ``JudgeCaller``)."""

    def __init__(self, batcher: JudgeBatcher, repeat: int) -> None:
        self.batcher = batcher
        self.repeat = repeat
        self.waiting = 0
        self.finished = False

    async def __call__(
        self,
        target: str,
        request: ProviderRequest,
        *,
        use_cache: bool = True,
        accept: Callable[[ProviderResponse], bool] | None = None,
    ) -> ProviderResponse:
        """The judge's answer: from the cache, a judges batch, or live when its target has no
        batch API."""
        caller, batcher = self.batcher.caller, self.batcher
        engine = batcher.engine(target)
        if engine is None:
            response, _ = await caller.call(
                target, request, use_cache=use_cache, accept=accept, repeat=self.repeat
            )
            return response
        provider = engine.provider
        prepared = provider.prepare(request)
        if use_cache:
            hit = await caller.cached(target, prepared, self.repeat)
            if hit is not None:
                return hit
        digest = request_digest(provider, prepared, self.repeat)
        assert digest is not None  # a chat API's request (the engine's targets are)
        queued = batcher.attached.pop((target, digest), None)
        if queued is None:
            queued = _JudgeRequest(digest, prepared)
            batcher.enqueue(target, queued)
        queued.prepared = prepared
        line, latency_ms = await self._wait(queued.answer)
        try:
            return await self._read(target, queued, line, latency_ms, accept)
        finally:
            if queued.charge is not None:  # an answer not priced keeps its worst case
                queued.charge.keep()

    async def _read(
        self,
        target: str,
        queued: _JudgeRequest,
        line: LineResult,
        latency_ms: float,
        accept: Callable[[ProviderResponse], bool] | None,
    ) -> ProviderResponse:
        """The judge's answer in its batch's ``line``, cached and priced as a live one."""
        prepared = queued.prepared
        assert prepared is not None  # set by the case that asked
        engine = self.batcher.engine(target)
        assert engine is not None  # the request was batched
        response = engine.provider.response_from(prepared, line.body, latency_ms)
        if queued.attempts != 1:
            response = dataclasses.replace(response, attempts=queued.attempts)
        response, _ = await self.batcher.caller.answered(
            target, prepared, response, self.repeat, accept, queued.charge
        )
        return response

    async def _wait(self, answer: asyncio.Future[Answer]) -> Answer:
        """Wait on a batch without holding a ``--workers`` slot; the case counts as idle."""
        if self.waiting == 0:
            self.batcher.idle()
            self.batcher.slots.release()
        self.waiting += 1
        try:
            got = await asyncio.shield(answer)
        except asyncio.CancelledError:  # the run stops: no slot to take back
            raise
        except BaseException:
            await self._back()
            raise
        await self._back()
        return got

    async def _back(self) -> None:
        """Done waiting: the case is at work again, once it has a slot."""
        self.waiting -= 1
        if self.waiting == 0:
            self.batcher.active += 1
            await self.batcher.slots.acquire()

    def done(self) -> None:
        """The case's row is written (or it stopped)."""
        if not self.finished:
            self.finished = True
            self.batcher.idle()
