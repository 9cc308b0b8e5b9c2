"""The judge prompt (docs/eval-files.md#llm_judge) is filled from the evaluator context; the
authored messages, which read every attached file again, are built only for a template that
shows them."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from evalwright.evalfile.template import parse_template
from evalwright.evaluators.base import EvalContext
from evalwright.evaluators.judge import DEFAULT, judge_prompt
from evalwright.providers.wire import AnswerToolCall

INPUTS: list[dict[str, Any]] = [{"role": "user", "content": "What is 2+2?"}]
EXPECTED: list[dict[str, Any]] = [{"role": "assistant", "content": "4"}]


def _context(calls: list[int]) -> EvalContext:
    def authored() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        calls.append(1)
        return INPUTS, EXPECTED

    return EvalContext(
        case_id="sum",
        question="What is 2+2?",
        expected_outcome="Gives the sum.",
        reference_answer="4",
        candidate_answer="5",
        guidelines="",
        guideline_paths=[],
        input_files=[],
        authored=authored,
    )


def test_the_default_template_never_builds_the_authored_messages() -> None:
    calls: list[int] = []
    text = judge_prompt(None, _context(calls))
    assert calls == []
    for value in ("What is 2+2?", "Gives the sum.", "5"):
        assert value in text
    assert text == judge_prompt(DEFAULT, _context(calls))


def test_a_template_showing_the_messages_gets_them_as_compact_json() -> None:
    calls: list[int] = []
    template = parse_template("{{input_messages}} | {{expected_messages}} | {{question}}", "t")
    text = judge_prompt(template, _context(calls))
    inputs = json.dumps(INPUTS, ensure_ascii=False, separators=(",", ":"))
    expected = json.dumps(EXPECTED, ensure_ascii=False, separators=(",", ":"))
    assert text == f"{inputs} | {expected} | What is 2+2?"
    assert calls == [1]  # built once, for both variables


def test_the_judge_sees_the_answers_tool_calls_as_an_assistant_block_shows_them() -> None:
    calls = (
        AnswerToolCall(
            id="call_1",
            name="book",
            raw_arguments='{"seats": 2, "flight": "UA1"}',
            arguments={"seats": 2, "flight": "UA1"},
        ),
        AnswerToolCall(id="call_2", name="cancel", raw_arguments="{oops", arguments=None),
    )
    ctx = dataclasses.replace(_context([]), candidate_answer="Booking.", tool_calls=calls)
    template = parse_template("{{candidate_answer}}", "t")
    assert judge_prompt(template, ctx) == (
        "Booking.\n"
        '<tool_call id="call_1" name="book">{"flight":"UA1","seats":2}</tool_call>\n'
        '<tool_call id="call_2" name="cancel">"{oops"</tool_call>'
    )
    silent = dataclasses.replace(ctx, candidate_answer="", tool_calls=calls[:1])
    assert judge_prompt(template, silent) == (
        '<tool_call id="call_1" name="book">{"flight":"UA1","seats":2}</tool_call>'
    )
    assert judge_prompt(template, _context([])) == "5"
