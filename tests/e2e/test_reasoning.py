"""A model's reasoning is kept apart from its answer (docs/running.md#reasoning): against the
fake server scripted with each API's reasoning output (Anthropic ``thinking`` and
``redacted_thinking`` blocks, Gemini ``thought`` parts), the row's ``answer_reasoning`` holds
it and ``candidate_answer`` does not; the cache replays it; an Anthropic tool loop sends the
thinking blocks back first, unchanged, with their signatures (docs/tools.md#the-tool-loop);
a judge sees the reasoning only with ``include_reasoning: true`` (docs/judges.md#reasoning)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalwright.results.row import ResultRow
from evalwright.testing import FunctionCall, ReceivedRequest, Text, Thought, ToolCalls, Verdict
from tests.e2e.harness import E2E, is_judge, judge_user_text

EVAL_FILE = "evals/think.yaml"
EVAL = """execution:
  evaluators:
    - {name: says, type: contains, value: "42"}
evalcases:
  - id: answer
    expected_outcome: Says 42.
    input: What is six times seven?
"""
THOUGHTS = (
    Thought("Six sevens: 42. SECRET-THOUGHT", signature="c2lnLWFudA=="),
    Thought(redacted="RU5DUllQVEVE"),
)
GEMINI_THOUGHTS = (Thought("**Multiplying** 6 by 7 gives 42. SECRET-THOUGHT"),)


def _run(e2e: E2E, target: str, *options: str) -> dict[str, Any]:
    result = e2e.run("eval", EVAL_FILE, "--target", target, "--out", "results.jsonl", *options)
    assert result.code == 0, result.err + result.out
    [row] = e2e.rows("results.jsonl")
    return row


@pytest.mark.parametrize(
    ("target", "thoughts", "expected"),
    [
        (
            "an",
            THOUGHTS,
            [
                {"text": "Six sevens: 42. SECRET-THOUGHT", "signature": "c2lnLWFudA=="},
                {"text": "", "data": "RU5DUllQVEVE"},
            ],
        ),
        ("ge", GEMINI_THOUGHTS, [{"text": "**Multiplying** 6 by 7 gives 42. SECRET-THOUGHT"}]),
    ],
)
def test_the_row_keeps_reasoning_apart_from_the_answer(
    e2e: E2E, target: str, thoughts: tuple[Thought, ...], expected: list[Any]
) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.enqueue(Text("It is 42.", reasoning=thoughts))

    row = _run(e2e, target, "--cache")

    assert row["candidate_answer"] == "It is 42."
    assert row["answer_reasoning"] == expected
    assert list(row).index("answer_reasoning") == list(row).index("candidate_answer") + 1
    assert "SECRET-THOUGHT" not in json.dumps(row["evaluator_results"])
    if target == "ge":  # Gemini counts thinking apart, Anthropic inside output_tokens
        assert row["usage"]["thoughts_tokens"] > 0
    again = _run(e2e, target, "--cache")
    assert again["cache"] == "hit"
    assert again["answer_reasoning"] == expected
    assert ResultRow.model_validate(again).answer_reasoning is not None


def test_a_row_without_reasoning_has_no_key(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.enqueue(Text("It is 42."))
    row = _run(e2e, "an")
    assert "answer_reasoning" not in row


LOOP_EVAL = """tools:
  - name: multiply
    parameters:
      type: object
      properties: {a: {type: integer}, b: {type: integer}}
    result: "42"
execution:
  evaluators:
    - {name: says, type: contains, value: "42"}
evalcases:
  - id: loop
    expected_outcome: Multiplies, then says 42.
    input: What is six times seven?
"""
CALL = ToolCalls(
    (FunctionCall("multiply", {"a": 6, "b": 7}, "toolu_1"),),
    text="I will multiply.",
    reasoning=THOUGHTS,
)
FINAL = Text("It is 42.", reasoning=(Thought("The tool said 42.", signature="c2lnLTI="),))


def test_an_anthropic_tool_loop_sends_thinking_back_unchanged(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, LOOP_EVAL)
    received: list[ReceivedRequest] = []

    def answer(request: ReceivedRequest) -> ToolCalls | Text:
        received.append(request)
        return CALL if len(received) == 1 else FINAL

    e2e.server.responder = answer
    row = ResultRow.model_validate(_run(e2e, "an"))

    second = json.loads(received[1].body)
    assistant = second["messages"][-2]
    assert assistant == {
        "role": "assistant",
        "content": [
            {
                "type": "thinking",
                "thinking": "Six sevens: 42. SECRET-THOUGHT",
                "signature": "c2lnLWFudA==",
            },
            {"type": "redacted_thinking", "data": "RU5DUllQVEVE"},
            {"type": "text", "text": "I will multiply."},
            {"type": "tool_use", "id": "toolu_1", "name": "multiply", "input": {"a": 6, "b": 7}},
        ],
    }
    assert second["messages"][-1]["content"][0]["type"] == "tool_result"
    _check_anthropic_oracle(second)
    assert row.candidate_answer == "It is 42."
    assert [p.text for p in row.answer_reasoning or ()] == ["The tool said 42."]
    steps = row.full_steps()
    assert [len(s.reasoning or ()) for s in steps] == [2, 1]
    assert steps[0].reasoning is not None
    assert [p.signature for p in steps[0].reasoning] == ["c2lnLWFudA==", None]
    assert "SECRET-THOUGHT" not in " ".join(s.reply for s in steps)


def _check_anthropic_oracle(body: dict[str, Any]) -> None:
    """The body passes the Anthropic SDK's request type, the thinking blocks as they are."""
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from pydantic import TypeAdapter

    from tests.providers.test_oracles import materialize

    adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
    assert materialize(adapter.validate_python(body)) == body


JUDGED_EVAL = """execution:
  evaluators:
    - {name: blind, type: llm_judge}
    - {name: sighted, type: llm_judge, include_reasoning: true}
evalcases:
  - id: answer
    expected_outcome: Says 42.
    input: What is six times seven?
"""


@pytest.mark.parametrize(("target", "thoughts"), [("an", THOUGHTS), ("ge", GEMINI_THOUGHTS)])
def test_judges_see_reasoning_only_when_asked(
    e2e: E2E, target: str, thoughts: tuple[Thought, ...]
) -> None:
    e2e.project.write(EVAL_FILE, JUDGED_EVAL)
    prompts: list[str] = []

    def answer(request: ReceivedRequest) -> Text | Verdict:
        if is_judge(request):
            prompts.append(judge_user_text(request))
            return Verdict(1.0)
        return Text("It is 42.", reasoning=thoughts)

    e2e.server.responder = answer
    row = _run(e2e, target)

    blind, sighted = sorted(prompts, key=lambda prompt: "<reasoning>" in prompt)
    assert "SECRET-THOUGHT" not in blind
    assert "<reasoning>" not in blind
    shown = "\n\n".join(t.text if t.redacted is None else "[redacted]" for t in thoughts)
    assert f"<reasoning>\n{shown}\n</reasoning>\nIt is 42." in sighted
    assert row["score"] == 1.0


def test_openai_reasoning_tokens_are_in_usage(e2e: E2E) -> None:
    """Chat Completions shows no reasoning text, only its count inside the output's."""
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.enqueue(Text("It is 42.", output_tokens=50, reasoning_tokens=30))
    row = _run(e2e, "oa")
    assert row["usage"]["output_tokens"] == 50
    assert row["usage"]["reasoning_tokens"] == 30
    assert "answer_reasoning" not in row
