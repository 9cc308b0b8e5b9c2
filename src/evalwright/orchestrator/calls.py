"""Every target and judge call goes through here: the per-target concurrency bound and the
endpoint's rate limit (:mod:`evalwright.orchestrator.limits`), the response cache, the retry
policy, the requests in flight, giving up on a target that refuses connections, and the run's
budget, around every provider alike. Adapters know nothing of these."""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable, Iterator

from evalwright.errors import ProviderError, TargetUnreachable
from evalwright.evaluators.base import JudgeCaller
from evalwright.orchestrator.budget import Budget, Charge
from evalwright.orchestrator.limits import Limits
from evalwright.orchestrator.retry import with_retries
from evalwright.providers.base import PreparedRequest, Provider, ProviderRequest, ProviderResponse
from evalwright.providers.pricing import batch_cost, call_cost, load_prices_for
from evalwright.providers.registry import TargetRegistry
from evalwright.providers.wire import ChatWireRequest
from evalwright.results.cache import ResponseCache, cache_key
from evalwright.results.rows import CacheState

UNREACHABLE_AFTER = 8
"""Consecutive refused (or unresolved) attempts, across cases, after which a target is given up
(docs/targets.md#unreachable-targets)."""


def request_digest(provider: Provider, prepared: PreparedRequest, repeat: int) -> str | None:
    """A digest of everything that decides a chat request's answer (the cache key); None for
    a request that is not a chat API's."""
    wire = prepared.wire
    if not isinstance(wire, ChatWireRequest):
        return None
    purpose = prepared.request.purpose
    scope, model = provider.cache_scope, wire.model
    return cache_key(purpose, provider.kind, scope, model, wire.body, repeat=repeat)


class TargetCaller:
    """Calls targets for one run."""

    def __init__(
        self, registry: TargetRegistry, cache: ResponseCache | None, budget: Budget | None = None
    ) -> None:
        self.registry = registry
        self.cache = cache
        self.budget = budget if budget is not None else Budget(None)
        """``--max-cost``: every call sent reserves its worst case there, and settles it."""
        self.limits = Limits(registry)
        """Each target's ``workers`` bound and each endpoint's rate limit."""
        self._refused: dict[str, int] = {}
        self.unreachable: dict[str, str] = {}
        """The targets given up, each with the last connection failure."""
        # Per target, when each request now in flight was sent (monotonic seconds).
        self._in_flight: dict[str, dict[int, float]] = {}
        self._ids = itertools.count()
        self._seen: set[str] = set()
        self.batch_discounted: dict[str, int] = {}
        """Per target, the batch answers priced at the live price less the documented batch
        discount, the price database having no batch price of the model (docs/batch.md#cost)."""

    @property
    def spent(self) -> float:
        """USD the run's calls cost, cache hits left out (calls of unknown price count 0)."""
        return self.budget.spent

    def in_flight(self) -> Iterator[tuple[str, int, float]]:
        """Each target with requests in flight: its name, how many, and when the oldest was
        sent (``time.monotonic``)."""
        for name, started in self._in_flight.items():
            if started:
                yield name, len(started), min(started.values())

    async def _attempt(
        self, name: str, provider: Provider, prepared: PreparedRequest, charge: Charge
    ) -> ProviderResponse:
        """One attempt, counted in flight and in the target's run of refused connections, and
        paid from the call's reservation."""
        if name in self.unreachable:  # given up while this call waited to retry
            raise TargetUnreachable(self._given_up(name), sent=False)
        charge.renew()  # after an attempt that may have been billed; or not sent
        sent = self._in_flight.setdefault(name, {})
        ident = next(self._ids)
        sent[ident] = time.monotonic()
        try:
            response = await charge.paid(provider.send(prepared))  # priced, settled
        except ProviderError as exc:
            self._count(name, exc)
            raise
        finally:
            del sent[ident]
        self._refused[name] = 0
        return response

    def _count(self, name: str, exc: ProviderError) -> None:
        """Count a failed attempt; the UNREACHABLE_AFTER-th refusal in a row gives up."""
        if not exc.unreachable:
            self._refused[name] = 0  # a server answered, if badly
            return
        self._refused[name] = self._refused.get(name, 0) + 1
        if self._refused[name] >= UNREACHABLE_AFTER and name not in self.unreachable:
            self.unreachable[name] = str(exc)
            raise TargetUnreachable(self._given_up(name)) from None

    def _given_up(self, name: str) -> str:
        return (
            f"target '{name}' is unreachable: {UNREACHABLE_AFTER} attempts in a row could not "
            f"connect ({self.unreachable[name]}); the run sends it nothing more"
        )

    async def call(
        self,
        name: str,
        request: ProviderRequest,
        *,
        use_cache: bool = True,
        accept: Callable[[ProviderResponse], bool] | None = None,
        repeat: int = 0,
    ) -> tuple[ProviderResponse, CacheState]:
        """Ask target ``name``; a cached answer costs no request (``latency_ms`` 0). Each
        ``repeat`` of a case is a request of its own, cached apart.

        The answer carries its cost; a cache hit carries the cost of the answer it replays
        but adds nothing to :attr:`spent` (docs/running.md#cost).
        """
        if name not in self._seen:
            self._seen.add(name)
            load_prices_for(self.registry.target(name))  # while the first call is out
        response, state = await self._ask(
            name, request, use_cache=use_cache, accept=accept, repeat=repeat
        )
        if state != "hit":
            return response, state  # priced as it was paid for
        cost = call_cost(self.registry.target(name), response.usage)
        return (response if cost is None else dataclasses.replace(response, cost_usd=cost)), state

    async def _ask(
        self,
        name: str,
        request: ProviderRequest,
        *,
        use_cache: bool,
        accept: Callable[[ProviderResponse], bool] | None,
        repeat: int,
    ) -> tuple[ProviderResponse, CacheState]:
        provider = self.registry.provider(name)
        # Prepared once: the same request gives the cache key and goes out on every attempt.
        prepared = provider.prepare(request)
        key = self._key(provider, prepared, repeat)
        if key is not None and use_cache:
            hit = await self._hit(provider, prepared, key)
            if hit is not None:
                return hit, "hit"
        if name in self.unreachable:
            raise TargetUnreachable(self._given_up(name), sent=False)
        async with self.limits.slot(name):
            if name in self.unreachable:  # given up while this call waited for a slot
                raise TargetUnreachable(self._given_up(name), sent=False)
            # Rendered once per request, not per attempt: every attempt sends the same body.
            checked = await provider.template_notes(prepared)
            target = self.registry.target(name)
            async with self.budget.reserved_for(target, prepared) as charge:  # or not sent
                response, attempts = await with_retries(
                    lambda n: self._attempt(name, provider, prepared.for_attempt(n), charge),
                    provider.retry,
                    provider.timeout,
                    gate=self.limits.endpoint(name),
                )
        if attempts != response.attempts or checked:
            notes = (*response.delivery_notes, *checked)
            response = dataclasses.replace(response, attempts=attempts, delivery_notes=notes)
        if key is None or self.cache is None:
            return response, "off"
        if accept is None or accept(response):
            await self.cache.put(key, request.purpose, response)
        return response, "miss"

    async def _hit(
        self, provider: Provider, prepared: PreparedRequest, key: str
    ) -> ProviderResponse | None:
        """The cached answer under ``key``, with the notes a fresh answer would have."""
        if self.cache is None:
            return None
        hit = await self.cache.get(key, prepared)
        if hit is None:
            return None
        notes = provider.answer_notes(hit.wire_request, hit.usage)
        # Checked on a hit too, so that a cached row says what a fresh one would.
        checked = await provider.template_notes(prepared)
        notes = (*hit.delivery_notes, *notes, *checked)
        return dataclasses.replace(hit, delivery_notes=notes)

    async def cached(
        self, name: str, prepared: PreparedRequest, repeat: int
    ) -> ProviderResponse | None:
        """The cached answer to ``prepared``, priced, or None: batch mode asks the cache
        before it submits anything (docs/batch.md)."""
        provider = self.registry.provider(name)
        key = self._key(provider, prepared, repeat)
        hit = None if key is None else await self._hit(provider, prepared, key)
        if hit is None:
            return None
        cost = call_cost(self.registry.target(name), hit.usage)
        return hit if cost is None else dataclasses.replace(hit, cost_usd=cost)

    async def answered(
        self,
        name: str,
        prepared: PreparedRequest,
        response: ProviderResponse,
        repeat: int,
        accept: Callable[[ProviderResponse], bool] | None = None,
        charge: Charge | None = None,
    ) -> tuple[ProviderResponse, CacheState]:
        """A batch's answer to ``prepared``: cached as a live one would be (when ``accept``
        takes it), priced at the batch discount (docs/batch.md#cost), and settling
        ``charge``, the request's reservation (None: an earlier run submitted it)."""
        provider = self.registry.provider(name)
        key = self._key(provider, prepared, repeat)
        state: CacheState = "off"
        if key is not None and self.cache is not None:
            if accept is None or accept(response):
                await self.cache.put(key, prepared.request.purpose, response)
            state = "miss"
        target = self.registry.target(name)
        cost, discounted = batch_cost(target, response.usage)
        (charge if charge is not None else self.budget.unreserved(target)).settle(cost)
        if cost is None:
            return response, state
        if discounted:
            self.batch_discounted[name] = self.batch_discounted.get(name, 0) + 1
        return dataclasses.replace(response, cost_usd=cost), state

    def _key(self, provider: Provider, prepared: PreparedRequest, repeat: int) -> str | None:
        """The request's cache key, when this run caches and the provider's answers may be."""
        if self.cache is None or not provider.cacheable:
            return None
        return request_digest(provider, prepared, repeat)

    def judge_for(self, repeat: int) -> JudgeCaller:
        """The judge caller of one repeat of a case: its judge calls are cached apart from
        the other repeats', as its answer is."""

        async def judge(
            target: str,
            request: ProviderRequest,
            *,
            use_cache: bool = True,
            accept: Callable[[ProviderResponse], bool] | None = None,
        ) -> ProviderResponse:
            response, _ = await self.call(
                target, request, use_cache=use_cache, accept=accept, repeat=repeat
            )
            return response

        return judge

    async def judge(
        self,
        target: str,
        request: ProviderRequest,
        *,
        use_cache: bool = True,
        accept: Callable[[ProviderResponse], bool] | None = None,
    ) -> ProviderResponse:
        """A judge call (the evaluators' :class:`JudgeCaller`)."""
        response, _ = await self.call(target, request, use_cache=use_cache, accept=accept)
        return response
