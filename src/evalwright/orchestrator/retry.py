"""The one retry and timeout policy: exponential backoff with full jitter per target.

Retried: the target's retryable status codes, dropped connections, timeouts, and success
responses whose body does not parse. Never retried: 400, 401, 403, 404 and blocked prompts.
``retry-after-ms`` and ``Retry-After`` are honoured, capped at ``max_delay_ms``.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from evalwright import logs
from evalwright.errors import BlockedError, ProviderError, ProviderTimeout
from evalwright.targets.models import RetrySettings

logger = logging.getLogger(__name__)

T = TypeVar("T")
NEVER_RETRIED = frozenset({400, 401, 403, 404})
Sleep = Callable[[float], Awaitable[None]]


def should_retry(error: ProviderError, settings: RetrySettings) -> bool:
    """Whether another attempt may succeed."""
    if isinstance(error, BlockedError):
        return False
    if error.status is not None:
        return error.status not in NEVER_RETRIED and error.status in settings.retryable_status_codes
    return error.retryable


def backoff_seconds(
    error: ProviderError,
    attempt: int,
    settings: RetrySettings,
    rng: Callable[[], float] = random.random,
) -> float:
    """How long to wait before attempt ``attempt + 1``."""
    cap = settings.max_delay_ms / 1000
    if error.retry_after is not None:
        return min(error.retry_after, cap)
    ceiling = settings.initial_delay_ms / 1000 * settings.backoff_factor ** (attempt - 1)
    return rng() * min(cap, ceiling)


async def with_retries(
    call: Callable[[int], Awaitable[T]],
    settings: RetrySettings | None,
    timeout: float,
    *,
    sleep: Sleep = asyncio.sleep,
    rng: Callable[[], float] = random.random,
) -> tuple[T, int]:
    """Run ``call(attempt)`` under a per-attempt timeout until it succeeds or may not retry.

    Returns the result and the number of attempts; a final failure carries ``attempts``.
    """
    attempt = 0
    while True:
        attempt += 1
        try:
            async with asyncio.timeout(timeout):
                return await call(attempt), attempt
        except TimeoutError:
            error: ProviderError = ProviderTimeout(f"no answer within {timeout:g} s")
        except ProviderError as exc:
            error = exc
        if settings is None or attempt > settings.max_retries or not should_retry(error, settings):
            error.attempts = attempt
            raise error
        delay = backoff_seconds(error, attempt, settings, rng)
        logger.info(
            "%sretrying in %.2f s (attempt %d of %d): %s",
            logs.context(),
            delay,
            attempt + 1,
            settings.max_retries + 1,
            error,
        )
        await sleep(delay)
