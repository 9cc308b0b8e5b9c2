"""Every target and judge call goes through here: the per-target concurrency bound, the
response cache, and the retry policy, around every provider alike. Adapters know nothing of
these."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from evalwright.orchestrator.retry import with_retries
from evalwright.providers.base import PreparedRequest, Provider, ProviderRequest, ProviderResponse
from evalwright.providers.wire import ChatWireRequest
from evalwright.results.cache import ResponseCache, cache_key
from evalwright.results.rows import CacheState
from evalwright.targets.registry import TargetRegistry


class TargetCaller:
    """Calls targets for one run."""

    def __init__(self, registry: TargetRegistry, cache: ResponseCache | None) -> None:
        self.registry = registry
        self.cache = cache
        self._limits: dict[str, asyncio.Semaphore | None] = {}

    def _limit(self, name: str) -> AbstractAsyncContextManager[object]:
        if name not in self._limits:
            workers = self.registry.target(name).workers
            self._limits[name] = asyncio.Semaphore(workers) if workers else None
        limit = self._limits[name]
        return limit if limit is not None else contextlib.nullcontext()

    async def call(
        self,
        name: str,
        request: ProviderRequest,
        *,
        use_cache: bool = True,
        accept: Callable[[ProviderResponse], bool] | None = None,
    ) -> tuple[ProviderResponse, CacheState]:
        """Ask target ``name``; a cached answer costs no request (``latency_ms`` 0)."""
        provider = self.registry.provider(name)
        # Prepared once: the same request gives the cache key and goes out on every attempt.
        prepared = provider.prepare(request)
        key = self._key(provider, prepared)
        if key is not None and use_cache and self.cache is not None:
            hit = await self.cache.get(key, prepared)
            if hit is not None:
                notes = provider.answer_notes(hit.wire_request, hit.usage)
                return dataclasses.replace(hit, delivery_notes=(*hit.delivery_notes, *notes)), "hit"
        async with self._limit(name):
            response, attempts = await with_retries(
                lambda attempt: provider.send(prepared.for_attempt(attempt)),
                provider.retry,
                provider.timeout,
            )
        if attempts != response.attempts:
            response = dataclasses.replace(response, attempts=attempts)
        if key is None or self.cache is None:
            return response, "off"
        if accept is None or accept(response):
            await self.cache.put(key, request.purpose, response)
        return response, "miss"

    def _key(self, provider: Provider, prepared: PreparedRequest) -> str | None:
        """The request's cache key, when this run caches and the provider's answers may be."""
        wire = prepared.wire
        if self.cache is None or not provider.cacheable or not isinstance(wire, ChatWireRequest):
            return None
        purpose = prepared.request.purpose
        return cache_key(purpose, provider.kind, provider.cache_scope, wire.model, wire.body)

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
