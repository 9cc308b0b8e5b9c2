"""A model's tool calls are part of its answer (docs/tools.md#tool-calls-in-the-answer): on
every chat API the row records them exactly (ids, names, the arguments as returned and
parsed) beside the text, a case without tool implementations ends there with status ok, and
the cache, ``--resume`` and redaction keep them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalwright.testing import FunctionCall, ReceivedRequest, Text, ToolCalls
from tests.e2e.harness import CHAT_TARGETS as TARGETS
from tests.e2e.harness import E2E, OPENAI_KEY, with_more_targets

EVAL_FILE = "evals/tools.yaml"
EVAL = """execution:
  evaluators:
    - {name: checks, type: contains, value: Checking}
evalcases:
  - id: one
    expected_outcome: Calls the weather tool.
    input: Weather in Paris?
  - id: two
    expected_outcome: Calls both tools.
    input: Weather and time in Paris?
"""
WEATHER = {"city": "Paris", "unit": "c"}
TIME = {"zone": "CET"}
TWO = ToolCalls(
    (FunctionCall("get_weather", WEATHER, "c1"), FunctionCall("get_time", TIME, "c2")),
    text="Checking both.",
)
ONE = ToolCalls((FunctionCall("get_weather", WEATHER, "c1"),))


def _answer(request: ReceivedRequest) -> Text | ToolCalls:
    """One call without text for case ``one``, two calls beside text for case ``two``."""
    if "time" in request.body.decode():
        return TWO
    return ONE


def _run(e2e: E2E, target: str, *options: str, out: str = "results.jsonl") -> dict[str, Any]:
    result = e2e.run("eval", EVAL_FILE, "--target", target, "--out", out, *options)
    # 1: a case below the pass mark (its answer is calls without text), never an error.
    assert result.code in (0, 1), result.err + result.out
    assert " 0 error(s)" in result.err
    return {row["eval_id"]: row for row in e2e.rows(out)}


def _expected(target: str, call: FunctionCall, index: int) -> dict[str, Any]:
    """The row's record of ``call``: Chat Completions return the arguments as JSON text,
    Anthropic and Gemini as an object; Gemini's calls here carry ids as given."""
    arguments = dict(call.arguments) if not isinstance(call.arguments, str) else None
    raw: Any = call.arguments_json() if target in ("oa", "az", "mi") else arguments
    return {
        "id": call.call_id or f"call_{index}",
        "name": call.name,
        "raw_arguments": raw,
        "arguments": arguments,
    }


@pytest.mark.parametrize("target", TARGETS)
def test_one_and_two_parallel_calls_are_recorded_exactly(e2e: E2E, target: str) -> None:
    with_more_targets(e2e)
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.responder = _answer

    rows = _run(e2e, target)

    one, two = rows["one"], rows["two"]
    assert (one["status"], one["error"], one["candidate_answer"]) == ("ok", None, "")
    assert one["tool_calls"] == [_expected(target, ONE.calls[0], 0)]
    assert one["score"] == 0.0, "the evaluators score the text beside the calls"
    assert (two["status"], two["candidate_answer"], two["score"]) == ("ok", "Checking both.", 1.0)
    assert two["tool_calls"] == [_expected(target, c, i) for i, c in enumerate(TWO.calls)]
    assert list(two).index("tool_calls") == list(two).index("candidate_answer") + 1
    assert two["finish_reason"] == {"an": "tool_use", "ge": "STOP"}.get(target, "tool_calls")
    # The row type reads them back as the API returned them.
    read = {row.eval_id: row for row in e2e.results()}
    assert read["two"].tool_calls is not None
    assert [c.model_dump(mode="json") for c in read["two"].tool_calls] == two["tool_calls"]


def test_gemini_calls_without_ids_are_numbered_in_order(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    no_ids = ToolCalls((FunctionCall("get_weather", WEATHER), FunctionCall("get_time", TIME)))
    e2e.server.responder = lambda _: no_ids

    rows = _run(e2e, "ge")

    assert [(c["id"], c["name"]) for c in rows["two"]["tool_calls"]] == [
        ("call_0", "get_weather"),
        ("call_1", "get_time"),
    ]


@pytest.mark.parametrize("arguments", ["not json {", "[1, 2]", '"text"'])
def test_arguments_that_are_no_json_object_are_kept_raw(e2e: E2E, arguments: str) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.responder = lambda _: ToolCalls((FunctionCall("f", arguments, "c9"),))

    rows = _run(e2e, "oa")

    for row in rows.values():
        assert row["status"] == "ok"
        assert row["tool_calls"] == [
            {"id": "c9", "name": "f", "raw_arguments": arguments, "arguments": None}
        ]


@pytest.mark.parametrize("target", ["oa", "an", "ge"])
def test_a_cache_hit_replays_the_calls(e2e: E2E, target: str) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.responder = _answer
    first = _run(e2e, target, "--cache", out="first.jsonl")
    e2e.server.clear()

    second = _run(e2e, target, "--cache", out="second.jsonl")

    assert not e2e.server.requests, "every answer came from the cache"
    for case in ("one", "two"):
        assert second[case]["cache"] == "hit"
        assert second[case]["tool_calls"] == first[case]["tool_calls"]
        assert second[case]["candidate_answer"] == first[case]["candidate_answer"]


def test_resume_keeps_the_calls_of_the_rows_it_keeps(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.responder = _answer
    _run(e2e, "oa")
    path = e2e.root / "results.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = next(line for line in lines if '"eval_id":"two"' in line)
    path.write_text(kept, encoding="utf-8")
    e2e.server.clear()

    resumed = e2e.run("eval", EVAL_FILE, "--target", "oa", "--resume", "results.jsonl")

    assert resumed.code in (0, 1), resumed.err  # 1: case one is below the pass mark
    assert len(e2e.server.requests) == 1, "only the missing case is asked"
    text = path.read_text(encoding="utf-8")
    assert kept in text, "the kept row is written as it was"
    rows = {row["eval_id"]: row for row in e2e.rows()}
    assert rows["one"]["tool_calls"] == [_expected("oa", ONE.calls[0], 0)]


def test_a_secret_in_the_arguments_is_redacted_in_the_row_and_the_cache(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    leaky = ToolCalls((FunctionCall("login", {"key": OPENAI_KEY}, "c1"),))
    e2e.server.responder = lambda _: leaky

    rows = _run(e2e, "oa", "--cache")

    assert rows["one"]["tool_calls"][0]["arguments"] == {"key": "[REDACTED]"}
    assert json.loads(rows["one"]["tool_calls"][0]["raw_arguments"]) == {"key": "[REDACTED]"}
    cache = e2e.root / ".evalwright/cache/responses.sqlite3"
    assert OPENAI_KEY.encode() not in cache.read_bytes()
    e2e.server.clear()
    again = _run(e2e, "oa", "--cache", out="again.jsonl")
    assert again["one"]["cache"] == "hit"
    assert again["one"]["tool_calls"] == rows["one"]["tool_calls"]


def test_a_row_without_calls_has_no_tool_calls_key(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.responder = lambda _: Text("Checking nothing.")

    rows = _run(e2e, "oa")

    assert all("tool_calls" not in row for row in rows.values())


TALK = """execution:
  evaluators:
    - {name: thanked, type: contains, value: welcome}
evalcases:
  - id: talk
    expected_outcome: Keeps track of the conversation.
    turns:
      - Weather in Paris?
      - Thanks.
"""


def test_a_live_conversation_s_turn_records_its_calls(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, TALK)
    e2e.server.enqueue(ToolCalls((FunctionCall("get_weather", WEATHER, "c1"),), "Checking."))
    e2e.server.enqueue(Text("You're welcome."))

    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    assert result.code == 0, result.err
    (row,) = e2e.rows()
    first, second = row["turns"]
    assert first["reply"] == "Checking."
    assert first["tool_calls"] == [_expected("oa", FunctionCall("get_weather", WEATHER, "c1"), 0)]
    assert list(first).index("tool_calls") == list(first).index("reply") + 1
    assert "tool_calls" not in second
    (read,) = e2e.results()
    assert read.turns is not None
    assert read.turns[0].tool_calls is not None
    assert read.turns[0].tool_calls[0].arguments == WEATHER


def test_the_results_schema_describes_the_calls(e2e: E2E) -> None:
    result = e2e.run("schema", "results")

    assert result.code == 0, result.err
    schema = json.loads(result.out)
    assert "tool_calls" in schema["properties"]
    assert "tool_calls" not in schema["required"]
    call = schema["$defs"]["AnswerToolCall"]
    assert call["required"] == ["id", "name", "raw_arguments", "arguments"]
