"""The four chat providers over real HTTP against the fake server: what the server received
is exactly the recorded wire request, with the right path and credential headers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from evalwright.errors import BlockedError, ProviderError
from evalwright.evalfile import LoadedCase, load_eval_file
from evalwright.providers.http import HttpPool
from evalwright.testing import Blocked, FakeServer, Malformed, Text
from tests.providers.wire_cases import APIS, ask, case_request, chat_provider
from tests.scenarios import SCENARIOS, write_scenarios

AUTH = {
    "openai": ("authorization", "Bearer test-key-123456"),
    "azure": ("api-key", "test-key-123456"),
    "anthropic": ("x-api-key", "test-key-123456"),
    "gemini": ("x-goog-api-key", "test-key-123456"),
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[LoadedCase]:
    root = tmp_path_factory.mktemp("http")
    (root / ".git").mkdir()
    return list(load_eval_file(write_scenarios(root)).cases)


def _url_path(received: Any) -> str:
    query = "&".join(f"{k}={v}" for k, v in received.query.items())
    return received.path + (f"?{query}" if query else "")


async def _deliver_all(api: str, cases: list[LoadedCase]) -> list[tuple[dict[str, Any], Any, str]]:
    async with FakeServer() as server:
        pool = HttpPool()
        provider = chat_provider(api, pool, base_url=server.url)
        results: list[tuple[dict[str, Any], Any, str]] = []
        for case in cases:
            response = await ask(provider, case_request(provider, case))
            wire = response.wire_request.model_dump(mode="json")
            results.append((wire, server.requests[-1], response.text))
        opened = server.connections_opened
        await pool.aclose()
    assert opened == 1, "one pooled connection serves every request"
    return results


@pytest.mark.parametrize("api", APIS)
def test_every_scenario_arrives_exactly_as_recorded(api: str, cases: list[LoadedCase]) -> None:
    results = asyncio.run(_deliver_all(api, cases))
    assert len(results) == len(SCENARIOS)
    header, value = AUTH[api]
    for wire, received, text in results:
        assert received.json == wire["body"]
        assert received.method == "POST"
        assert _url_path(received) == wire["url_path"]
        assert received.header(header) == value
        assert received.header("content-type") == "application/json"
        assert text == "fake answer"
        assert "test-key-123456" not in json.dumps(wire)


async def _one(api: str, cases: list[LoadedCase], *actions: Any) -> Any:
    async with FakeServer() as server:
        server.enqueue(*actions)
        pool = HttpPool()
        provider = chat_provider(api, pool, base_url=server.url)
        case = cases[0]
        try:
            return await ask(provider, case_request(provider, case))
        finally:
            await pool.aclose()


@pytest.mark.parametrize("api", APIS)
def test_reply_text_finish_reason_and_usage(api: str, cases: list[LoadedCase]) -> None:
    response = asyncio.run(_one(api, cases, Text("Four.", input_tokens=12, output_tokens=3)))
    assert response.text == "Four."
    assert (
        response.finish_reason
        == {"openai": "stop", "azure": "stop", "anthropic": "end_turn", "gemini": "STOP"}[api]
    )
    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 3)
    assert response.latency_ms >= 0
    assert response.delivery_notes == ()


@pytest.mark.parametrize("api", APIS)
def test_blocked_prompt_is_a_blocked_error(api: str, cases: list[LoadedCase]) -> None:
    with pytest.raises(BlockedError):
        asyncio.run(_one(api, cases, Blocked()))


@pytest.mark.parametrize("api", APIS)
def test_malformed_body_is_a_retryable_error(api: str, cases: list[LoadedCase]) -> None:
    with pytest.raises(ProviderError) as caught:
        asyncio.run(_one(api, cases, Malformed()))
    assert caught.value.retryable
    assert "not valid JSON" in str(caught.value)


def test_unreachable_server_is_a_retryable_connection_error(cases: list[LoadedCase]) -> None:
    async def go() -> None:
        pool = HttpPool()
        provider = chat_provider("openai", pool, base_url="http://127.0.0.1:1")
        case = cases[0]
        try:
            await ask(provider, case_request(provider, case))
        finally:
            await pool.aclose()

    with pytest.raises(ProviderError) as caught:
        asyncio.run(go())
    assert caught.value.retryable
    assert caught.value.status is None


def test_no_client_setting_comes_from_the_environment(
    cases: list[LoadedCase], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A proxy variable must not divert requests: the pool does not trust the environment."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:1")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:1")
    monkeypatch.setenv("NO_PROXY", "")
    response = asyncio.run(_one("openai", cases, Text("direct")))
    assert response.text == "direct"
