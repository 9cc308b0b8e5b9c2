"""Batch mode reads an answer's tool calls from the batch results as a live run does
(docs/tools.md#tool-calls-in-the-answer, docs/batch.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evalwright.testing import FakeServer, FunctionCall, Text, ToolCalls
from tests.conftest import ProjectDir, run_cli
from tests.orchestrator.batch.batching import creations, rows

SUITE = """evalcases:
  - id: weather
    expected_outcome: Calls both tools.
    input: Weather and time in Paris?
    execution:
      evaluators:
        - {name: checks, type: contains, value: Checking}
"""
WEATHER = {"city": "Paris"}
ANSWER = ToolCalls(
    (FunctionCall("get_weather", WEATHER, "c1"), FunctionCall("get_time", "not json", "c2")),
    text="Checking both.",
)


@pytest.fixture
def fake(project: ProjectDir, quick_batches: None) -> Iterator[FakeServer]:
    with FakeServer.in_thread() as server:
        project.write(
            ".evalwright/targets.yaml",
            f"""targets:
  - {{name: oa, provider: openai, model: gpt-4o-mini, base_url: "{server.url}/v1",
      api_key: sk-batch-test}}
  - {{name: claude, provider: anthropic, model: claude-test, base_url: "{server.url}",
      api_key: sk-ant-test}}
  - {{name: gem, provider: gemini, model: gemini-test, base_url: "{server.url}",
      api_key: gem-test}}
""",
        )
        project.write("evals/suite.yaml", SUITE)
        server.responder = lambda _: ANSWER
        yield server


@pytest.mark.parametrize("target", ["oa", "claude", "gem"])
def test_a_batched_answer_keeps_its_tool_calls(
    project: ProjectDir, fake: FakeServer, target: str
) -> None:
    out = project.root / "batch.jsonl"
    result = run_cli(
        "eval", project.root / "evals/suite.yaml", "--target", target, "--batch", "--out", out
    )
    assert result.code == 0, result.err
    assert len(creations(fake)) == 1
    (row,) = rows(out)
    assert (row["status"], row["candidate_answer"], row["score"]) == ("ok", "Checking both.", 1.0)
    chat = target == "oa"
    assert row["tool_calls"] == [
        {
            "id": "c1",
            "name": "get_weather",
            "raw_arguments": '{"city":"Paris"}' if chat else WEATHER,
            "arguments": WEATHER,
        },
        {
            "id": "c2",
            "name": "get_time",
            # Anthropic and Gemini carry objects: the fake server wraps a text that is none.
            "raw_arguments": "not json" if chat else {"arguments": "not json"},
            "arguments": None if chat else {"arguments": "not json"},
        },
    ]


def test_a_case_whose_tools_run_goes_live_beside_the_batch(
    project: ProjectDir, fake: FakeServer
) -> None:
    # Its tool loop's second request depends on the first answer: it cannot be batched.
    project.write(
        "evals/loop.yaml",
        """tools:
  - {name: get_weather, result: sunny}
  - {name: get_time, result: noon}
evalcases:
  - id: loop
    expected_outcome: Says it.
    input: Weather and time in Paris?
    execution:
      evaluators:
        - {name: checks, type: contains, value: sunny}
""",
    )
    answers = iter([ANSWER, Text("sunny at noon")])
    fake.responder = lambda _: next(answers)
    out = project.root / "batch.jsonl"
    result = run_cli(
        "eval", project.root / "evals/loop.yaml", "--target", "oa", "--batch", "--out", out
    )
    assert result.code == 0, result.err
    assert not creations(fake), "nothing was batched"
    (row,) = rows(out)
    assert (row["status"], row["candidate_answer"]) == ("ok", "sunny at noon")
    assert [step["step"] for step in row["steps"]] == [1, 2]
