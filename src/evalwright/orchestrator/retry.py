"""The one retry and timeout policy: exponential backoff with full jitter per target.

Retried: the target's retryable status codes, dropped connections, timeouts, and success
responses whose body does not parse. Never retried: 400, 401, 403, 404, blocked prompts, and
a 500 whose message says the request itself is invalid (:data:`INVALID_REQUEST`).
``retry-after-ms`` and ``Retry-After`` are honoured, capped at ``max_delay_ms``
(docs/targets.md#retries-and-timeouts). A 429 of a rate limit is retried apart: for as long
as ``max_rate_limit_wait_ms`` allows, not counted in ``max_retries``, and never at once
(docs/targets.md#rate-limits).
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from evalwright import logs
from evalwright.errors import BlockedError, ProviderError, ProviderTimeout
from evalwright.targets.models import RetrySettings

if TYPE_CHECKING:
    from evalwright.orchestrator.limits import EndpointLimit

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
RATE_LIMIT_FLOOR = 0.5
"""Seconds a 429 that says ``Retry-After: 0``, or nothing, still waits: at least this, at most
twice this (jitter), never more than ``max_delay_ms``."""
# OpenAI answers 429 to a key whose credit has run out: no wait cures that.
_NO_QUOTA = re.compile(r"insufficient_quota|exceeded your current quota", re.IGNORECASE)
Clock = Callable[[], float]


def rate_limited(error: ProviderError) -> bool:
    """Whether ``error`` is a rate limit's 429 (OpenAI's ``insufficient_quota`` is not)."""
    if error.status != 429:
        return False
    message = error.server_message
    return message is None or not _NO_QUOTA.search(message)


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
    """How long to wait before attempt ``attempt + 1``: a rate limit's 429 that says wait 0
    s, or nothing, waits :data:`RATE_LIMIT_FLOOR` or more."""
    cap = settings.max_delay_ms / 1000
    limited = rate_limited(error)
    if error.retry_after is not None and (error.retry_after > 0 or not limited):
        return min(error.retry_after, cap)
    ceiling = settings.initial_delay_ms / 1000 * settings.backoff_factor ** (attempt - 1)
    delay = rng() * min(cap, ceiling)
    if limited:
        delay = max(delay, min(cap, RATE_LIMIT_FLOOR * (1 + rng())))
    return delay


async def with_retries(
    call: Callable[[int], Awaitable[T]],
    settings: RetrySettings | None,
    timeout: float,
    *,
    sleep: Sleep = asyncio.sleep,
    rng: Callable[[], float] = random.random,
    gate: EndpointLimit | None = None,
    clock: Clock = time.monotonic,
) -> tuple[T, int]:
    """Run ``call(attempt)`` under a per-attempt timeout until it succeeds or may not retry;
    each attempt first passes ``gate``, the endpoint's limit (outside the timeout).

    Returns the result and the number of attempts; a final failure carries ``attempts``.
    """
    attempt = 0
    retries = _Retries(clock)
    while True:
        attempt += 1
        outcome = await _attempt(call, attempt, timeout, gate)
        if not isinstance(outcome, ProviderError):
            return outcome, attempt
        delay = None if settings is None else retries.delay(outcome, settings, rng)
        if settings is None or delay is None:
            raise _given_up(outcome, attempt, retries.note)
        limited = rate_limited(outcome)
        if gate is not None and limited:
            gate.hold(outcome, delay)
        of = ", rate limited" if limited else f" of {settings.max_retries + 1}"
        logger.info(
            "%sretrying in %.2f s (attempt %d%s): %s",
            logs.context(),
            delay,
            attempt + 1,
            of,
            outcome,
        )
        await sleep(delay)


async def _attempt(
    call: Callable[[int], Awaitable[T]], attempt: int, timeout: float, gate: EndpointLimit | None
) -> T | ProviderError:
    """One attempt through ``gate``: its result, or the error it failed with."""
    ticket = None if gate is None else await gate.acquire()
    try:
        async with asyncio.timeout(timeout):
            outcome: T | ProviderError = await call(attempt)
    except TimeoutError:
        outcome = ProviderTimeout(f"no answer within {timeout:g} s")
    except ProviderError as exc:
        outcome = exc
    except BaseException:
        if gate is not None and ticket is not None:
            gate.release(ticket, None)  # cancelled
        raise
    if gate is not None and ticket is not None:
        gate.release(ticket, outcome)
    return outcome


class _Retries:
    """What one request has retried: other failures count against ``max_retries``, a rate
    limit's 429s against ``max_rate_limit_wait_ms`` from the first."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.failures = 0
        self.limited = 0
        self.since: float | None = None
        self.slept = 0.0
        self.note: str | None = None
        """Why the request was not retried, when the rate limit's time ran out."""

    def delay(
        self, error: ProviderError, settings: RetrySettings, rng: Callable[[], float]
    ) -> float | None:
        """The wait before retrying ``error``, or None when it may not be retried."""
        if not should_retry(error, settings):
            return None
        if not rate_limited(error):
            self.failures += 1
            if self.failures > settings.max_retries:
                return None
            return backoff_seconds(error, self.failures, settings, rng)
        self.limited += 1
        delay = backoff_seconds(error, self.limited, settings, rng)
        now = self.clock()
        self.since = now if self.since is None else self.since
        # Slept time counts too, for a sleep that does not pass (the tests').
        if max(now - self.since, self.slept) + delay > settings.max_rate_limit_wait_ms / 1000:
            limit = settings.max_rate_limit_wait_ms / 1000
            self.note = f"still rate limited: 429 answers are retried for {limit:g} s at most"
            return None
        self.slept += delay
        return delay


def _given_up(error: ProviderError, attempt: int, note: str | None = None) -> ProviderError:
    """The final error of a request: its attempts counted, a note on why it was not retried."""
    error.attempts = attempt
    if not error.sent:  # this attempt never went out
        error.attempts = attempt - 1
    if says_request_invalid(error):
        note = NOT_RETRIED_NOTE
    if note is not None:
        error.args = (f"{error} ({note})",)
    return error
