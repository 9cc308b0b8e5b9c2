"""``--max-cost`` as a hard budget (docs/running.md#--max-cost).

Every call reserves its worst case (:mod:`evalwright.providers.worst_case`) before it is sent.
A call whose worst case does not fit in what is left waits while the calls in flight settle;
one that would not fit even then, or that has no worst case, is not sent (:class:`OverBudget`).
An answer settles its reservation to what it cost. A failed attempt keeps its reservation for
the next one when the API cannot have billed it (an HTTP error status, a connection never
made); else (a timeout, a dropped connection, an answer without usage) its worst case stays
counted as :attr:`Budget.uncertain`, and a retry reserves again. So the run's spent, reserved
and uncertain USD never pass the budget, and what it spends stays within it.

Without ``--max-cost`` the budget has no limit: it reserves nothing and only adds up what the
answers cost (:attr:`Budget.spent`, the run's one tally of it).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncGenerator, Awaitable, Callable

from evalwright.errors import OverBudget, ProviderError
from evalwright.providers.base import PreparedRequest, ProviderResponse
from evalwright.providers.pricing import call_cost
from evalwright.providers.worst_case import Unbounded, batch_bounds, live_bounds, worst_cost
from evalwright.targets.models import Target


class Budget:
    """What the run spent, reserved and may have spent, against ``limit`` USD (``None``:
    no limit)."""

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.spent = 0.0
        """USD the answers cost, cache hits left out (answers of unknown cost count 0)."""
        self.reserved = 0.0
        """The worst cases of the calls and batched requests in flight."""
        self.live = 0.0
        """The part of :attr:`reserved` that live calls hold: each settles within its
        target's timeout, so a call may wait for it."""
        self.uncertain = 0.0
        """The worst cases kept for calls that may have been billed at a cost not known."""
        self.refused: str | None = None
        """Why the first call it refused was refused (the run then starts no new case)."""
        # Charges open, all and live: at none, a sum restarts from 0 with no rounding left.
        self._open = 0
        self._open_live = 0
        self._line = asyncio.Lock()  # first come, first served: a large call is not starved
        self._moved = asyncio.Event()  # a reservation was settled or given back

    @property
    def committed(self) -> float:
        """What the run has spent, reserved and may have spent: never above ``limit``."""
        return self.spent + self.reserved + self.uncertain

    @contextlib.asynccontextmanager
    async def reserved_for(
        self, target: Target, prepared: PreparedRequest
    ) -> AsyncGenerator[Charge]:
        """A live call's reservation while it is tried (every attempt pays through
        :meth:`Charge.paid`); what no answer settled goes back at the end. Raises OverBudget
        (nothing reserved) when the call has no worst case or it cannot fit."""
        what = f"a {prepared.request.purpose} request to '{target.name}'"
        if self.limit is None:
            charge = Charge(self, target, 0.0, what)
        else:
            charge = await self._take(
                target, what, lambda: live_bounds(prepared, target), live=True
            )
        try:
            yield charge
        finally:
            charge.release()

    async def reserve_batch(self, target: Target, body: bytes, purpose: str) -> Charge:
        """Reserve the worst case of one batched request (``body`` as sent), at batch prices;
        raise OverBudget when it has none or it cannot fit."""
        what = f"a batched {purpose} request to '{target.name}'"
        if self.limit is None:
            return Charge(self, target, 0.0, what)
        return await self._take(target, what, lambda: batch_bounds(body, target), live=False)

    def unreserved(self, target: Target) -> Charge:
        """A charge for an answer this run did not reserve: one of a batch an earlier run
        submitted (docs/batch.md#cost)."""
        return Charge(self, target, 0.0, "")

    async def _take(
        self,
        target: Target,
        what: str,
        bounds: Callable[[], tuple[int | None, int | None]],
        *,
        live: bool,
    ) -> Charge:
        try:
            worst = worst_cost(target, bounds(), batch=not live)
        except Unbounded as exc:
            raise self.refuse(f"the cost of {what} has no bound: {exc}") from None
        if not worst:  # free: it waits for nobody
            return Charge(self, target, 0.0, what)
        async with self._line:
            while worst > self.left:
                if worst > self.left + self.live:  # it would not fit once they all settle
                    raise self.refuse(self.too_dear(what, worst))
                self._moved.clear()
                await self._moved.wait()
            return Charge(self, target, worst, what, live=live).opened()

    @property
    def left(self) -> float:
        """USD neither spent, reserved nor uncertain."""
        assert self.limit is not None
        return self.limit - self.committed

    def too_dear(self, what: str, worst: float) -> str:
        """Why ``what`` is refused."""
        assert self.limit is not None
        return (
            f"{what} could cost up to ${worst:.6f}, and only ${max(self.left, 0.0):.6f} of the "
            f"${self.limit:.6f} budget is left"
        )

    def refuse(self, why: str) -> OverBudget:
        """The error of a call refused for ``why`` (the first reason is kept)."""
        if self.refused is None:
            self.refused = why
        return OverBudget(f"not sent: --max-cost: {why}")

    def hold(self, worst: float, *, live: bool) -> None:
        """Reserve ``worst`` (a charge opens)."""
        self._open += 1
        self.reserved += worst
        if live:
            self._open_live += 1
            self.live += worst

    def unhold(self, worst: float, *, live: bool, keep: bool) -> None:
        """Give ``worst`` back, or keep it as uncertain (a charge closes): the call waiting
        may fit now."""
        self._open -= 1
        self.reserved = self.reserved - worst if self._open else 0.0
        if live:
            self._open_live -= 1
            self.live = self.live - worst if self._open_live else 0.0
        if keep:
            self.uncertain += worst
        self._moved.set()


class Charge:
    """One call's reservation, from its first attempt until it is settled or given back."""

    __slots__ = ("budget", "live", "open", "target", "what", "worst")

    def __init__(
        self, budget: Budget, target: Target, worst: float, what: str, *, live: bool = False
    ) -> None:
        self.budget = budget
        self.target = target
        self.worst = worst
        self.what = what
        self.live = live
        self.open = False

    def opened(self) -> Charge:
        """The charge, its worst case now reserved."""
        self.open = True
        self.budget.hold(self.worst, live=self.live)
        return self

    def renew(self) -> None:
        """Before an attempt: reserve again after one that may have been billed; raise
        OverBudget when that no longer fits (a retry does not wait)."""
        if self.open or not self.worst:
            return
        if self.worst > self.budget.left:
            raise self.budget.refuse(self.budget.too_dear(f"a retry of {self.what}", self.worst))
        self.opened()

    async def paid(self, answer: Awaitable[ProviderResponse]) -> ProviderResponse:
        """An attempt's answer, priced and settled; a failure that may have been billed keeps
        the worst case (as uncertain), one that cannot have been keeps it reserved."""
        try:
            response = await answer
        except BaseException as exc:
            if _maybe_billed(exc):
                self._close(keep=True)
            raise
        cost = call_cost(self.target, response.usage)
        self.settle(cost)
        return response if cost is None else dataclasses.replace(response, cost_usd=cost)

    def settle(self, cost: float | None) -> None:
        """The call was answered and cost ``cost``; ``None`` (no usage) keeps the worst case."""
        if cost is not None:
            self.budget.spent += cost
        self._close(keep=cost is None)

    def fail(self, exc: BaseException) -> None:
        """The call failed for good: its worst case is kept when it may have been billed."""
        self._close(keep=_maybe_billed(exc))

    def keep(self) -> None:
        """The call was billed but its answer not priced (not read, or unreadable): its worst
        case stays counted (nothing once settled)."""
        self._close(keep=True)

    def release(self) -> None:
        """The call was not billed (or was settled already): its reservation goes back."""
        self._close(keep=False)

    def _close(self, *, keep: bool) -> None:
        if not self.open:
            return
        self.open = False
        self.budget.unhold(self.worst, live=self.live, keep=keep)


def _maybe_billed(exc: BaseException) -> bool:
    """Whether the API may have billed a call that failed so: not after an HTTP error status
    or a connection never made."""
    if not isinstance(exc, ProviderError):
        return True
    return not (exc.unreachable or (exc.status is not None and exc.status >= 400))
