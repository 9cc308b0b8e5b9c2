"""``evalwright eval --batch`` against the fake server's OpenAI Batch API: one batch for the
run, rows as a live run writes them, the cache, retries in follow-up batches, expiry, and
``--resume`` re-attaching to a batch in flight (docs/batch.md)."""

from __future__ import annotations

import gc
import json
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import TypeAdapter

from evalwright.orchestrator.batch.state import state_path
from evalwright.orchestrator.plan import WorkItem
from evalwright.providers.base import PreparedRequest
from evalwright.testing import ApiName, FakeServer, Fault
from tests.conftest import ProjectDir, run_cli
from tests.orchestrator.batch.batching import creations as _creations
from tests.orchestrator.batch.batching import input_lines as _input_lines
from tests.orchestrator.batch.batching import rows as _rows
from tests.orchestrator.batch.batching import stop_batched_run
from tests.orchestrator.batch.batching import submitted as _submitted
from tests.providers.test_oracles import materialize, openapi_validator

CASES = 5
CHECK = {"execution": {"evaluators": [{"name": "says-fake", "type": "contains", "value": "fake"}]}}


def _suite(count: int = CASES) -> str:
    lines = ["evalcases:"]
    for index in range(count):
        lines += [
            f"  - id: case-{index}",
            "    expected_outcome: Answers.",
            f"    input: Question {index}?",
            "    execution:",
            "      evaluators:",
            "        - {name: says-fake, type: contains, value: fake}",
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture
def server(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch, quick_batches: None
) -> Iterator[FakeServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-batch-test")
    with FakeServer.in_thread() as fake:
        project.write(
            ".evalwright/targets.yaml",
            f"""targets:
  - name: oa
    provider: openai
    model: gpt-4o-mini
    base_url: {fake.url}/v1
    retry: {{max_retries: 1, initial_delay_ms: 10}}
    price: lookup
  - name: auto
    provider: openai
    model: gpt-4o-mini
    base_url: {fake.url}/v1
    batch: true
  - name: own
    provider: openai
    model: gpt-own
    base_url: {fake.url}/v1
    price: {{input: 1.0, output: 2.0}}
  - name: claude
    provider: anthropic
    model: claude-test
    base_url: {fake.url}
    api_key: sk-ant-test
    retry: {{max_retries: 1, initial_delay_ms: 10}}
  - name: az
    provider: azure
    endpoint: {fake.url}
    deployment: gpt-4o-mini-batch
    api_key: az-test
    retry: {{max_retries: 1, initial_delay_ms: 10}}
  - name: gem
    provider: gemini
    model: gemini-test
    base_url: {fake.url}
    api_key: gem-test
    retry: {{max_retries: 1, initial_delay_ms: 10}}
  - name: mis
    provider: mistral
    model: mistral-small-latest
    base_url: {fake.url}/v1
    api_key: mis-test
""",
        )
        project.write("evals/suite.yaml", _suite())
        yield fake


def _check_oracle(target: str, server: FakeServer) -> None:
    """Each submitted body passes the same oracle as the live wire bodies."""
    if target == "claude":
        from anthropic.types.messages import BatchCreateParams

        sent = next(r for r in server.requests if r.path == "/v1/messages/batches").json
        adapter: TypeAdapter[Any] = TypeAdapter(BatchCreateParams)
        assert materialize(adapter.validate_python(sent)) == sent
        return
    if target == "gem":
        from google.genai import types

        for line in _input_lines(server):
            assert set(line["body"]) <= {"contents", "systemInstruction", "generationConfig"}
            for content in line["body"]["contents"]:
                types.Content.model_validate(content)
        return
    validator = openapi_validator("CreateChatCompletionRequest")
    for line in _input_lines(server):
        assert not [e.message for e in validator.iter_errors(line["body"])], line


@pytest.mark.parametrize(
    ("target", "live_api"),
    [("oa", "openai"), ("az", "azure"), ("claude", "anthropic"), ("gem", "gemini")],
)
def test_batch_sends_every_case_in_one_batch_and_writes_rows_as_live(
    project: ProjectDir, server: FakeServer, target: str, live_api: ApiName
) -> None:
    out = project.root / "batch.jsonl"
    suite = project.root / "evals/suite.yaml"
    result = run_cli("eval", suite, "--target", target, "--batch", "--out", out)
    assert result.code == 0, result.err
    assert len(_creations(server)) == 1
    assert not server.requests_for(live_api)  # nothing went out live
    rows = _rows(out)
    assert sorted(r["eval_id"] for r in rows) == [f"case-{i}" for i in range(CASES)]
    assert all(r["score"] == 1.0 and r["candidate_answer"] == "fake answer" for r in rows)
    # Each request's body is the row's recorded wire request, unchanged.
    assert sorted(json.dumps(r["wire_request"]["body"]) for r in rows) == sorted(
        json.dumps(line["body"]) for line in _input_lines(server)
    )
    assert len({json.dumps(line["body"]) for line in _input_lines(server)}) == CASES
    _check_oracle(target, server)
    assert "batch " in result.err
    assert not state_path(out).exists()


@pytest.mark.parametrize("target", ["oa", "own"])
def test_batch_and_live_runs_write_the_same_rows_at_half_the_price(
    project: ProjectDir, server: FakeServer, target: str
) -> None:
    """``oa`` is priced by the database's batch price, ``own`` at its own price less the
    documented discount."""
    live, batched = project.root / "live.jsonl", project.root / "batched.jsonl"
    suite = project.root / "evals/suite.yaml"
    assert run_cli("eval", suite, "--target", target, "--out", live).code == 0
    result = run_cli("eval", suite, "--target", target, "--out", batched, "--batch")
    assert result.code == 0, result.err
    # Only the target's own price needs the documented discount: the database has batch prices.
    assert ("no batch price for 5 of 'own'" in result.err) == (target == "own")
    varying = {"run_id", "timestamp", "latency_ms", "cost_usd"}

    def same(row: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in row.items() if k not in varying}

    assert sorted(map(json.dumps, map(same, _rows(live)))) == sorted(
        map(json.dumps, map(same, _rows(batched)))
    )
    live_cost = {r["eval_id"]: r["cost_usd"] for r in _rows(live)}
    for row in _rows(batched):  # the batch price: half the live one
        assert row["cost_usd"] == pytest.approx(live_cost[row["eval_id"]] / 2)
        assert row["cost_usd"] > 0


def test_the_cache_answers_before_anything_is_submitted(
    project: ProjectDir, server: FakeServer
) -> None:
    suite = project.root / "evals/suite.yaml"
    first = run_cli(
        "eval", suite, "--target", "oa", "--batch", "--cache", "--out", project.root / "a.jsonl"
    )
    assert first.code == 0, first.err
    second = run_cli(
        "eval", suite, "--target", "oa", "--batch", "--cache", "--out", project.root / "b.jsonl"
    )
    assert second.code == 0, second.err
    assert len(_creations(server)) == 1  # the second run was all cache hits
    assert {r["cache"] for r in _rows(project.root / "b.jsonl")} == {"hit"}


@pytest.mark.parametrize("target", ["oa", "az", "claude", "gem"])
def test_a_failed_request_is_retried_in_a_follow_up_batch(
    project: ProjectDir, server: FakeServer, target: str
) -> None:
    server.enqueue(Fault(500), Fault(400))  # the first two lines of the first batch
    out = project.root / "retry.jsonl"
    result = run_cli(
        "eval", project.root / "evals/suite.yaml", "--target", target, "--batch", "--out", out
    )
    assert result.code == 1
    creations = _creations(server)
    assert len(creations) == 2
    rows = {r["eval_id"]: r for r in _rows(out)}
    assert len(rows) == CASES
    assert rows["case-0"]["status"] == "ok"
    assert rows["case-0"]["attempts"] == 2
    assert rows["case-1"]["status"] == "error"
    assert "HTTP 400" in rows["case-1"]["error"]["message"]
    assert len(_input_lines(server)) == CASES + 1  # only the 500 went again


def test_an_expired_batch_leaves_error_rows_that_resume_sends_again(
    project: ProjectDir, server: FakeServer
) -> None:
    server.batch_expire_after = 2
    out = project.root / "expired.jsonl"
    suite = project.root / "evals/suite.yaml"
    result = run_cli("eval", suite, "--target", "oa", "--batch", "--out", out)
    assert result.code == 1
    rows = _rows(out)
    assert [r["status"] for r in rows].count("error") == CASES - 2
    errors = [r["error"]["message"] for r in rows if r["status"] == "error"]
    assert all("batch_expired" in message for message in errors)
    assert "expired" in result.err
    server.batch_expire_after = None
    again = run_cli("eval", suite, "--target", "oa", "--batch", "--resume", out)
    assert again.code == 0, again.err
    assert len(_input_lines(server)) == CASES + CASES - 2


def test_a_provider_without_batch_support_is_refused(
    project: ProjectDir, server: FakeServer
) -> None:
    # Mistral's adapter declares no batch_api: the list of the others is its adapters'.
    out = project.root / "refused.jsonl"
    result = run_cli(
        "eval", project.root / "evals/suite.yaml", "--target", "mis", "--batch", "--out", out
    )
    assert result.code == 2
    assert "batch mode is not supported for provider 'mistral'" in result.err
    assert "(supported: openai, azure, anthropic, gemini)" in result.err
    assert not server.requests
    assert not out.exists() or not out.read_text()


@pytest.mark.parametrize(
    ("target", "how"),
    [
        ("oa", signal.SIGKILL),
        ("oa", signal.SIGINT),
        ("az", signal.SIGKILL),
        ("claude", signal.SIGKILL),
        ("gem", signal.SIGKILL),
    ],
)
def test_resume_reattaches_to_the_batch_in_flight_and_submits_nothing_twice(
    project: ProjectDir, server: FakeServer, target: str, how: signal.Signals
) -> None:
    server.batch_delay = 3600  # the batch is still running when the run is stopped
    out = project.root / "resumed.jsonl"
    stop_batched_run(
        ["evals/suite.yaml", "--target", target, "--batch", "--out", str(out)],
        project.root,
        lambda: bool(_creations(server) and _submitted(out)),
        "the batch's submission",
        how,
    )
    saved = json.loads(state_path(out).read_text())
    assert len(saved["batches"]) == 1
    assert len(saved["batches"][0]["requests"]) == CASES
    assert not out.exists() or not _rows(out)
    server.batch_delay = 0
    result = run_cli(
        "eval", project.root / "evals/suite.yaml", "--target", target, "--batch", "--resume", out
    )
    assert result.code == 0, result.err
    assert len(_creations(server)) == 1
    rows = _rows(out)
    assert sorted(r["eval_id"] for r in rows) == [f"case-{i}" for i in range(CASES)]
    assert not state_path(out).exists()


def test_batch_true_on_a_target_batches_it_without_the_option(
    project: ProjectDir, server: FakeServer
) -> None:
    out = project.root / "auto.jsonl"
    result = run_cli("eval", project.root / "evals/suite.yaml", "--target", "auto", "--out", out)
    assert result.code == 0, result.err
    assert len(_creations(server)) == 1
    assert not server.requests_for("openai")
    assert len(_rows(out)) == CASES


def test_targets_batch_at_once_and_live_targets_run_beside_them(
    project: ProjectDir, server: FakeServer
) -> None:
    server.batch_delay = 0.5
    out = project.root / "mixed.jsonl"
    suite = project.root / "evals/suite.yaml"
    targets = ("--target", "auto", "--target", "claude", "--target", "oa")
    # Without --batch, 'auto' (batch: true) is batched while 'oa' runs live.
    result = run_cli("eval", suite, *targets[:2], *targets[4:], "--out", out)
    assert result.code == 0, result.err
    assert len(_creations(server)) == 1
    assert len(server.requests_for("openai")) == CASES  # 'oa', live
    assert len(_rows(out)) == 2 * CASES
    server.clear()
    result = run_cli("eval", suite, *targets[:4], "--batch", "--out", out)
    assert result.code == 0, result.err
    creations = _creations(server)
    assert len(creations) == 2
    downloads = [r for r in server.requests if r.path.endswith(("/content", "/results"))]
    # The second target's batch went out before the first one's answers came back.
    assert max(c.received_at for c in creations) < min(d.received_at for d in downloads)
    assert len(_rows(out)) == 2 * CASES


def test_a_batch_the_api_does_not_know_is_error_rows_then_submitted_again(
    project: ProjectDir, server: FakeServer
) -> None:
    server.batch_delay = 3600
    out = project.root / "unknown.jsonl"
    suite = project.root / "evals/suite.yaml"
    stop_batched_run(
        ["evals/suite.yaml", "--target", "oa", "--batch", "--out", str(out)],
        project.root,
        lambda: bool(_submitted(out)),
        "the batch's submission",
    )
    server.openai_batches.batches.clear()  # the provider lost it
    server.batch_delay = 0
    lost = run_cli("eval", suite, "--target", "oa", "--batch", "--resume", out)
    assert lost.code == 1
    rows = _rows(out)
    assert {r["status"] for r in rows} == {"error"}
    assert "does not know the batch" in rows[0]["error"]["message"]
    assert not state_path(out).exists()
    again = run_cli("eval", suite, "--target", "oa", "--batch", "--resume", out)
    assert again.code == 0, again.err
    assert len(_creations(server)) == 2


def test_a_batch_the_api_refuses_to_create_is_error_rows(
    project: ProjectDir, server: FakeServer
) -> None:
    targets = project.root / ".evalwright/targets.yaml"
    text = targets.read_text()
    targets.write_text(
        text.replace(f"base_url: {server.url}/v1\n", f"base_url: {server.url}/no/v1\n", 1)
    )
    out = project.root / "refused.jsonl"
    result = run_cli(
        "eval", project.root / "evals/suite.yaml", "--target", "oa", "--batch", "--out", out
    )
    assert result.code == 1
    rows = _rows(out)
    assert sorted(r["eval_id"] for r in rows) == [f"case-{i}" for i in range(CASES)]
    assert all(r["status"] == "error" and "404" in r["error"]["message"] for r in rows)
    assert not _creations(server)
    assert not state_path(out).exists()


def test_cases_are_read_again_for_their_answers_and_a_changed_case_gets_none(
    project: ProjectDir, server: FakeServer
) -> None:
    """While its batch runs only a case's row key is held; its case is read again from the
    JSONL file when the answer is back. A case edited meanwhile would pair its answer with a
    request never sent, so it is an error row instead (docs/batch.md#memory)."""
    suite = project.write(
        "evals/stream.jsonl",
        "".join(
            json.dumps({"id": f"s{i}", "expected_outcome": "Answers.", "input": f"Q{i}?", **CHECK})
            + "\n"
            for i in range(4)
        ),
    )
    server.batch_delay = 1.0

    def edit_once_submitted() -> None:
        deadline = time.monotonic() + 30
        while not _creations(server) and time.monotonic() < deadline:
            time.sleep(0.01)
        suite.write_text(suite.read_text().replace('"Q1?"', '"Q1, edited?"'))

    editor = threading.Thread(target=edit_once_submitted)
    editor.start()
    out = project.root / "stream.jsonl.out"
    result = run_cli("eval", suite, "--target", "oa", "--batch", "--out", out)
    editor.join()
    assert result.code == 1
    rows = {r["eval_id"]: r for r in _rows(out)}
    assert sorted(rows) == ["s0", "s1", "s2", "s3"]
    assert {k for k, r in rows.items() if r["status"] == "ok"} == {"s0", "s2", "s3"}
    assert "changed in its eval file while its batch ran" in rows["s1"]["error"]["message"]
    assert rows["s0"]["wire_request"]["body"]["messages"][-1]["content"] == "Q0?"
    again = run_cli("eval", suite, "--target", "oa", "--batch", "--resume", out)
    assert again.code == 0, again.err
    assert len(_input_lines(server)) == 5  # only the edited case was sent again


def test_no_case_is_held_while_its_batch_runs(project: ProjectDir, server: FakeServer) -> None:
    """Memory stays flat: while a batch runs only row keys are held, not the cases, their
    prompts or their requests (docs/batch.md#memory)."""
    count = 40
    suite = project.write(
        "evals/many.jsonl",
        "".join(
            json.dumps({"id": f"m{i}", "expected_outcome": "A.", "input": f"Q{i}?", **CHECK}) + "\n"
            for i in range(count)
        ),
    )
    server.batch_delay = 1.0
    held: list[int] = []

    def count_while_running() -> None:
        deadline = time.monotonic() + 30
        while not _creations(server) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # the batch is in progress: the run is polling
        held.append(sum(isinstance(o, WorkItem | PreparedRequest) for o in gc.get_objects()))

    watcher = threading.Thread(target=count_while_running)
    watcher.start()
    out = project.root / "many.out.jsonl"
    result = run_cli("eval", suite, "--target", "oa", "--batch", "--out", out)
    watcher.join()
    assert result.code == 0, result.err
    assert len(_rows(out)) == count
    assert held
    assert held[0] <= 2, held  # at most the last item a generator still names
