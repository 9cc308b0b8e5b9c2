"""The fake batch APIs' faults, driven by the official SDKs: a batch listed late, results
lines damaged, and any batch request left unanswered (docs/batch.md#testing-offline)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from evalwright.testing import FakeServer, ReceivedRequest
from tests.testing.test_fake_batches import (
    _anthropic,  # pyright: ignore[reportPrivateUsage]
    _client,  # pyright: ignore[reportPrivateUsage]
    _genai,  # pyright: ignore[reportPrivateUsage]
    _line,  # pyright: ignore[reportPrivateUsage]
    _params,  # pyright: ignore[reportPrivateUsage]
    _submit,  # pyright: ignore[reportPrivateUsage]
)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer.in_thread() as fake:
        yield fake


def _get(url: str) -> bytes:
    """A GET's raw body (the SDKs would parse it)."""
    with urllib.request.urlopen(url, timeout=10) as answer:
        body: bytes = answer.read()
    return body


def _cut(index: int, line: bytes) -> bytes:
    """The second request's line cut off mid-way, the others whole."""
    return line[: len(line) // 2] if index == 1 else line


def test_a_batch_is_listed_only_after_the_lag_but_exists_at_once(server: FakeServer) -> None:
    server.batch_list_lag = 3600
    oa, claude, gem = _client(server), _anthropic(server), _genai(server)
    made = _submit(oa, [_line("a", "x")])
    requests: Any = [{"custom_id": "a", "params": _params("a")}]
    message_batch = claude.messages.batches.create(requests=requests).id
    src: Any = [{"contents": [{"role": "user", "parts": [{"text": "one"}]}]}]
    job = gem.batches.create(model="gemini-test", src=src).name
    assert list(oa.batches.list()) == []
    assert list(claude.messages.batches.list()) == []
    assert list(gem.batches.list()) == []
    # Each exists all along: asked by id, it answers.
    assert oa.batches.retrieve(made).status == "completed"
    assert claude.messages.batches.retrieve(message_batch).processing_status == "ended"
    assert gem.batches.get(name=job).state.name == "JOB_STATE_SUCCEEDED"
    server.batch_list_lag = 0
    assert [b.id for b in oa.batches.list()] == [made]
    assert [b.id for b in claude.messages.batches.list()] == [message_batch]
    assert [b.name for b in gem.batches.list()] == [job]


def test_openai_results_lines_are_served_as_damaged(server: FakeServer) -> None:
    server.batch_damage = _cut
    client = _client(server)
    batch = client.batches.retrieve(_submit(client, [_line(c, c) for c in "abc"]))
    assert batch.output_file_id is not None
    lines = client.files.content(batch.output_file_id).text.splitlines()
    assert json.loads(lines[0])["custom_id"] == "a"
    with pytest.raises(json.JSONDecodeError):
        json.loads(lines[1])
    assert lines[1].startswith('{"id":')
    assert json.loads(lines[2])["custom_id"] == "c"


def test_anthropic_results_lines_are_served_as_damaged(server: FakeServer) -> None:
    server.batch_damage = lambda index, line: b"[" + line + b"]" if index == 0 else line
    client = _anthropic(server)
    requests: Any = [{"custom_id": c, "params": _params(c)} for c in ("a", "b")]
    batch_id = client.messages.batches.create(requests=requests).id
    assert client.messages.batches.retrieve(batch_id).processing_status == "ended"
    raw = _get(f"{server.url}/v1/messages/batches/{batch_id}/results")
    first, second = raw.splitlines()
    assert isinstance(json.loads(first), list)
    assert json.loads(second)["custom_id"] == "b"


def test_gemini_responses_are_served_as_damaged(server: FakeServer) -> None:
    """Gemini's responses are inline in one JSON document: a damaged entry that is not JSON
    is served as a string."""
    server.batch_damage = _cut
    src: Any = [{"contents": [{"role": "user", "parts": [{"text": t}]}]} for t in "abc"]
    client = _genai(server)  # held: the client closes once collected
    job = client.batches.create(model="gemini-test", src=src).name
    raw = json.loads(_get(f"{server.url}/v1beta/{job}"))
    entries = raw["metadata"]["output"]["inlinedResponses"]["inlinedResponses"]
    assert isinstance(entries[1], str)
    assert "response" in entries[0]
    assert "response" in entries[2]


def test_any_batch_request_can_be_dropped_unanswered(server: FakeServer) -> None:
    """A dropped status request still moves the batch on: only its answer is lost."""
    client = _client(server)
    made = _submit(client, [_line("a", "x")])

    def drop_status(request: ReceivedRequest) -> Any:
        return "drop" if request.method == "GET" and request.path.endswith(made) else None

    server.batch_interrupt = drop_status
    with pytest.raises(openai.APIConnectionError):
        client.batches.retrieve(made)
    server.batch_interrupt = None
    assert client.batches.retrieve(made).status == "completed"
    server.batch_interrupt = lambda _: "before"
    quick = anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0, timeout=0.2)
    with pytest.raises(anthropic.APITimeoutError):
        quick.messages.batches.list()
    assert server.requests[-1].path == "/v1/messages/batches"
