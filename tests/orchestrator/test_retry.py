"""The retry and timeout policy, against the fake server's injected faults."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from evalwright.errors import BlockedError, ProviderError, ProviderTimeout
from evalwright.orchestrator.retry import (
    RATE_LIMIT_FLOOR,
    backoff_seconds,
    rate_limited,
    should_retry,
    with_retries,
)
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest, ProviderResponse
from evalwright.providers.http import HttpPool
from evalwright.targets.models import RetrySettings
from evalwright.testing import Blocked, Drop, FakeServer, Fault, Malformed, Stall, Text
from tests.providers.wire_cases import ask, chat_provider

REQUEST = ProviderRequest(
    case_id="c",
    messages=(ChatMessage(role="system", content="s"), ChatMessage(role="user", content="hi")),
)
FAST = RetrySettings(max_retries=3, initial_delay_ms=100, max_delay_ms=1000, backoff_factor=2)


class Sleeps:
    """A sleep that records each delay and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


async def _run(
    *actions: Any, settings: RetrySettings | None = FAST, timeout: float = 5, api: str = "openai"
) -> tuple[ProviderResponse | ProviderError, int, Sleeps]:
    sleeps = Sleeps()
    async with FakeServer() as server:
        server.enqueue(*actions)
        pool = HttpPool()
        provider = chat_provider(api, pool, base_url=server.url)
        try:
            response, attempts = await with_retries(
                lambda _: ask(provider, REQUEST),
                settings,
                timeout,
                sleep=sleeps,
                rng=lambda: 1.0,
            )
            result: ProviderResponse | ProviderError = response
        except ProviderError as exc:
            result, attempts = exc, exc.attempts
        finally:
            await pool.aclose()
        assert len(server.requests) == attempts
    return result, attempts, sleeps


def test_429_with_retry_after_is_honoured() -> None:
    result, attempts, sleeps = asyncio.run(_run(Fault(429, retry_after=0.7), Text("ok")))
    assert isinstance(result, ProviderResponse)
    assert result.text == "ok"
    assert attempts == 2
    assert sleeps.delays == [0.7]


def test_retry_after_ms_wins_and_is_capped() -> None:
    _, _, sleeps = asyncio.run(_run(Fault(503, retry_after_ms=250, retry_after=9), Text("ok")))
    assert sleeps.delays == [0.25]
    _, _, capped = asyncio.run(_run(Fault(429, retry_after=30), Text("ok")))
    assert capped.delays == [1.0]  # max_delay_ms


def test_server_errors_back_off_exponentially_then_give_up() -> None:
    result, attempts, sleeps = asyncio.run(_run(*[Fault(500)] * 4))
    assert isinstance(result, ProviderError)
    assert result.status == 500
    assert attempts == 4  # the first try and max_retries more
    assert sleeps.delays == [0.1, 0.2, 0.4]  # full jitter with rng() == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_are_never_retried(status: int) -> None:
    always = RetrySettings(retryable_status_codes=[status])
    result, attempts, _ = asyncio.run(_run(Fault(status), settings=always))
    assert isinstance(result, ProviderError)
    assert (result.status, attempts) == (status, 1)


def test_status_codes_come_from_the_target() -> None:
    result, attempts, _ = asyncio.run(
        _run(Fault(503), settings=RetrySettings(retryable_status_codes=[429]))
    )
    assert isinstance(result, ProviderError)
    assert attempts == 1


@pytest.mark.parametrize("fault", [Drop(), Malformed()], ids=["dropped", "malformed"])
def test_dropped_connections_and_unparseable_bodies_are_retried(fault: Any) -> None:
    result, attempts, _ = asyncio.run(_run(fault, Text("recovered")))
    assert isinstance(result, ProviderResponse)
    assert (result.text, attempts) == ("recovered", 2)


def test_a_stalled_request_times_out_and_is_retried() -> None:
    result, attempts, _ = asyncio.run(_run(Stall(), Text("late but here"), timeout=0.3))
    assert isinstance(result, ProviderResponse)
    assert attempts == 2


def test_a_timeout_every_time_is_a_timeout_error() -> None:
    result, attempts, _ = asyncio.run(
        _run(Stall(), Stall(), settings=RetrySettings(max_retries=1), timeout=0.2)
    )
    assert isinstance(result, ProviderTimeout)
    assert result.error_type == "timeout"
    assert attempts == 2


def test_a_blocked_prompt_is_not_retried() -> None:
    result, attempts, _ = asyncio.run(_run(Blocked(), api="gemini"))
    assert isinstance(result, BlockedError)
    assert attempts == 1


def test_no_settings_means_one_attempt() -> None:
    result, attempts, _ = asyncio.run(_run(Fault(500), settings=None))
    assert isinstance(result, ProviderError)
    assert attempts == 1


def test_backoff_is_full_jitter_below_the_cap() -> None:
    error = ProviderError("x", status=500)
    settings = RetrySettings(initial_delay_ms=1000, max_delay_ms=5000, backoff_factor=3)
    assert backoff_seconds(error, 1, settings, lambda: 0.5) == 0.5
    assert backoff_seconds(error, 2, settings, lambda: 1.0) == 3.0
    assert backoff_seconds(error, 5, settings, lambda: 1.0) == 5.0
    assert backoff_seconds(error, 5, settings, lambda: 0.0) == 0.0
    assert should_retry(ProviderError("drop", retryable=True), settings)
    assert not should_retry(ProviderError("bad", status=418), settings)


def test_retry_after_one_second_really_waits_about_a_second() -> None:
    async def go() -> tuple[float, int]:
        async with FakeServer() as server:
            server.enqueue(Fault(429, retry_after=1), Text("ok"))
            pool = HttpPool()
            provider = chat_provider("anthropic", pool, base_url=server.url)
            try:
                _, attempts = await with_retries(lambda _: ask(provider, REQUEST), FAST, 5)
            finally:
                await pool.aclose()
            first, second = server.requests
            return second.received_at - first.received_at, attempts

    gap, attempts = asyncio.run(go())
    assert attempts == 2
    assert 0.95 <= gap < 1.5


def test_connections_dropped_every_time_surface_as_a_retryable_error() -> None:
    result, attempts, sleeps = asyncio.run(_run(*[Drop()] * 4))
    assert isinstance(result, ProviderError)
    assert result.retryable
    assert attempts == 4
    assert len(sleeps.delays) == 3


def test_429s_are_retried_past_max_retries_and_not_counted_in_them() -> None:
    # Six 429s, then two 500s: the 500s still have max_retries (3) to themselves.
    actions = [*[Fault(429, retry_after=0.7)] * 6, Fault(500), Fault(500), Text("ok")]
    result, attempts, sleeps = asyncio.run(_run(*actions))
    assert isinstance(result, ProviderResponse)
    assert attempts == 9
    assert sleeps.delays == [0.7] * 6 + [0.1, 0.2]


@pytest.mark.parametrize("header", [0, None], ids=["retry-after-0", "no-retry-after"])
def test_a_429_that_says_wait_0_or_nothing_waits_at_least_the_floor(header: int | None) -> None:
    result, _, sleeps = asyncio.run(_run(Fault(429, retry_after=header), Text("ok")))
    assert isinstance(result, ProviderResponse)
    assert sleeps.delays == [2 * RATE_LIMIT_FLOOR]  # rng() == 1: the floor plus as much again
    settings = RetrySettings(max_delay_ms=100)  # a smaller cap wins over the floor
    assert backoff_seconds(ProviderError("x", status=429), 1, settings, lambda: 0.5) == 0.1
    assert backoff_seconds(ProviderError("x", status=503, retry_after=0), 1, FAST) == 0


def test_a_429_is_retried_for_max_rate_limit_wait_ms_at_most() -> None:
    settings = FAST.model_copy(update={"max_rate_limit_wait_ms": 2000})
    result, attempts, sleeps = asyncio.run(
        _run(*[Fault(429, retry_after=0.7)] * 5, settings=settings)
    )
    assert isinstance(result, ProviderError)
    assert attempts == 3  # a third wait of 0.7 s would pass 2 s
    assert sleeps.delays == [0.7, 0.7]
    assert str(result).endswith("(still rate limited: 429 answers are retried for 2 s at most)")


def test_a_429_for_an_exhausted_quota_counts_as_any_failure() -> None:
    quota = {"error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}}
    result, attempts, _ = asyncio.run(_run(*[Fault(429, body=quota)] * 5))
    assert isinstance(result, ProviderError)
    assert attempts == 4  # the first try and max_retries more
    assert not rate_limited(result)
