"""The tool loop's behaviours end to end (docs/tools.md#the-tool-loop): command tools, failures
as error results the API understands, unknown tools, ``max_steps``, live conversations, the
cache per step, ``--repeat``, ``--max-cost`` and ``--resume``."""

from __future__ import annotations

import json
import sys
from typing import Any

from evalwright.providers.wire import ChatWireRequest
from evalwright.results.row import ResultRow
from evalwright.testing import Fault, FunctionCall, ReceivedRequest, Text, ToolCalls
from tests.e2e.harness import E2E

TOOL_SCRIPT = """import json, sys
args = json.load(sys.stdin)
if args.get("city") == "Atlantis":
    print("no such city", file=sys.stderr)
    sys.exit(3)
print(json.dumps({"city": args["city"], "temp_c": 21}))
"""


def _eval(command: list[str], case_extra: str = "") -> str:
    return f"""tools:
  - name: weather
    parameters:
      type: object
      properties: {{city: {{type: string}}}}
      required: [city]
    command: {json.dumps(command)}
  - name: flaky
    parameters: {{type: object}}
    results:
      - error: the service is down
execution:
  evaluators:
    - {{name: answered, type: contains, value: "."}}
evalcases:
  - id: w
    expected_outcome: Says the weather.
    input: Weather in Lisbon and Atlantis?{case_extra}
"""


def _scripted(e2e: E2E, script: list[Any]) -> list[ReceivedRequest]:
    received: list[ReceivedRequest] = []

    def answer(request: ReceivedRequest) -> Any:
        received.append(request)
        return script[min(len(received), len(script)) - 1]

    e2e.server.responder = answer
    return received


def _row(e2e: E2E, path: str = "results.jsonl") -> ResultRow:
    [data] = e2e.rows(path)
    return ResultRow.model_validate(data)


def _tools_script(e2e: E2E) -> list[str]:
    e2e.project.write("evals/tools/weather.py", TOOL_SCRIPT)
    return [sys.executable, "tools/weather.py"]


def test_a_command_answers_and_failures_are_error_results_on_anthropic(e2e: E2E) -> None:
    e2e.project.write("evals/w.yaml", _eval(_tools_script(e2e)))
    received = _scripted(
        e2e,
        [
            ToolCalls(
                (
                    FunctionCall("weather", {"city": "Lisbon"}, "c1"),
                    FunctionCall("weather", {"city": "Atlantis"}, "c2"),
                    FunctionCall("flaky", {}, "c3"),
                    FunctionCall("teleport", {"to": "Mars"}, "c4"),
                )
            ),
            Text("Lisbon is 21 C; Atlantis is not a city."),
        ],
    )
    result = e2e.run("eval", "evals/w.yaml", "--target", "an", "--out", "results.jsonl")

    assert result.code == 0, result.err + result.out
    assert len(received) == 2
    answers = received[1].json["messages"][-1]
    blocks = {b["tool_use_id"]: b for b in answers["content"]}
    assert json.loads(blocks["c1"]["content"]) == {"city": "Lisbon", "temp_c": 21}
    assert "is_error" not in blocks["c1"]
    assert blocks["c2"]["is_error"] is True
    assert "exited with status 3" in blocks["c2"]["content"]
    assert "no such city" in blocks["c2"]["content"], "the command's stderr tells the model why"
    assert blocks["c3"] == {
        "type": "tool_result",
        "tool_use_id": "c3",
        "content": "the service is down",
        "is_error": True,
    }
    assert blocks["c4"]["is_error"] is True
    assert "no tool named 'teleport'" in blocks["c4"]["content"]
    row = _row(e2e)
    assert row.status == "ok"
    assert row.steps is not None
    results = row.steps[0].tool_results or ()
    assert [(r.source, r.is_error) for r in results] == [
        ("command", False),
        ("command", True),
        ("results", True),
        ("none", True),
    ]
    rules = [n.rule for n in row.delivery_notes or ()]
    assert rules.count("unknown_tool") == 1
    [note] = [n for n in row.delivery_notes or () if n.rule == "unknown_tool"]
    assert "'teleport'" in note.detail


def test_gemini_reads_a_failure_under_its_error_key(e2e: E2E) -> None:
    e2e.project.write("evals/w.yaml", _eval(_tools_script(e2e)))
    received = _scripted(e2e, [ToolCalls((FunctionCall("flaky", {}, "c1"),)), Text("It is down.")])
    result = e2e.run("eval", "evals/w.yaml", "--target", "ge", "--out", "results.jsonl")

    assert result.code == 0, result.err + result.out
    [part] = received[1].json["contents"][-1]["parts"]
    assert part["functionResponse"]["response"] == {"error": "the service is down"}


def test_gemini_gets_back_each_calls_thought_signature_as_it_came(e2e: E2E) -> None:
    e2e.project.write("evals/w.yaml", _eval(_tools_script(e2e)))
    calls = ToolCalls(
        (
            FunctionCall("flaky", {}, "c1", signature="c2lnLW9uZQ=="),
            FunctionCall("flaky", {"again": True}, "c2"),  # parallel: only the first is signed
        )
    )
    received = _scripted(e2e, [calls, Text("It is down.")])
    result = e2e.run("eval", "evals/w.yaml", "--target", "ge", "--out", "results.jsonl")

    assert result.code == 0, result.err + result.out
    model = received[1].json["contents"][-2]
    assert model["role"] == "model"
    assert [p.get("thoughtSignature") for p in model["parts"]] == ["c2lnLW9uZQ==", None]
    row = _row(e2e)
    assert [c.signature for c in row.tool_calls or ()] == ["c2lnLW9uZQ==", None]


def test_max_steps_ends_the_loop_as_an_error_row_that_keeps_its_steps(e2e: E2E) -> None:
    text = _eval(
        _tools_script(e2e),
        "\n    max_steps: 3\n    execution:\n      evaluators:\n"
        "        - {name: called, type: tool_called, tool: weather}",
    )
    e2e.project.write("evals/w.yaml", text)
    received = _scripted(e2e, [ToolCalls((FunctionCall("weather", {"city": "Lisbon"}),))])
    result = e2e.run("eval", "evals/w.yaml", "--target", "oa", "--out", "results.jsonl")

    assert result.code == 1, result.err + result.out
    assert len(received) == 3
    row = _row(e2e)
    assert (row.status, row.score, row.passed) == ("error", None, None)
    assert row.error is not None
    assert row.error.type == "max_steps"
    assert "after 3 requests" in row.error.message
    assert row.steps is not None
    assert [s.step for s in row.steps] == [1, 2, 3]
    assert row.steps[-1].tool_calls, "the last step still called"
    assert row.steps[-1].tool_results is None, "and its calls went unanswered"
    assert [r.score for r in row.evaluator_results or ()] == [1.0], "its verdicts are kept"


def test_a_case_without_implementations_makes_one_request(e2e: E2E) -> None:
    e2e.project.write(
        "evals/one.yaml",
        "tools:\n  - {name: weather, parameters: {type: object}}\n"
        "evalcases:\n  - id: one\n    expected_outcome: o\n    input: Weather?\n"
        "    execution: {evaluators: [{name: w, type: tool_called, tool: weather}]}\n",
    )
    received = _scripted(e2e, [ToolCalls((FunctionCall("weather", {}),))])
    result = e2e.run("eval", "evals/one.yaml", "--target", "oa", "--out", "results.jsonl")

    assert result.code == 0, result.err + result.out
    assert len(received) == 1
    row = _row(e2e)
    assert row.steps is None
    assert [c.name for c in row.tool_calls or ()] == ["weather"]


def test_the_cache_replays_every_step_and_repeats_are_apart(e2e: E2E) -> None:
    e2e.project.write("evals/w.yaml", _eval(_tools_script(e2e)))
    script = [ToolCalls((FunctionCall("weather", {"city": "Lisbon"}, "c1"),)), Text("21 C.")]

    def answer(request: ReceivedRequest) -> Any:
        has_result = any(m["role"] == "tool" for m in request.json["messages"])
        return script[1] if has_result else script[0]

    e2e.server.responder = answer
    args = ("eval", "evals/w.yaml", "--target", "oa", "--cache", "--repeat", "2")
    first = e2e.run(*args, "--out", "first.jsonl")
    assert first.code == 0, first.err + first.out
    assert len(e2e.server.requests) == 4, "two repeats of two steps"
    e2e.server.requests.clear()

    second = e2e.run(*args, "--out", "second.jsonl")
    assert second.code == 0, second.err + second.out
    assert not e2e.server.requests, "every step came from the cache"
    rows = [ResultRow.model_validate(r) for r in e2e.rows("second.jsonl")]
    assert sorted(r.repeat for r in rows) == [0, 1]
    for row in rows:
        assert row.cache == "hit"
        assert [s.cache for s in row.steps or ()] == ["hit", "hit"]
        assert row.candidate_answer == "21 C."


def test_a_live_conversation_carries_each_turns_loop(e2e: E2E) -> None:
    e2e.project.write(
        "evals/c.yaml",
        f"""tools:
  - name: weather
    parameters: {{type: object, properties: {{city: {{type: string}}}}}}
    command: {json.dumps(_tools_script(e2e))}
evalcases:
  - id: talk
    expected_outcome: Answers both.
    turns:
      - content: Weather in Lisbon?
      - content: And in Porto?
    execution:
      evaluators:
        - {{name: both, type: tool_sequence, calls: [weather, weather], mode: exact}}
""",
    )

    def answer(request: ReceivedRequest) -> Any:
        messages = request.json["messages"]
        if messages[-1]["role"] == "tool":
            return Text(f"It is 21 C ({len(messages)}).")
        city = "Lisbon" if len(messages) < 4 else "Porto"
        return ToolCalls((FunctionCall("weather", {"city": city}, f"c-{city}"),))

    e2e.server.responder = answer
    result = e2e.run("eval", "evals/c.yaml", "--target", "oa", "--out", "results.jsonl")

    assert result.code == 0, result.err + result.out
    bodies = [r.json for r in e2e.server.requests]
    assert len(bodies) == 4
    second_turn = bodies[2]["messages"]
    assert [m["role"] for m in second_turn] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ], "turn 2 carries turn 1's calls and results"
    row = _row(e2e)
    assert (row.status, row.score) == ("ok", 1.0)
    turns = row.turns or ()
    assert [len(t.steps or ()) for t in turns] == [2, 2]
    from evalwright.results.turn_requests import full_turns

    whole = list(full_turns(turns))
    sent = [
        s.wire_request.body
        for t in whole
        for s in t.steps or ()
        if isinstance(s.wire_request, ChatWireRequest)
    ]
    assert sent == bodies, "every step's request rebuilds to what the server received"


def test_resume_reruns_a_loop_that_did_not_finish(e2e: E2E) -> None:
    e2e.project.write("evals/w.yaml", _eval(_tools_script(e2e)))
    calls = ToolCalls((FunctionCall("weather", {"city": "Lisbon"}, "c1"),))
    _scripted(e2e, [calls, Fault(400)])
    first = e2e.run("eval", "evals/w.yaml", "--target", "oa", "--out", "results.jsonl")
    assert first.code == 1
    row = _row(e2e)
    assert row.status == "error"
    assert [s.step for s in row.steps or ()] == [1], "the step before the failure is kept"

    e2e.server.requests.clear()
    _scripted(e2e, [calls, Text("21 C.")])
    again = e2e.run("eval", "evals/w.yaml", "--target", "oa", "--resume", "results.jsonl")
    assert again.code == 0, again.err + again.out
    rows = [ResultRow.model_validate(r) for r in e2e.rows("results.jsonl")]
    assert rows[-1].status == "ok"
    assert rows[-1].candidate_answer == "21 C."
    assert [s.step for s in rows[-1].full_steps()] == [1, 2]


def test_max_cost_stops_a_loop_between_steps_and_resume_reruns_it(e2e: E2E) -> None:
    # At $1 per million input tokens, output free: a step's worst case is its body's bytes
    # and 1024 tokens; the first step reports 1000 tokens ($0.001). The budget lets the
    # first step go but not the second (its worst case on top of what the first spent).
    targets = e2e.root / ".evalwright/targets.yaml"
    priced = (
        "  - name: priced\n    provider: openai\n    model: m\n"
        f"    base_url: {e2e.server.url}/v1\n"
        "    price: {input: 1, output: 0}\n"
    )
    targets.write_text(targets.read_text(encoding="utf-8") + priced, encoding="utf-8")
    e2e.project.write("evals/w.yaml", _eval(_tools_script(e2e)))
    calls = ToolCalls((FunctionCall("weather", {"city": "Lisbon"}, "c1"),))
    received = _scripted(e2e, [calls, Text("21 C.")])
    probe = e2e.run("eval", "evals/w.yaml", "--target", "priced", "--out", "probe.jsonl")
    assert probe.code == 0, probe.err
    first_worst = (len(received[0].body) + 1024) / 1e6
    received.clear()
    e2e.server.requests.clear()
    e2e.server.responder = lambda r: (
        received.append(r) or (calls if len(received) == 1 else Text("21 C."))
    )
    budget = f"{first_worst + 0.0002:.6f}"
    stopped = e2e.run("eval", "evals/w.yaml", "--target", "priced", "--max-cost", budget,
                      "--out", "results.jsonl")  # fmt: skip

    assert stopped.code == 1, stopped.err + stopped.out
    assert len(received) == 1, "the second step was never sent"
    assert "stopped by --max-cost" in stopped.err
    received.clear()
    again = e2e.run("eval", "evals/w.yaml", "--target", "priced", "--resume", "results.jsonl")
    assert again.code == 0, again.err + again.out
    assert len(received) == 2, "the unfinished case ran again, both steps"
    ok = [ResultRow.model_validate(r) for r in e2e.rows("results.jsonl") if r["status"] == "ok"]
    assert [row.candidate_answer for row in ok] == ["21 C."]
