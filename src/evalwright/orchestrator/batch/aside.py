"""Which of a run's items go to batches (docs/batch.md): the items of batched targets are set
aside from those that run live, and answered once every case is read, while the live cases
still run."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator

from evalwright.orchestrator.batch.cases import BatchRunner, batchable, key_of
from evalwright.orchestrator.plan import Plan, WorkItem
from evalwright.results.index import RowKey


class SetAside:
    """Sets aside the items of batched targets (docs/batch.md) from those that run live, and
    answers them once every case is read, while the live cases still run."""

    def __init__(self, plan: Plan, make: Callable[[], BatchRunner]) -> None:
        self.plan = plan
        self.make = make
        self.batched: set[RowKey] = set()
        self.all_read = asyncio.Event()
        self.runner: BatchRunner | None = None
        self.batching: asyncio.Future[None] | None = None

    def live(self, items: Iterator[WorkItem]) -> Iterator[WorkItem]:
        """The items that run live; the others' row keys are kept for the batches."""
        for item in items:
            if batchable(item) and self.plan.batched(item.target):
                self.batched.add(key_of(item))
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

    def settle(self, errors: bool) -> None:
        """Every row is written (``errors``: some are errors): the batches read back leave
        the state file, or keep what they answered (:meth:`BatchRunner.settle`)."""
        if self.runner is not None:
            self.runner.settle(errors)

    async def aclose(self) -> None:
        """Stop what still runs of the batches (on an interrupt or a failure)."""
        if self.batching is not None and not self.batching.done():
            self.batching.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.batching
        if self.runner is not None:
            await self.runner.aclose()
