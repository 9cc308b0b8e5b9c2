"""What answers say of rate limits reaches the run: the budgets in each API's headers, and
the delay of a 429 in a header or in Gemini's body (docs/targets.md#rate-limits)."""

from __future__ import annotations

import asyncio

import pytest

from evalwright.errors import ProviderError
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest, ProviderResponse
from evalwright.providers.http import HttpPool
from evalwright.providers.ratelimits import (
    Budget,
    Quota,
    duration_seconds,
    read_quota,
    retry_info_delay,
)
from evalwright.testing import FakeServer, RateLimits
from tests.providers.wire_cases import APIS, ask, chat_provider

REQUEST = ProviderRequest(case_id="c", messages=(ChatMessage(role="user", content="hi"),))


def _twice(api: str, limits: RateLimits) -> tuple[ProviderResponse, ProviderError]:
    """One answer and one refusal from a bucket with room for one request."""

    async def scenario() -> tuple[ProviderResponse, ProviderError]:
        async with FakeServer() as server:
            server.limits = limits
            pool = HttpPool()
            provider = chat_provider(api, pool, base_url=server.url)
            try:
                answer = await ask(provider, REQUEST)
                with pytest.raises(ProviderError) as refused:
                    await ask(provider, REQUEST)
            finally:
                await pool.aclose()
        return answer, refused.value

    return asyncio.run(scenario())


@pytest.mark.parametrize("api", APIS)
def test_each_api_s_budgets_and_delay_reach_the_answer_and_the_error(api: str) -> None:
    # A clock that stands still: the bucket refills nothing between the two requests.
    limits = RateLimits(requests_per_minute=60, tokens_per_minute=600_000, clock=lambda: 0.0)
    answer, refused = _twice(api, limits)

    assert refused.status == 429
    assert refused.retry_after == 1.0  # Retry-After, or Gemini's RetryInfo
    if api == "gemini":  # Gemini announces no budget
        assert (answer.quota, refused.quota) == (None, None)
        return
    assert answer.quota is not None
    assert refused.quota is not None
    assert answer.quota.requests == Budget(limit=60, remaining=0)
    assert answer.quota.tokens is not None
    assert answer.quota.tokens.limit == 600_000
    assert 0 < answer.quota.tokens.remaining < 10_000  # a burst of one second
    assert refused.quota.requests == Budget(limit=60, remaining=0)
    assert refused.quota.exhausted(tokens_needed=10)


def test_headers_without_budgets_announce_none() -> None:
    assert read_quota({"content-type": "application/json"}) is None
    assert read_quota({"x-ratelimit-remaining-requests": "many"}) is None
    only_remaining = read_quota({"x-ratelimit-remaining-tokens": "50"})
    assert only_remaining == Quota(requests=None, tokens=Budget(limit=None, remaining=50))
    anthropic_input = read_quota(
        {
            "anthropic-ratelimit-input-tokens-limit": "4000",
            "anthropic-ratelimit-input-tokens-remaining": "10",
        }
    )
    assert anthropic_input == Quota(requests=None, tokens=Budget(limit=4000, remaining=10))
    assert anthropic_input is not None
    assert anthropic_input.exhausted(tokens_needed=20)
    assert not anthropic_input.exhausted(tokens_needed=5)


def test_durations_in_google_s_and_openai_s_forms() -> None:
    cases = {"37s": 37, "1.5s": 1.5, "20ms": 0.02, "6m0s": 360, "1h2m3.5s": 3723.5}
    assert {text: duration_seconds(text) for text in cases} == cases
    assert [duration_seconds(text) for text in ("", "soon", "5", "5x", "-1s")] == [None] * 5


def test_retry_info_is_found_in_a_list_wrapped_error_and_ignored_elsewhere() -> None:
    wrapped = (
        b'[{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": ['
        b'{"@type": "type.googleapis.com/google.rpc.QuotaFailure"},'
        b'{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}]}}]'
    )
    assert retry_info_delay(wrapped) == 37
    assert retry_info_delay(b'{"error": {"message": "RetryInfo"}}') is None
    assert retry_info_delay(b"RetryInfo, not JSON") is None
