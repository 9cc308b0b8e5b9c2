"""OpenAI-compatible servers that differ from OpenAI (docs/targets.md, docs/delivery.md): what
they refuse or ignore is said on the row or in the error, with the setting that fixes it. The
whole runner in this process against the fake server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from evalwright.evaluators.texts import VERDICT_SCHEMA
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest
from evalwright.testing import Fault, Text
from tests.conftest import ProjectDir
from tests.e2e.harness import E2E, start, targets_yaml
from tests.providers.wire_cases import chat_provider

EVAL_FILE = "evals/one.yaml"
EVAL = """evalcases:
  - id: hi
    expected_outcome: Greets.
    input: Say hi.
"""

VERDICT: dict[str, Any] = {"score": 1, "hits": [], "misses": [], "reasoning": "ok"}


@pytest.fixture
def e2e(project: ProjectDir) -> Iterator[E2E]:
    """A project whose targets point at a fake server in a thread."""
    yield from start(project, judge_verdict=VERDICT)


def _targets(e2e: E2E, extra: str) -> None:
    e2e.project.write(".evalwright/targets.yaml", targets_yaml(e2e.server.url, extra))


def _row(e2e: E2E, code: int = 0) -> dict[str, Any]:
    e2e.project.write(EVAL_FILE, EVAL)
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "r.jsonl")
    assert result.code == code, result.err
    (row,) = e2e.rows("r.jsonl")
    return row


def test_a_server_that_ignores_the_output_limit_gets_a_note_with_the_fix(e2e: E2E) -> None:
    _targets(e2e, "\n    max_output_tokens: 16")
    e2e.server.enqueue(Text("hi " * 40, output_tokens=40))

    row = _row(e2e)

    assert row["wire_request"]["body"]["max_completion_tokens"] == 16
    assert row["delivery_notes"] == [
        {
            "rule": "output_limit_ignored",
            "detail": "the answer has 40 output tokens but max_completion_tokens was 16: the "
            "server ignores that field; set the target's max_tokens_field: max_tokens",
        }
    ]


def test_an_answer_within_the_limit_gets_no_note(e2e: E2E) -> None:
    _targets(e2e, "\n    max_output_tokens: 16")
    e2e.server.enqueue(Text("hi", output_tokens=16))

    assert _row(e2e)["delivery_notes"] == []


def test_the_note_comes_back_with_a_cached_answer(e2e: E2E) -> None:
    _targets(e2e, "\n    max_output_tokens: 16")
    e2e.server.enqueue(Text("hi " * 40, output_tokens=40))
    e2e.project.write(EVAL_FILE, EVAL)
    for out in ("first.jsonl", "second.jsonl"):
        assert e2e.run("eval", EVAL_FILE, "--target", "oa", "--cache", "--out", out).code == 0
    first, second = e2e.rows("first.jsonl")[0], e2e.rows("second.jsonl")[0]

    assert second["cache"] == "hit"
    assert second["delivery_notes"] == first["delivery_notes"]
    assert [n["rule"] for n in second["delivery_notes"]] == ["output_limit_ignored"]


# Structured output of a judge (docs/targets.md#structured-output)


def _judge_targets(e2e: E2E, setting: str) -> None:
    text = targets_yaml(e2e.server.url) + f"    structured_output: {setting}\n"
    e2e.project.write(".evalwright/targets.yaml", text)


@pytest.mark.parametrize("setting", ["json_schema", "true"])
def test_json_schema_sends_the_verdict_schema_strictly(e2e: E2E, setting: str) -> None:
    _judge_targets(e2e, setting)

    _row(e2e)

    (judge,) = e2e.judges()
    assert judge.json["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "strict": True, "schema": VERDICT_SCHEMA},
    }


def test_json_object_sends_the_schema_in_the_json_object_form(e2e: E2E) -> None:
    # llama-cpp-python's server answers 500 to json_schema but turns this into a grammar.
    _judge_targets(e2e, "json_object")

    _row(e2e)

    (judge,) = e2e.judges()
    assert judge.json["response_format"] == {"type": "json_object", "schema": VERDICT_SCHEMA}


@pytest.mark.parametrize("setting", ["none", "false"])
def test_none_sends_no_response_format(e2e: E2E, setting: str) -> None:
    _judge_targets(e2e, setting)

    _row(e2e)

    (judge,) = e2e.judges()
    assert "response_format" not in judge.json


def test_a_refused_response_format_names_the_setting_to_change(e2e: E2E) -> None:
    _judge_targets(e2e, "json_schema")
    refusal = {"error": {"message": "Unknown response_format type: json_schema", "code": 500}}
    e2e.server.enqueue(Text("hi"), Fault(500, body=refusal), Fault(500, body=refusal))

    row = _row(e2e, code=1)

    (result,) = row["evaluator_results"]
    reasoning = result["reasoning"]
    assert "Unknown response_format type: json_schema" in reasoning
    assert (
        "the server refused response_format json_schema: set structured_output: json_object"
        " (or none) on target 'judge'"
    ) in reasoning


def test_an_error_that_does_not_mention_response_format_gets_no_such_hint(e2e: E2E) -> None:
    e2e.server.enqueue(Text("hi"), Fault(400, body={"error": {"message": "bad model"}}))

    row = _row(e2e, code=1)

    assert "structured_output" not in row["evaluator_results"][0]["reasoning"]


@pytest.mark.parametrize(
    ("setting", "config"),
    [
        (
            "json_schema",
            {"responseMimeType": "application/json", "responseJsonSchema": VERDICT_SCHEMA},
        ),
        ("json_object", {"responseMimeType": "application/json"}),
        ("none", None),
    ],
)
def test_gemini_maps_each_mode(setting: str, config: dict[str, Any] | None) -> None:
    provider = chat_provider("gemini", structured_output=setting)
    request = ProviderRequest(
        case_id="j",
        purpose="judge",
        response_schema=VERDICT_SCHEMA,
        messages=(ChatMessage(role="system", content="J"), ChatMessage(role="user", content="Q")),
    )
    body = provider.prepare(request).wire.model_dump(mode="json")["body"]
    assert body.get("generationConfig") == config
