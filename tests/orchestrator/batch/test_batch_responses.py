"""Batch mode on targets with ``api: responses`` (docs/batch.md,
docs/targets.md#the-responses-api): the lines go to ``/v1/responses`` with the live body,
and the answers are read back from the Response objects as a live run reads them."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from evalwright.testing import FakeServer, FunctionCall, ToolCalls
from tests.conftest import ProjectDir, run_cli
from tests.orchestrator.batch.batching import creations, input_lines, rows
from tests.providers.test_oracles import openapi_validator

SUITE = """evalcases:
  - id: weather
    expected_outcome: Calls the tool.
    input: Weather in Paris?
    execution:
      evaluators:
        - {name: checks, type: contains, value: Checking}
  - id: again
    expected_outcome: Calls the tool.
    input: Weather in Oslo?
    execution:
      evaluators:
        - {name: checks, type: contains, value: Checking}
"""
RAW = '{"city": "Paris"}'
ANSWER = ToolCalls((FunctionCall("get_weather", RAW, "call_9"),), text="Checking.")


@pytest.fixture
def fake(project: ProjectDir, quick_batches: None) -> Iterator[FakeServer]:
    with FakeServer.in_thread() as server:
        project.write(
            ".evalwright/targets.yaml",
            f"""targets:
  - {{name: oa, provider: openai, model: gpt-4o-mini, base_url: "{server.url}/v1",
      api_key: sk-batch-test, api: responses}}
  - {{name: az, provider: azure, endpoint: "{server.url}", deployment: dep-batch,
      api_key: az-test, api: responses}}
""",
        )
        project.write("evals/suite.yaml", SUITE)
        server.responder = lambda _: ANSWER
        yield server


@pytest.mark.parametrize("target", ["oa", "az"])
def test_a_batch_sends_responses_lines_and_reads_their_answers(
    project: ProjectDir, fake: FakeServer, target: str
) -> None:
    out = project.root / "batch.jsonl"
    result = run_cli(
        "eval", project.root / "evals/suite.yaml", "--target", target, "--batch", "--out", out
    )

    assert result.code == 0, result.err
    (created,) = creations(fake)
    assert created.json["endpoint"] == "/v1/responses"
    lines = input_lines(fake)
    assert [line["url"] for line in lines] == ["/v1/responses", "/v1/responses"]
    validator = openapi_validator("CreateResponse")
    for line in lines:
        assert not [e.message for e in validator.iter_errors(line["body"])], line
        assert line["body"]["store"] is False
    assert not fake.requests_for("responses"), "nothing went live"
    found = rows(out)
    sent = sorted(json.dumps(line["body"], sort_keys=True) for line in lines)
    recorded = sorted(json.dumps(row["wire_request"]["body"], sort_keys=True) for row in found)
    assert sent == recorded, "each line's body is its row's recorded wire request"
    for row in found:
        assert (
            row["wire_request"]["api"] == ("openai" if target == "oa" else "azure") + ".responses"
        )
        assert (row["status"], row["candidate_answer"], row["score"]) == ("ok", "Checking.", 1.0)
        assert row["tool_calls"] == [
            {
                "id": "call_9",
                "name": "get_weather",
                "raw_arguments": RAW,
                "arguments": {"city": "Paris"},
            }
        ]
