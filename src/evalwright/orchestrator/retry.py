"""The one retry and timeout policy: exponential backoff with full jitter per target.

Retried: the target's retryable status codes, dropped connections, timeouts, and success
responses whose body does not parse. Never retried: 400, 401, 403, 404, blocked prompts, and
a 500 whose message says the request itself is invalid (:data:`INVALID_REQUEST`).
``retry-after-ms`` and ``Retry-After`` are honoured, capped at ``max_delay_ms``
(docs/targets.md#retries-and-timeouts).
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections.abc import Awaitable, Callable
from typing import TypeVar

from evalwright import logs
from evalwright.errors import BlockedError, ProviderError, ProviderTimeout
from evalwright.targets.models import RetrySettings

logger = logging.getLogger(__name__)

T = TypeVar("T")
NEVER_RETRIED = frozenset({400, 401, 403, 404})
Sleep = Callable[[float], Awaitable[None]]

# Local servers answer 500 for requests they can never serve: llama.cpp when the chat template
# cannot render the messages or a grammar does not parse, vLLM for a failed validation,
# llama-cpp-python for an unsupported schema. The same request fails the same way, so four
# attempts only cost time. Matched on the body's message alone (never the URL), as words.
INVALID_REQUEST = re.compile(
    r"\b(?:template|validation|invalid[ _]request|pars(?:e|ing)|unsupported|not supported)\b",
    re.IGNORECASE,
)
"""Words of a 500's message that say the request itself is invalid (not retried)."""
NOT_RETRIED_NOTE = "not retried: the server says the request itself is invalid"


def says_request_invalid(error: ProviderError) -> bool:
    """Whether a 500 answer's own message says the request itself is invalid."""
    message = error.server_message
    return error.status == 500 and message is not None and bool(INVALID_REQUEST.search(message))


def should_retry(error: ProviderError, settings: RetrySettings) -> bool:
    """Whether another attempt may succeed."""
    if isinstance(error, BlockedError):
        return False
    if says_request_invalid(error):
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
            if not error.sent:  # this attempt never went out
                error.attempts = attempt - 1
            if says_request_invalid(error):
                error.args = (f"{error} ({NOT_RETRIED_NOTE})",)
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
