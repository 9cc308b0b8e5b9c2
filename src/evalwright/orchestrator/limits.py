"""How fast each target is sent to: its own ``workers`` bound, and an adaptive limit per
endpoint that rate limits shape (docs/targets.md#rate-limits).

An endpoint is a URL, a model and a credential: targets that share all three share one limit,
as the API counts them together. Before an attempt is sent, its endpoint's limit checks:

- the first flight: :data:`FIRST_FLIGHT` attempts until one comes back;
- the window of attempts in flight: none until the first 429 (the targets' ``workers`` and
  ``--workers`` bound them), then cut by each round of 429s and grown back by answers
  (:class:`~evalwright.orchestrator.pacing.Adaptive`); a round is the attempts sent since the
  last cut, so a burst of 429s to attempts sent together cuts once;
- the budgets of requests and tokens the answers announce (``x-ratelimit-*``,
  ``anthropic-ratelimit-*``), each reckoned from every answer's ``remaining`` less what was
  sent since, refilled at the announced per-minute ``limit``; an attempt goes when it fits
  with a tenth of the largest ``remaining`` seen left over, so that a budget enforced in
  short slices is never drawn to zero (:class:`~evalwright.orchestrator.pacing.Reckoning`);
- for a 429 no announced budget explains (one at zero does): a hold of the delay the retry
  policy gave it (``Retry-After``, or at least
  :data:`~evalwright.orchestrator.retry.RATE_LIMIT_FLOOR` with jitter), and a pace of
  attempts a second, cut and grown like the window, from the rate sent at in the second
  before the 429.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from evalwright.errors import ProviderError
from evalwright.orchestrator.pacing import Adaptive, Reckoning, synced
from evalwright.orchestrator.retry import RATE_LIMIT_FLOOR, rate_limited
from evalwright.providers.base import ProviderResponse
from evalwright.providers.ratelimits import Quota
from evalwright.providers.registry import TargetRegistry

FIRST_FLIGHT = 16
"""Attempts an endpoint is sent before its first answer, which says whether and how it is
limited: a first flight of ``--workers 64`` would meet a limit enforced a second at a time with
a burst of 429s before any budget is known."""
LEAST_PACE = 0.2
"""The fewest attempts a second a pace is cut to."""
COST_WEIGHT = 0.2
"""The weight of the latest answer in the running estimate of tokens per request."""

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Ticket:
    """One attempt let through: when, in which round of cuts, how many were in flight with
    it, and how many requests and tokens had been sent with it."""

    round: int
    sent_at: float
    in_flight: int
    sent_requests: int
    sent_tokens: float


class EndpointLimit:
    """The adaptive limit of one endpoint (see the module's docstring)."""

    def __init__(self, clock: Clock = time.monotonic, first_flight: int = FIRST_FLIGHT) -> None:
        self.clock = clock
        self.first_flight = first_flight
        self.window = Adaptive(least=1)
        """The most attempts in flight at once."""
        self.pace = Adaptive(least=LEAST_PACE)
        """The most attempts a second, where 429s come that no budget explains."""
        self.round = 0
        """How many times 429s have cut the window."""
        self._paced_round = 0
        self.in_flight = 0
        self.hold_until = 0.0
        self.next_at = 0.0
        """When the pace lets the next attempt go."""
        self.requests: Reckoning | None = None
        self.tokens: Reckoning | None = None
        self.cost = 0.0
        """Tokens per request, a running estimate from the answers' usage."""
        self.sent_requests = 0
        self.sent_tokens = 0.0
        """Requests and (estimated) tokens sent, in all."""
        self.refused = 0
        """Attempts answered 429."""
        self.answered = False
        """Whether an attempt has come back (until then, ``first_flight`` at most)."""
        self._recent: deque[float] = deque()
        self._queue: deque[asyncio.Future[Ticket]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    async def acquire(self) -> Ticket:
        """Wait until an attempt may be sent, first come first served; count it sent."""
        now = self.clock()
        if not self._queue and self._wait(now) == 0:
            return self._take(now)
        future: asyncio.Future[Ticket] = asyncio.get_running_loop().create_future()
        self._queue.append(future)
        self._pump()
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release(future.result(), None)  # let through, then abandoned
            raise

    def release(self, ticket: Ticket, outcome: object) -> None:
        """Count an attempt done: its answer, its error, or None when it was abandoned."""
        self.in_flight -= 1
        self.answered = self.answered or outcome is not None
        now = self.clock()
        if isinstance(outcome, ProviderResponse):
            self._learn_cost(outcome)
        quota = outcome.quota if isinstance(outcome, ProviderResponse | ProviderError) else None
        if quota is not None:
            self._sync(quota, ticket, now)
        if isinstance(outcome, ProviderError) and rate_limited(outcome):
            self.refused += 1
            # A refused attempt spent nothing: the reckonings count it no more.
            self.sent_requests -= 1
            self.sent_tokens -= self.cost
            if ticket.round == self.round:
                self._cut()
        elif isinstance(outcome, ProviderResponse) and ticket.round == self.round:
            if ticket.in_flight >= int(self.window.value or 0):  # the window was full
                self.window.grow()
            self.pace.grow()
        self._pump()

    def hold(self, error: ProviderError, delay: float) -> None:
        """Send nothing new for ``delay`` seconds, the wait the retry policy gave a 429,
        unless an announced budget at zero explains it (pacing by the budget then waits).

        A delay under the floor says the limit refills in small slices, which a hold alone
        would meet with a burst each time: the first such 429 of a round cuts the pace.
        """
        if self._explained(error):
            return
        now = self.clock()
        self.hold_until = max(self.hold_until, now + delay)
        if delay < RATE_LIMIT_FLOOR and self._paced_round < self.round:
            self._paced_round = self.round
            recent = sum(1 for sent in self._recent if sent >= now - 1)
            self.pace.cut(max(1, recent))  # attempts sent in the last second
        self._pump()

    def _explained(self, error: ProviderError) -> bool:
        """Whether a budget the 429 announces is too low for a request (for tokens: any
        budget, before an answer has said what a request costs)."""
        return error.quota is not None and error.quota.exhausted(self.cost or math.inf)

    def _learn_cost(self, answer: ProviderResponse) -> None:
        if answer.usage is not None:
            used = (answer.usage.input_tokens or 0) + (answer.usage.output_tokens or 0)
            self.cost += COST_WEIGHT * (used - self.cost) if self.cost else used

    def _sync(self, quota: Quota, ticket: Ticket, now: float) -> None:
        # What was sent since ``ticket``, less what was refused since (counted off the
        # totals, so a refusal of an attempt sent after it may count off too much: at 0).
        at, requests = ticket.sent_at, max(0, self.sent_requests - ticket.sent_requests)
        self.requests = synced(self.requests, quota.requests, at, requests, now)
        tokens = max(0.0, self.sent_tokens - ticket.sent_tokens)
        self.tokens = synced(self.tokens, quota.tokens, at, tokens, now)

    def _cut(self) -> None:
        """The first 429 of a round cuts the window."""
        self.round += 1
        self.window.cut(self.in_flight + 1)  # with the refused one, already counted done

    def _wait(self, now: float) -> float | None:
        """Seconds until the next attempt may go (0: now), or None while the window is full."""
        if self.window.value is not None and self.in_flight >= int(self.window.value):
            return None
        if not self.answered and self.in_flight >= self.first_flight:
            return None
        wait = max(self.hold_until, self.next_at) - now
        for reckoning, cost in ((self.requests, 1.0), (self.tokens, self.cost)):
            if reckoning is not None:
                wait = max(wait, reckoning.wait(cost, now))
        return max(0.0, wait)

    def _take(self, now: float) -> Ticket:
        self.in_flight += 1
        self.sent_requests += 1
        self.sent_tokens += self.cost
        if self.requests is not None:
            self.requests.credit -= 1
        if self.tokens is not None:
            self.tokens.credit -= self.cost
        if self.pace.value is not None:
            self.next_at = max(self.next_at, now) + 1 / self.pace.value
        self._recent.append(now)
        while self._recent[0] < now - 1:  # the attempts of the last second are kept
            self._recent.popleft()
        return Ticket(self.round, now, self.in_flight, self.sent_requests, self.sent_tokens)

    def _pump(self) -> None:
        """Let the waiting attempts through, in order, as far as the limit allows."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._queue:
            head = self._queue[0]
            if head.done():  # its caller gave up waiting
                self._queue.popleft()
                continue
            now = self.clock()
            wait = self._wait(now)
            if wait is None:
                return  # a release pumps again
            if wait > 0:
                self._timer = asyncio.get_running_loop().call_later(wait, self._pump)
                return
            self._queue.popleft().set_result(self._take(now))


class Limits:
    """The limits of one run: each target's ``workers`` bound, and each endpoint's limit."""

    def __init__(self, registry: TargetRegistry) -> None:
        self.registry = registry
        self._slots: dict[str, asyncio.Semaphore | None] = {}
        self._endpoints: dict[str, EndpointLimit] = {}
        self._by_target: dict[str, EndpointLimit | None] = {}

    def slot(self, name: str) -> AbstractAsyncContextManager[object]:
        """A place among the target's ``workers`` requests in flight (held across retries)."""
        if name not in self._slots:
            workers = self.registry.target(name).workers
            self._slots[name] = asyncio.Semaphore(workers) if workers else None
        slot = self._slots[name]
        return slot if slot is not None else contextlib.nullcontext()

    def endpoint(self, name: str) -> EndpointLimit | None:
        """The limit of the endpoint target ``name`` sends to (None: a target whose answers
        carry no rate limits, an agent or the mock)."""
        if name not in self._by_target:
            scope = self.registry.provider(name).rate_limit_scope
            limit = None if scope is None else self._endpoints.setdefault(scope, EndpointLimit())
            self._by_target[name] = limit
        return self._by_target[name]

    def refused(self) -> dict[str, int]:
        """The attempts each endpoint answered 429, under the names of the targets that
        share it (``'a' and 'b'``)."""
        names: dict[int, list[str]] = {}
        for name, limit in self._by_target.items():
            if limit is not None and limit.refused:
                names.setdefault(id(limit), []).append(f"'{name}'")
        refused = {id(limit): limit.refused for limit in self._endpoints.values()}
        return {" and ".join(shared): refused[key] for key, shared in names.items()}
