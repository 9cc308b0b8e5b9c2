"""``evalwright eval --batch`` against the fake server's OpenAI Batch API: one batch for the
run, rows as a live run writes them, the cache, retries in follow-up batches, expiry, and
``--resume`` re-attaching to a batch in flight (docs/batch.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalwright.orchestrator import batch
from evalwright.orchestrator.batch_state import state_path
from evalwright.testing import FakeServer, Fault, ReceivedRequest, Text
from tests.conftest import ProjectDir, run_cli

CASES = 5


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
def server(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-batch-test")
    monkeypatch.setattr(batch, "POLL_FIRST", 0.01)
    with FakeServer.in_thread() as fake:
        project.write(
            ".evalwright/targets.yaml",
            f"""targets:
  - name: oa
    provider: openai
    model: gpt-4o-mini
    base_url: {fake.url}/v1
    retry: {{max_retries: 1, initial_delay_ms: 10}}
  - name: claude
    provider: anthropic
    model: claude-test
    base_url: {fake.url}
    api_key: sk-ant-test
""",
        )
        project.write("evals/suite.yaml", _suite())
        yield fake


def _creations(server: FakeServer) -> list[ReceivedRequest]:
    return [r for r in server.requests if r.method == "POST" and r.path == "/v1/batches"]


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _input_lines(server: FakeServer) -> list[dict[str, Any]]:
    uploads = [r for r in server.requests if r.method == "POST" and r.path == "/v1/files"]
    lines: list[dict[str, Any]] = []
    for upload in uploads:
        start = upload.body.index(b"\r\n\r\n{") + 4
        end = upload.body.rindex(b"\r\n--")
        lines += [json.loads(t) for t in upload.body[start:end].splitlines()]
    return lines


def test_batch_sends_every_case_in_one_batch_and_writes_rows_as_live(
    project: ProjectDir, server: FakeServer
) -> None:
    out = project.root / "batch.jsonl"
    result = run_cli("eval", project.root / "evals/suite.yaml", "--target", "oa", "--batch", "--out", out)
    assert result.code == 0, result.err
    assert len(_creations(server)) == 1
    assert not server.requests_for("openai")  # nothing went out live
    rows = _rows(out)
    assert sorted(r["eval_id"] for r in rows) == [f"case-{i}" for i in range(CASES)]
    assert all(r["score"] == 1.0 and r["candidate_answer"] == "fake answer" for r in rows)
    bodies = {line["body"]["messages"][-1]["content"] for line in _input_lines(server)}
    # Each line's body is the row's recorded wire request, unchanged.
    assert {json.dumps(r["wire_request"]["body"]) for r in rows} == {
        json.dumps(line["body"]) for line in _input_lines(server)
    }
    assert len(bodies) == CASES
    assert "batch " in result.err
    assert not state_path(out).exists()


def test_batch_and_live_runs_write_the_same_rows(project: ProjectDir, server: FakeServer) -> None:
    live, batched = project.root / "live.jsonl", project.root / "batched.jsonl"
    suite = project.root / "evals/suite.yaml"
    assert run_cli("eval", suite, "--target", "oa", "--out", live).code == 0
    assert run_cli("eval", suite, "--target", "oa", "--out", batched, "--batch").code == 0
    varying = {"run_id", "timestamp", "latency_ms", "cost_usd"}

    def same(row: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in row.items() if k not in varying}

    assert sorted(map(json.dumps, map(same, _rows(live)))) == sorted(
        map(json.dumps, map(same, _rows(batched)))
    )
