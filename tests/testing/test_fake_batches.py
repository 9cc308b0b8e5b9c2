"""The fake server's OpenAI Batch API, driven by the official SDK and checked against the
OpenAPI document: upload, create, status, results, cancel, failures and expiry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
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


def _anthropic(server: FakeServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="sk-ant-test", base_url=server.url, max_retries=0)


def _params(text: str) -> dict[str, Any]:
    return {
        "model": "claude-test",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": text}],
    }


def test_an_anthropic_message_batch_answers_as_the_live_server_would(server: FakeServer) -> None:
    client = _anthropic(server)
    server.enqueue(Text("first"), Fault(529))
    requests: Any = [{"custom_id": c, "params": _params(c)} for c in ("a", "b", "c")]
    created = client.messages.batches.create(requests=requests)
    assert created.processing_status == "in_progress"
    assert created.results_url is None
    ended = client.messages.batches.retrieve(created.id)
    assert ended.processing_status == "ended"
    counts = ended.request_counts
    assert (counts.succeeded, counts.errored, counts.processing) == (2, 1, 0)
    results = {r.custom_id: r.result for r in client.messages.batches.results(created.id)}
    assert results["a"].type == "succeeded"
    assert results["a"].message.content[0].type == "text"
    assert results["a"].message.content[0].text == "first"
    assert results["b"].type == "errored"
    assert results["b"].error.error.type == "overloaded_error"
    assert results["c"].type == "succeeded"


def test_an_anthropic_batch_past_its_window_expires_the_rest(server: FakeServer) -> None:
    client = _anthropic(server)
    server.batch_expire_after = 1
    requests: Any = [{"custom_id": c, "params": _params(c)} for c in ("a", "b")]
    batch_id = client.messages.batches.create(requests=requests).id
    assert client.messages.batches.retrieve(batch_id).request_counts.expired == 1
    results = {r.custom_id: r.result.type for r in client.messages.batches.results(batch_id)}
    assert results == {"a": "succeeded", "b": "expired"}


def test_a_cancelled_anthropic_batch_runs_nothing(server: FakeServer) -> None:
    client = _anthropic(server)
    server.batch_delay = 30
    requests: Any = [{"custom_id": "a", "params": _params("a")}]
    batch_id = client.messages.batches.create(requests=requests).id
    assert client.messages.batches.cancel(batch_id).processing_status == "canceling"
    assert client.messages.batches.retrieve(batch_id).request_counts.canceled == 1
    with pytest.raises(anthropic.BadRequestError):
        client.messages.batches.create(requests=[])


def test_azure_paths_serve_the_same_batches(server: FakeServer) -> None:
    client = openai.AzureOpenAI(
        api_key="k", azure_endpoint=server.url, api_version="2024-10-21", max_retries=0
    )
    line = {**_line("a", "x"), "url": "/chat/completions"}
    data = (json.dumps(line) + "\n").encode()
    uploaded = client.files.create(file=("in.jsonl", data), purpose="batch")
    # Azure names the endpoint without /v1 (its docs), which the SDK's literal type omits.
    endpoint: Any = "/chat/completions"
    batch = client.batches.create(
        input_file_id=uploaded.id, endpoint=endpoint, completion_window="24h"
    )
    done = client.batches.retrieve(batch.id)
    assert done.status == "completed"
    assert "/openai/batches" in server.requests[-1].path
    assert list(_results(client, done.output_file_id)) == ["a"]


def _genai(server: FakeServer) -> Any:
    from google import genai

    options: Any = {"base_url": server.url, "api_version": "v1beta"}
    return genai.Client(api_key="gem-test", http_options=options)


def test_a_gemini_batch_answers_inline_as_the_live_server_would(server: FakeServer) -> None:
    client = _genai(server)
    server.enqueue(Text("first"), Fault(429))
    src: Any = [
        {"contents": [{"role": "user", "parts": [{"text": t}]}]} for t in ("one", "two", "three")
    ]
    job = client.batches.create(model="gemini-test", src=src)
    assert job.name.startswith("batches/")
    done = client.batches.get(name=job.name)
    assert done.state.name == "JOB_STATE_SUCCEEDED"
    answers = done.dest.inlined_responses
    assert answers[0].response.text == "first"
    assert answers[1].error is not None
    assert answers[2].response.text == "fake answer"


def test_a_gemini_batch_past_its_window_expires(server: FakeServer) -> None:
    client = _genai(server)
    server.batch_expire_after = 0
    src: Any = [{"contents": [{"role": "user", "parts": [{"text": "one"}]}]}]
    job = client.batches.create(model="gemini-test", src=src)
    assert client.batches.get(name=job.name).state.name == "JOB_STATE_EXPIRED"


def test_openai_batches_are_listed_newest_first_a_page_at_a_time(server: FakeServer) -> None:
    client = _client(server)
    server.batch_delay = 30
    ids = [_submit(client, [_line("a", str(n))]) for n in range(3)]
    tagged = client.batches.create(
        input_file_id=client.batches.retrieve(ids[0]).input_file_id,
        endpoint="/v1/chat/completions",
        completion_window="24h",
        metadata={"evalwright_submission": "tag1"},
    )
    first = client.batches.list(limit=2)
    assert [b.id for b in first.data] == [tagged.id, ids[2]]
    assert first.data[0].metadata == {"evalwright_submission": "tag1"}
    assert first.has_more
    assert [b.id for b in client.batches.list(limit=2)] == [tagged.id, *reversed(ids)]
    raw = client.batches.with_raw_response.list(limit=100, after=ids[1]).http_response.json()
    assert [b["id"] for b in raw["data"]] == [ids[0]]
    assert raw["has_more"] is False
    openapi_validator("ListBatchesResponse").validate(raw)
    with pytest.raises(openai.BadRequestError):
        client.batches.create(
            input_file_id=tagged.input_file_id,
            endpoint="/v1/chat/completions",
            completion_window="24h",
            metadata={"k": "v" * 513},
        )


def test_anthropic_batches_are_listed_newest_first_a_page_at_a_time(server: FakeServer) -> None:
    client = _anthropic(server)
    server.batch_delay = 30
    requests: Any = [{"custom_id": "tag-r0", "params": _params("a")}]
    ids = [client.messages.batches.create(requests=requests).id for _ in range(3)]
    page = client.messages.batches.list(limit=2)
    assert [b.id for b in page.data] == [ids[2], ids[1]]
    assert page.has_more
    assert page.data[0].request_counts.processing == 1
    assert [b.id for b in client.messages.batches.list(limit=2)] == list(reversed(ids))
    older = client.messages.batches.list(limit=2, before_id=ids[0])
    assert [b.id for b in older.data] == [ids[2], ids[1]]


def test_gemini_batches_are_listed_with_their_display_names(server: FakeServer) -> None:
    client = _genai(server)
    server.batch_delay = 30
    src: Any = [{"contents": [{"role": "user", "parts": [{"text": "one"}]}]}]
    names = [
        client.batches.create(
            model="gemini-test", src=src, config={"display_name": f"run-{n}"}
        ).name
        for n in range(3)
    ]
    listed = list(client.batches.list(config={"page_size": 2}))
    assert [job.name for job in listed] == list(reversed(names))
    assert [job.display_name for job in listed] == ["run-2", "run-1", "run-0"]
    assert listed[0].state.name == "JOB_STATE_RUNNING"
