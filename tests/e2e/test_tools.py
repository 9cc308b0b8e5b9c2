"""Tools end to end (docs/tools.md): tools declared in an eval file reach each chat API's
request in its own form, the model's calls come back into the row, and the trajectory
evaluators score them, on openai, azure, mistral, anthropic and gemini."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalwright.testing import FunctionCall, ReceivedRequest, ToolCalls
from tests.e2e.harness import CHAT_TARGETS, E2E, with_more_targets

EVAL_FILE = "evals/airline.yaml"
EVAL = """tools:
  - name: search_flights
    description: Flights between two airports on a day.
    parameters:
      type: object
      properties:
        origin: {type: string}
        destination: {type: string}
        date: {type: string}
      required: [origin, destination, date]
  - name: book_reservation
    parameters:
      type: object
      properties: {flight: {type: string}}
      required: [flight]
  - name: cancel_reservation
    parameters: {type: object, properties: {reservation: {type: string}}}
execution:
  evaluators:
    - {name: searched, type: tool_called, tool: search_flights, arguments: {origin: SFO}}
    - {name: search-then-book, type: tool_sequence, calls: [search_flights, book_reservation]}
    - {name: f1, type: tool_call_f1, calls: [search_flights, book_reservation]}
    - {name: never-cancels, type: tool_called, tool: cancel_reservation, negate: true}
evalcases:
  - id: book
    expected_outcome: Searches, then books.
    input: Book the first flight from SFO to JFK on 2026-05-03.
    settings:
      tool_choice: required
"""
CALLS = ToolCalls(
    (
        FunctionCall(
            "search_flights", {"origin": "SFO", "destination": "JFK", "date": "2026-05-03"}, "c1"
        ),
        FunctionCall("book_reservation", {"flight": "UA1"}, "c2"),
    )
)


def _offered(target: str, body: dict[str, Any]) -> tuple[list[str], Any]:
    """The tool names a request offers and its tool choice, read in the API's own form."""
    if target == "an":
        return [t["name"] for t in body["tools"]], body["tool_choice"]
    if target == "ge":
        [group] = body["tools"]
        names = [d["name"] for d in group["functionDeclarations"]]
        return names, body["toolConfig"]["functionCallingConfig"]
    return [t["function"]["name"] for t in body["tools"]], body["tool_choice"]


CHOICE = {"an": {"type": "any"}, "ge": {"mode": "ANY"}}


@pytest.mark.parametrize("target", CHAT_TARGETS)
def test_declared_tools_are_sent_called_and_scored(e2e: E2E, target: str) -> None:
    with_more_targets(e2e)
    e2e.project.write(EVAL_FILE, EVAL)
    received: list[ReceivedRequest] = []

    def answer(request: ReceivedRequest) -> ToolCalls:
        received.append(request)
        return CALLS

    e2e.server.responder = answer
    result = e2e.run("eval", EVAL_FILE, "--target", target, "--out", "results.jsonl")

    assert result.code == 0, result.err + result.out
    [request] = received
    sent = json.loads(request.body)
    names, choice = _offered(target, sent)
    assert names == ["search_flights", "book_reservation", "cancel_reservation"]
    assert choice == CHOICE.get(target, "required")
    [row] = e2e.rows("results.jsonl")
    assert row["wire_request"]["body"] == sent, "the row records the body the server received"
    assert [c["name"] for c in row["tool_calls"]] == ["search_flights", "book_reservation"]
    scores = {r["name"]: r["score"] for r in row["evaluator_results"]}
    assert scores == {"searched": 1.0, "search-then-book": 1.0, "f1": 1.0, "never-cancels": 1.0}
    assert (row["status"], row["score"]) == ("ok", 1.0)


def test_a_wrong_trajectory_fails_its_checks(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.responder = lambda _: ToolCalls(
        (
            FunctionCall("book_reservation", {"flight": "UA1"}, "c1"),
            FunctionCall("cancel_reservation", {"reservation": "R1"}, "c2"),
        )
    )
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    assert result.code == 1, result.err + result.out
    [row] = e2e.rows("results.jsonl")
    scores = {r["name"]: r["score"] for r in row["evaluator_results"]}
    assert scores["searched"] == 0.0
    assert scores["search-then-book"] == 0.0
    assert scores["f1"] == pytest.approx(0.5)
    assert scores["never-cancels"] == 0.0
