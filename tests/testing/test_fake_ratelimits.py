"""The fake server's rate limits: requests- and tokens-per-minute buckets announced in each
API's headers, and the 429 storm (docs/targets.md#rate-limits)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import openai
import pytest

from evalwright.testing import FakeServer, RateLimits, Storm, Text
from evalwright.testing.ratelimits import duration_text

CHAT = "/v1/chat/completions"
BODY: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def _post(
    server: FakeServer, path: str = CHAT, body: dict[str, Any] = BODY
) -> tuple[int, dict[str, str], Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(server.url + path, json=body) as response,
    ):
        headers = {k.lower(): v for k, v in response.headers.items()}
        return response.status, headers, json.loads(await response.read())


def _posts(limits: RateLimits | Storm, count: int, **kwargs: Any) -> list[Any]:
    async def scenario() -> list[Any]:
        async with FakeServer() as server:
            server.limits = limits
            return [await _post(server, **kwargs) for _ in range(count)]

    return asyncio.run(scenario())


def test_a_requests_bucket_lets_its_burst_through_then_refuses_until_it_refills() -> None:
    clock = Clock()
    # 120 a minute with a one-second burst: 2 at once, then one every half second.
    limits = RateLimits(requests_per_minute=120, clock=clock)

    async def scenario() -> list[tuple[int, dict[str, str], Any]]:
        async with FakeServer() as server:
            server.limits = limits
            server.enqueue(Text("first"), Text("second"), Text("third"))
            answers = [await _post(server) for _ in range(3)]
            clock.now += 0.5
            answers.append(await _post(server))
            assert server.pending == 0, "a refused request takes no queued answer"
            return answers

    first, second, refused, later = asyncio.run(scenario())
    assert [first[0], second[0], refused[0], later[0]] == [200, 200, 429, 200]
    assert later[2]["choices"][0]["message"]["content"] == "third"
    assert first[1]["x-ratelimit-limit-requests"] == "120"
    assert [a[1]["x-ratelimit-remaining-requests"] for a in (first, second, refused, later)] == [
        "1",
        "0",
        "0",
        "0",
    ]
    assert first[1]["x-ratelimit-reset-requests"] == "500ms"
    assert refused[1]["retry-after"] == "1"  # 0.5 s, in whole seconds rounded up
    assert refused[2]["error"]["code"] == "rate_limit_exceeded"
    assert (limits.admitted, limits.refused) == (3, 1)


def test_a_tokens_bucket_counts_the_input_and_the_output_asked_for() -> None:
    clock = Clock()
    limits = RateLimits(tokens_per_minute=6000, clock=clock)  # 100 tokens at once
    big = {**BODY, "max_completion_tokens": 60}
    statuses = [answer[0] for answer in _posts(limits, 2, body=big)]
    assert statuses == [200, 429]
    assert limits.refused == 1
    small = _posts(RateLimits(tokens_per_minute=6000, clock=clock), 4)
    assert [answer[0] for answer in small] == [200] * 4
    assert int(small[0][1]["x-ratelimit-remaining-tokens"]) < 100


def test_anthropic_and_gemini_announce_limits_in_their_own_ways() -> None:
    clock = Clock()
    anthropic_body = {"model": "m", "max_tokens": 5, "messages": BODY["messages"]}
    ok, refused = _posts(
        RateLimits(requests_per_minute=60, clock=clock), 2, path="/v1/messages",
        body=anthropic_body,
    )  # fmt: skip
    assert ok[1]["anthropic-ratelimit-requests-limit"] == "60"
    assert ok[1]["anthropic-ratelimit-requests-remaining"] == "0"
    assert ok[1]["anthropic-ratelimit-requests-reset"].endswith("Z")
    assert "x-ratelimit-limit-requests" not in ok[1]
    assert (refused[0], refused[2]["error"]["type"]) == (429, "rate_limit_error")
    assert refused[1]["retry-after"] == "1"

    gemini = "/v1beta/models/g:generateContent"
    contents = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    ok, refused = _posts(
        RateLimits(requests_per_minute=60, clock=clock), 2, path=gemini, body=contents
    )
    assert not any(name.startswith("x-ratelimit") for name in ok[1])
    assert "retry-after" not in refused[1]
    error = refused[2]["error"]
    assert (error["code"], error["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert error["details"][0]["@type"] == "type.googleapis.com/google.rpc.RetryInfo"
    assert error["details"][0]["retryDelay"] == "1.000s"


def test_the_openai_sdk_reads_a_refusal_as_its_rate_limit_error() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.limits = RateLimits(requests_per_minute=60, clock=Clock())
            client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
            async with client:
                await client.chat.completions.create(model="m", messages=BODY["messages"])
                with pytest.raises(openai.RateLimitError) as refused:
                    await client.chat.completions.create(model="m", messages=BODY["messages"])
            assert refused.value.response.headers["x-ratelimit-remaining-requests"] == "0"

    asyncio.run(scenario())


@pytest.mark.parametrize("retry_after", [1, 0, None])
def test_a_storm_refuses_four_in_five_while_it_lasts(retry_after: float | None) -> None:
    clock = Clock()
    storm = Storm(share=0.8, seconds=20, retry_after=retry_after, clock=clock)

    async def scenario() -> tuple[list[int], list[str | None], list[int]]:
        async with FakeServer() as server:
            server.limits = storm
            during = [await _post(server) for _ in range(10)]
            clock.now += 20
            after = [(await _post(server))[0] for _ in range(5)]
        return [a[0] for a in during], [a[1].get("retry-after") for a in during], after

    during, retry_afters, after = asyncio.run(scenario())
    assert during.count(429) == 8
    assert after == [200] * 5
    expected = None if retry_after is None else str(retry_after)
    assert {value for value, status in zip(retry_afters, during, strict=True) if status == 429} == {
        expected
    }
    assert (storm.refused, storm.admitted, storm.over) == (8, 7, True)


def test_reset_durations_are_written_as_openai_writes_them() -> None:
    assert [duration_text(s) for s in (0.02, 0.5, 1, 1.5, 59.25, 60, 90.5)] == [
        "20ms",
        "500ms",
        "1s",
        "1.5s",
        "59.25s",
        "1m0s",
        "1m30.5s",
    ]
