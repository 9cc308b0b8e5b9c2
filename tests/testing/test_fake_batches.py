"""The fake server's OpenAI Batch API, driven by the official SDK and checked against the
OpenAPI document: upload, create, status, results, cancel, failures and expiry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletion

from evalwright.testing import FakeServer, Fault, Text
from tests.providers.test_oracles import openapi_validator


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer.in_thread() as fake:
        yield fake


def _client(server: FakeServer) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test", base_url=f"{server.url}/v1", max_retries=0)


def _line(custom_id: str, text: str) -> dict[str, Any]:
    body = {"model": "gpt-test", "messages": [{"role": "user", "content": text}]}
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body}


def _submit(client: openai.OpenAI, lines: list[dict[str, Any]]) -> str:
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    uploaded = client.files.create(file=("in.jsonl", data), purpose="batch")
    assert uploaded.purpose == "batch"
    assert uploaded.bytes == len(data)
    batch = client.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    assert batch.status == "validating"
    return batch.id


def _results(client: openai.OpenAI, file_id: str | None) -> dict[str, Any]:
    if file_id is None:
        return {}
    text = client.files.content(file_id).text
    return {row["custom_id"]: row for row in map(json.loads, text.splitlines())}


def test_a_batch_answers_every_line_as_the_live_server_would(server: FakeServer) -> None:
    client = _client(server)
    server.enqueue(Text("first"))
    batch_id = _submit(client, [_line("a", "one"), _line("b", "two")])
    batch = client.batches.retrieve(batch_id)
    assert batch.status == "completed"
    assert batch.request_counts is not None
    assert (batch.request_counts.total, batch.request_counts.completed) == (2, 2)
    openapi_validator("Batch").validate(batch.model_dump(mode="json", exclude_none=True))
    out = _results(client, batch.output_file_id)
    assert sorted(out) == ["a", "b"]
    assert batch.error_file_id is None
    answer = out["a"]["response"]["body"]
    ChatCompletion.model_validate(answer)  # the SDK's type: the live answer's shape
    assert answer["choices"][0]["message"]["content"] == "first"
    assert out["b"]["response"]["body"]["choices"][0]["message"]["content"] == "fake answer"
    assert out["b"]["response"]["status_code"] == 200
    assert out["b"]["error"] is None


def test_a_batch_stays_in_progress_for_the_delay_then_completes(server: FakeServer) -> None:
    client = _client(server)
    server.batch_delay = 30
    batch_id = _submit(client, [_line("a", "one")])
    assert client.batches.retrieve(batch_id).status == "in_progress"
    assert client.batches.retrieve(batch_id).status == "in_progress"
    server.batch_delay = 0
    assert client.batches.retrieve(batch_id).status == "completed"


def test_failed_requests_go_to_the_error_file(server: FakeServer) -> None:
    client = _client(server)
    server.enqueue(Fault(500), Text("ok"))
    batch = client.batches.retrieve(_submit(client, [_line("a", "x"), _line("b", "y")]))
    assert batch.request_counts is not None
    assert (batch.request_counts.completed, batch.request_counts.failed) == (1, 1)
    errors = _results(client, batch.error_file_id)
    assert errors["a"]["response"]["status_code"] == 500
    assert "error" in errors["a"]["response"]["body"]
    assert list(_results(client, batch.output_file_id)) == ["b"]


def test_an_expired_batch_reports_its_unfinished_lines(server: FakeServer) -> None:
    client = _client(server)
    server.batch_expire_after = 1
    batch = client.batches.retrieve(_submit(client, [_line("a", "x"), _line("b", "y")]))
    assert batch.status == "expired"
    errors = _results(client, batch.error_file_id)
    assert errors["b"]["error"]["code"] == "batch_expired"
    assert errors["b"]["response"] is None
    assert list(_results(client, batch.output_file_id)) == ["a"]


def test_a_cancelled_batch_answers_nothing(server: FakeServer) -> None:
    client = _client(server)
    server.batch_delay = 30
    batch_id = _submit(client, [_line("a", "x")])
    assert client.batches.cancel(batch_id).status == "cancelling"
    batch = client.batches.retrieve(batch_id)
    assert batch.status == "cancelled"
    assert batch.output_file_id is None
    assert _results(client, batch.error_file_id)["a"]["error"]["code"] == "batch_cancelled"


def test_a_bad_input_file_fails_the_batch(server: FakeServer) -> None:
    client = _client(server)
    bad: dict[str, Any] = {"custom_id": "a", "method": "POST", "url": "/v1/embeddings", "body": {}}
    batch = client.batches.retrieve(_submit(client, [bad]))
    assert batch.status == "failed"
    assert batch.errors is not None
    assert batch.errors.data
    with pytest.raises(openai.NotFoundError):
        client.batches.retrieve("batch_missing")
