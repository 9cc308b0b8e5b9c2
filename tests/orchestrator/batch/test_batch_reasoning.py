"""Batch mode reads an answer's reasoning from the batch results as a live run does
(docs/running.md#reasoning, docs/batch.md): Anthropic thinking and Gemini thought parts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evalwright.testing import FakeServer, Text, Thought
from tests.conftest import ProjectDir, run_cli
from tests.orchestrator.batch.batching import creations, rows

SUITE = """evalcases:
  - id: think
    expected_outcome: Says 42.
    input: Six times seven?
    execution:
      evaluators:
        - {name: says, type: contains, value: "42"}
"""
ANSWER = Text("It is 42.", reasoning=(Thought("Six sevens.", signature="c2ln"),))


@pytest.fixture
def fake(project: ProjectDir, quick_batches: None) -> Iterator[FakeServer]:
    with FakeServer.in_thread() as server:
        project.write(
            ".evalwright/targets.yaml",
            f"""targets:
  - {{name: claude, provider: anthropic, model: claude-test, base_url: "{server.url}",
      api_key: sk-ant-test}}
  - {{name: gem, provider: gemini, model: gemini-test, base_url: "{server.url}",
      api_key: gem-test}}
""",
        )
        project.write("evals/suite.yaml", SUITE)
        server.responder = lambda _: ANSWER
        yield server


@pytest.mark.parametrize("target", ["claude", "gem"])
def test_a_batched_answer_keeps_its_reasoning_apart(
    project: ProjectDir, fake: FakeServer, target: str
) -> None:
    out = project.root / "batch.jsonl"
    result = run_cli(
        "eval", project.root / "evals/suite.yaml", "--target", target, "--batch", "--out", out
    )
    assert result.code == 0, result.err
    assert len(creations(fake)) == 1
    (row,) = rows(out)
    assert (row["status"], row["candidate_answer"]) == ("ok", "It is 42.")
    assert row["answer_reasoning"] == [{"text": "Six sevens.", "signature": "c2ln"}]
