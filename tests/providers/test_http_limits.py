"""A hostile or misconfigured server: answers too large to hold, redirects to another origin,
URLs with credentials, and errors that must name the URL (never a secret) with a hint."""

from __future__ import annotations

import asyncio
import resource
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalwright.errors import ProviderError, ResponseTooLarge
from evalwright.evalfile import LoadedCase
from evalwright.providers.base import ProviderContext
from evalwright.providers.http import HttpPool
from evalwright.providers.registry import create_provider
from evalwright.targets.models import OpenAITarget
from evalwright.testing import FakeServer, Fault, Flood, Text
from tests.conftest import ProjectDir, run_cli
from tests.e2e.harness import E2E, start
from tests.providers.wire_cases import APIS, ask, case_request, chat_provider

MIB = 1024 * 1024


@pytest.fixture
def e2e(project: ProjectDir) -> Iterator[E2E]:
    """A project wired to a fake server in a thread, for runs through the command line."""
    yield from start(project)


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> LoadedCase:
    root = tmp_path_factory.mktemp("limits")
    (root / ".git").mkdir()
    (root / "e.yaml").write_text(
        "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n", encoding="utf-8"
    )
    from evalwright.evalfile import load_eval_file

    return load_eval_file(root / "e.yaml").cases[0]


async def _ask(server: FakeServer, case: LoadedCase, api: str = "openai", **extra: Any) -> Any:
    pool = HttpPool()
    if "openai_base_url" in extra:  # exactly this base_url (chat_provider appends /v1)
        target = OpenAITarget(
            name="t",
            provider="openai",
            model="m",
            api_key="k" * 8,
            base_url=extra.pop("openai_base_url"),
        )
        provider: Any = create_provider(target, ProviderContext(Path.cwd(), pool))
    else:
        provider = chat_provider(api, pool, base_url=server.url, **extra)
    try:
        return await ask(provider, case_request(provider, case))
    finally:
        await pool.aclose()


def _ask_with(case: LoadedCase, *actions: Any, **extra: Any) -> tuple[Any, FakeServer]:
    async def go() -> tuple[Any, FakeServer]:
        async with FakeServer() as server:
            server.enqueue(*actions)
            try:
                return await _ask(server, case, **extra), server
            except ProviderError as exc:
                return exc, server

    return asyncio.run(go())


@pytest.mark.parametrize("declare_length", [False, True], ids=["chunked", "content-length"])
def test_a_huge_answer_is_read_no_further_than_the_limit(
    case: LoadedCase, declare_length: bool
) -> None:
    flood = Flood(3 * 1024 * MIB, declare_length=declare_length)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    error, _ = _ask_with(case, flood, max_response_bytes=2 * MIB)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert isinstance(error, ResponseTooLarge)
    assert error.error_type == "response_too_large"
    assert not error.retryable
    assert "max_response_bytes (2097152)" in str(error)
    assert flood.sent[0] < 512 * MIB, "the client stopped reading early"
    assert grown_kib < 200 * 1024, "the body was not held in memory"


@pytest.mark.parametrize("api", APIS)
def test_every_chat_api_has_the_limit(case: LoadedCase, api: str) -> None:
    error, _ = _ask_with(case, Flood(5 * MIB), api=api, max_response_bytes=MIB)
    assert isinstance(error, ResponseTooLarge)


def test_an_answer_within_the_limit_is_read_whole(case: LoadedCase) -> None:
    response, _ = _ask_with(case, Text("y" * 100_000), max_response_bytes=MIB)
    assert response.text == "y" * 100_000


def test_a_redirect_to_another_origin_is_not_followed(case: LoadedCase) -> None:
    async def go() -> tuple[ProviderError, int]:
        async with FakeServer() as elsewhere, FakeServer() as server:
            location = f"{elsewhere.url}/v1/chat/completions?token=abc"
            server.enqueue(Fault(307, body=b"", headers={"location": location}))
            with pytest.raises(ProviderError) as caught:
                await _ask(server, case)
            return caught.value, len(elsewhere.requests)

    error, received_elsewhere = asyncio.run(go())
    assert received_elsewhere == 0, "the POST and its key never reach another origin"
    assert "HTTP 307" in str(error)
    assert "redirects to http://127.0.0.1:" in str(error)
    assert "token=abc" not in str(error)


@pytest.mark.parametrize("status", [301, 302, 303])
def test_a_redirect_that_changes_the_method_is_an_error(case: LoadedCase, status: int) -> None:
    error, server = _ask_with(
        case, Fault(status, body=b"", headers={"location": "/v1/elsewhere"}), Text("no")
    )
    assert isinstance(error, ProviderError)
    assert f"HTTP {status}" in str(error)
    assert len(server.requests) == 1


def test_a_same_origin_307_is_followed_with_the_same_body(case: LoadedCase) -> None:
    response, server = _ask_with(
        case,
        Fault(307, body=b"", headers={"location": "/v1/chat/completions?moved=1"}),
        Text("moved here"),
    )
    assert response.text == "moved here"
    first, second = server.requests
    assert second.json == first.json
    assert second.header("authorization") == first.header("authorization")


def test_a_connection_error_names_the_url_in_plain_words(case: LoadedCase) -> None:
    async def go() -> ProviderError:
        with pytest.raises(ProviderError) as caught:
            await _ask(FakeServer(), case, openai_base_url="http://127.0.0.1:1/v1")
        return caught.value

    message = str(asyncio.run(go()))
    assert message.startswith("cannot connect to 127.0.0.1:1: ")
    assert "(http://127.0.0.1:1/v1/chat/completions)" in message
    assert "ssl" not in message


def test_a_404_from_a_base_url_without_v1_hints_at_it(case: LoadedCase) -> None:
    async def go() -> ProviderError:
        async with FakeServer() as server:
            server.enqueue(Fault(404))  # what a real server without that path answers
            with pytest.raises(ProviderError) as caught:
                await _ask(server, case, openai_base_url=server.url)
            return caught.value

    message = str(asyncio.run(go()))
    assert message.startswith("HTTP 404 from http://127.0.0.1:")
    assert "/chat/completions: " in message
    assert "(hint: OpenAI-compatible servers usually answer under /v1: try base_url: " in message


TARGETS = """targets:
  - name: t
    provider: openai
    model: m
    base_url: {url}
"""


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://user:pass@127.0.0.1:9/v1", "a URL must not hold a user name or password"),
        ("localhost:8080/v1", "expected an http:// or https:// URL with a host"),
        ("http://127.0.0.1:9/v1?key=x", "a base URL must not have a query string"),
    ],
)
def test_a_bad_base_url_is_a_located_config_error(
    project: ProjectDir, url: str, message: str
) -> None:
    targets = project.write(".evalwright/targets.yaml", TARGETS.format(url=url))
    result = run_cli("validate", targets)
    assert result.code == 1
    assert f"targets.yaml:5:15: error: targets[0].base_url: {message}" in result.out
    assert "user:pass@" not in result.out.replace("(user:pass@)", "")


def test_credentials_from_a_variable_are_a_config_error_at_run_time(e2e: E2E) -> None:
    e2e.project.write(".evalwright/targets.yaml", TARGETS.format(url="${{ BASE }}"))
    e2e.project.write("e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    e2e.env["BASE"] = "http://user:hunter2hunter2@127.0.0.1:9/v1"
    result = e2e.run("eval", "e.yaml", "--target", "t", "--out", "r.jsonl")
    assert result.code == 2
    assert "target 't': base_url: a URL must not hold a user name or password" in result.err
    assert "hunter2" not in result.err
    assert "Traceback" not in result.err
    assert "internal error" not in result.err


def test_a_huge_answer_is_an_error_row_through_the_command_line(e2e: E2E) -> None:
    e2e.project.write(
        ".evalwright/targets.yaml",
        TARGETS.format(url=e2e.server.url + "/v1") + "    max_response_bytes: 1048576\n",
    )
    e2e.project.write("e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    flood = Flood(2 * 1024 * MIB)
    e2e.server.enqueue(flood)
    result = e2e.run("eval", "e.yaml", "--target", "t", "--out", "r.jsonl")
    assert result.code == 1, result.err
    (row,) = e2e.rows("r.jsonl")
    assert row["error"]["type"] == "response_too_large"
    assert row["attempts"] == 1, "never retried"
    assert row["candidate_answer"] == ""
    assert flood.sent[0] < 512 * MIB


@pytest.mark.parametrize("status", [200, 500])
def test_a_reply_too_deep_for_python_is_a_provider_error(case: LoadedCase, status: int) -> None:
    """Found by fuzzing: Python's JSON parser raises RecursionError on deep input."""
    deep = b"[" * 100_000 + b"]" * 100_000
    error, _ = _ask_with(case, Fault(status, body=deep), Fault(status, body=deep))
    assert isinstance(error, ProviderError)
    assert "not valid JSON" in str(error) if status == 200 else f"HTTP {status}" in str(error)
