"""Every target and judge call goes through here: the per-target concurrency bound, the
response cache, and the retry policy. Adapters know nothing of these."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager

from evalwright.orchestrator.retry import with_retries
from evalwright.orchestrator.targets import TargetRegistry
from evalwright.prompts import DeliveryNote
from evalwright.providers.base import (
    Provider,
    ProviderRequest,
    ProviderResponse,
    Usage,
    WireRequest,
)
from evalwright.providers.chat import ChatProvider
from evalwright.results.cache import CachedReply, ResponseCache, cache_key
from evalwright.results.rows import CacheState


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
        key = None
        if isinstance(provider, ChatProvider):
            # Converted once: the same body gives the cache key and goes out on every attempt.
            wire, notes = provider.convert(request)
            if self.cache is not None:
                key, hit = await self._lookup(provider, request, wire, notes, use_cache)
                if hit is not None:
                    return hit, "hit"
            attempt_once = self._sender(provider, request, wire, notes)
        else:
            attempt_once = self._generator(provider, request)
        target = self.registry.target(name)
        async with self._limit(name):
            response, attempts = await with_retries(
                attempt_once, getattr(target, "retry", None), target.timeout
            )
        if attempts != response.attempts:
            response = dataclasses.replace(response, attempts=attempts)
        if key is None or self.cache is None:
            return response, "off"
        if accept is None or accept(response):
            usage = response.usage.to_json() if response.usage else None
            await self.cache.put(
                key, request.purpose, CachedReply(response.text, response.finish_reason, usage)
            )
        return response, "miss"

    @staticmethod
    def _sender(
        provider: ChatProvider,
        request: ProviderRequest,
        wire: WireRequest,
        notes: list[DeliveryNote],
    ) -> Callable[[int], Awaitable[ProviderResponse]]:
        return lambda _attempt: provider.send(request, wire, notes)

    @staticmethod
    def _generator(
        provider: Provider, request: ProviderRequest
    ) -> Callable[[int], Awaitable[ProviderResponse]]:
        # Agents see the attempt number ({ATTEMPT}), so each attempt gets its own request.
        return lambda attempt: provider.generate(
            request if attempt == 1 else dataclasses.replace(request, attempt=attempt)
        )

    async def _lookup(
        self,
        provider: ChatProvider,
        request: ProviderRequest,
        wire: WireRequest,
        notes: list[DeliveryNote],
        use_cache: bool,
    ) -> tuple[str, ProviderResponse | None]:
        """The request's cache key, and its stored answer (``attempts`` 0) if there is one."""
        assert self.cache is not None
        key = cache_key(request.purpose, provider.kind, provider.url, wire.model, wire.body)
        hit = await self.cache.get(key) if use_cache else None
        if hit is None:
            return key, None
        usage = Usage(**hit.usage) if hit.usage else None
        response = ProviderResponse(
            hit.text,
            hit.finish_reason,
            usage,
            0.0,
            wire.to_json(),
            (*request.notes, *notes),
            attempts=0,
        )
        return key, response

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
