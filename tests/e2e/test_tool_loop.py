"""The tool loop end to end (docs/tools.md#the-tool-loop), on a small tau-bench-like airline
domain: four tools with JSON Schema parameters and scripted results, a fake model that looks
the user up, then reads a reservation and searches flights in one step (parallel calls), then
changes the reservation, then answers.

On openai, azure, anthropic and gemini, and on openai and azure with ``api: responses``: every
request passes the vendor's oracle (the OpenAPI document, the openai, Anthropic and
google-genai SDK types); each step's conversation is exactly the
previous step's plus the model's calls (their arguments as the API wrote them) and the
results, paired by id; the row holds every step, and its stored requests rebuild to the
bodies the server received."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalwright.providers.wire import ChatWireRequest
from evalwright.results.row import ResultRow
from evalwright.testing import FunctionCall, ReceivedRequest, Text, ToolCalls
from tests.e2e.harness import E2E, with_more_targets
from tests.providers.test_oracles import (
    gemini_tool_config_known,
    materialize,
    openapi_validator,
)

EVAL_FILE = "evals/airline.yaml"
EVAL = """tools:
  - name: get_user_details
    description: The user's profile and reservations.
    parameters:
      type: object
      properties: {user_id: {type: string}}
      required: [user_id]
    results:
      - when: {user_id: mia_li_3668}
        result: {name: Mia Li, reservations: [NO6JO3]}
      - error: user not found
  - name: get_reservation_details
    parameters:
      type: object
      properties: {reservation_id: {type: string}}
      required: [reservation_id]
    results:
      - when: {reservation_id: NO6JO3}
        result: {origin: JFK, destination: SEA, flights: [HAT100], cabin: economy}
  - name: search_direct_flight
    parameters:
      type: object
      properties:
        origin: {type: string}
        destination: {type: string}
        date: {type: string, format: date}
      required: [origin, destination, date]
    results:
      - when: {origin: JFK, destination: SEA}
        result: [{flight: HAT083, departs: "08:00"}]
      - result: []
  - name: update_reservation_flights
    parameters:
      type: object
      properties:
        reservation_id: {type: string}
        flights: {type: array, items: {type: string}}
      required: [reservation_id, flights]
    result: reservation updated
execution:
  evaluators:
    - name: order
      type: tool_sequence
      calls: [get_user_details, get_reservation_details, update_reservation_flights]
    - name: updated
      type: tool_called
      tool: update_reservation_flights
      arguments: {flights: [HAT083]}
    - {name: says, type: contains, value: HAT083}
evalcases:
  - id: change-flight
    expected_outcome: Moves reservation NO6JO3 to flight HAT083.
    input: I'm mia_li_3668. Move my JFK-SEA trip to the first direct flight on 2024-05-20.
"""
# OpenAI-form arguments as a model may write them (spaces, key order): sent back as written.
SCRIPT: list[ToolCalls | Text] = [
    ToolCalls(
        (
            FunctionCall(
                "get_user_details", '{"user_id": "mia_li_3668"}', "c1", signature="c2lnLTE="
            ),
        )
    ),
    ToolCalls(
        (
            FunctionCall("get_reservation_details", {"reservation_id": "NO6JO3"}, "c2"),
            FunctionCall(
                "search_direct_flight",
                '{"origin":"JFK", "destination":"SEA", "date":"2024-05-20"}',
                "c3",
            ),
        ),
        text="Let me look.",
    ),
    ToolCalls(
        (
            FunctionCall(
                "update_reservation_flights",
                {"flights": ["HAT083"], "reservation_id": "NO6JO3"},
                "c4",
            ),
        )
    ),
    Text("Done: NO6JO3 now flies HAT083 on 2024-05-20."),
]
RESULTS = [
    [("c1", '{"name": "Mia Li", "reservations": ["NO6JO3"]}')],
    [
        (
            "c2",
            '{"origin": "JFK", "destination": "SEA", "flights": ["HAT100"], "cabin": "economy"}',
        ),
        ("c3", '[{"flight": "HAT083", "departs": "08:00"}]'),
    ],
    [("c4", "reservation updated")],
]
TARGETS = ("oa", "az", "an", "ge", "oa-responses", "az-responses")
RESPONSES_TARGETS = """  - name: oa-responses
    provider: openai
    model: gpt-test
    base_url: {url}/v1
    api: responses
  - name: az-responses
    provider: azure
    endpoint: {url}
    deployment: dep-test
    api: responses
"""
CONVERSATION_KEYS = ("messages", "contents", "input")


def _conversation(target: str, body: dict[str, Any]) -> list[Any]:
    if target.endswith("-responses"):
        return body["input"]
    return body["contents"] if target == "ge" else body["messages"]


def _added_items(answer: ToolCalls, results: list[tuple[str, str]]) -> list[Any]:
    """The Responses API's form: the text, each call by its ``call_id``, each output."""
    items: list[Any] = (
        [{"type": "message", "role": "assistant", "content": answer.text}] if answer.text else []
    )
    items += [
        {
            "type": "function_call",
            "call_id": c.call_id,
            "name": c.name,
            "arguments": c.arguments_json(),
        }
        for c in answer.calls
    ]
    outputs = [{"type": "function_call_output", "call_id": i, "output": t} for i, t in results]
    return items + outputs


def _added(target: str, step: int) -> list[Any]:
    """What step ``step + 1``'s conversation adds to step ``step``'s, in the API's form."""
    answer, results = SCRIPT[step - 1], RESULTS[step - 1]
    assert isinstance(answer, ToolCalls)
    calls = answer.calls
    if target.endswith("-responses"):
        return _added_items(answer, results)
    if target == "an":
        blocks: list[Any] = [{"type": "text", "text": answer.text}] if answer.text else []
        blocks += [
            {"type": "tool_use", "id": c.call_id, "name": c.name, "input": c.arguments_object()}
            for c in calls
        ]
        answers = [{"type": "tool_result", "tool_use_id": i, "content": t} for i, t in results]
        return [{"role": "assistant", "content": blocks}, {"role": "user", "content": answers}]
    if target == "ge":
        parts: list[Any] = [{"text": answer.text}] if answer.text else []
        # Each call's part goes back with the signature it came with (Gemini's), if any.
        parts += [
            {
                "functionCall": {"id": c.call_id, "name": c.name, "args": c.arguments_object()},
                **({"thoughtSignature": c.signature} if c.signature else {}),
            }
            for c in calls
        ]
        responses = [
            {"functionResponse": {"id": i, "name": c.name, "response": {"output": t}}}
            for c, (i, t) in zip(calls, results, strict=True)
        ]
        return [{"role": "model", "parts": parts}, {"role": "user", "parts": responses}]
    assistant = {
        "role": "assistant",
        "content": answer.text,
        "tool_calls": [
            {
                "id": c.call_id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments_json()},
            }
            for c in calls
        ],
    }
    tools = [{"role": "tool", "tool_call_id": i, "content": t} for i, t in results]
    return [assistant, *tools]


def _check_oracle(target: str, body: dict[str, Any]) -> None:
    if target.endswith("-responses"):
        from openai.types.responses.response_create_params import (
            ResponseCreateParamsNonStreaming,
        )
        from pydantic import TypeAdapter

        errors = [e.message for e in openapi_validator("CreateResponse").iter_errors(body)]
        assert not errors, errors
        sdk: TypeAdapter[Any] = TypeAdapter(ResponseCreateParamsNonStreaming)
        assert materialize(sdk.validate_python(body)) == body
    elif target in ("oa", "az"):
        errors = [
            e.message for e in openapi_validator("CreateChatCompletionRequest").iter_errors(body)
        ]
        assert not errors, errors
    elif target == "an":
        from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
        from pydantic import TypeAdapter

        adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
        assert materialize(adapter.validate_python(body)) == body
    else:
        from google.genai import types

        for content in body["contents"]:
            types.Content.model_validate(content)
        for tool in body["tools"]:
            types.Tool.model_validate(tool)
        if "toolConfig" in body:
            assert gemini_tool_config_known(body["toolConfig"])


@pytest.mark.parametrize("target", TARGETS)
def test_the_airline_scenario_runs_the_loop_exactly(e2e: E2E, target: str) -> None:
    with_more_targets(e2e)
    targets = e2e.root / ".evalwright/targets.yaml"
    extra = RESPONSES_TARGETS.format(url=e2e.server.url)
    targets.write_text(targets.read_text(encoding="utf-8") + extra, encoding="utf-8")
    e2e.project.write(EVAL_FILE, EVAL)
    received: list[ReceivedRequest] = []

    def answer(request: ReceivedRequest) -> ToolCalls | Text:
        received.append(request)
        return SCRIPT[len(received) - 1]

    e2e.server.responder = answer
    result = e2e.run("eval", EVAL_FILE, "--target", target, "--out", "results.jsonl")

    assert result.code == 0, result.err + result.out
    bodies = [json.loads(r.body) for r in received]
    assert len(bodies) == 4
    for body in bodies:
        _check_oracle(target, body)
    for step in range(1, 4):
        before, after = _conversation(target, bodies[step - 1]), _conversation(target, bodies[step])
        assert after == before + _added(target, step), f"step {step + 1}"
        assert {k: v for k, v in bodies[step].items() if k not in CONVERSATION_KEYS} == {
            k: v for k, v in bodies[0].items() if k not in CONVERSATION_KEYS
        }, "every step offers the same tools and settings"

    [data] = e2e.rows("results.jsonl")
    row = ResultRow.model_validate(data)
    assert (row.status, row.score) == ("ok", 1.0)
    assert row.candidate_answer == "Done: NO6JO3 now flies HAT083 on 2024-05-20."
    assert [c.id for c in row.tool_calls or ()] == ["c1", "c2", "c3", "c4"]
    assert isinstance(row.wire_request, ChatWireRequest)
    assert row.wire_request.body == bodies[0]
    steps = row.full_steps()
    assert [s.step for s in steps] == [1, 2, 3, 4]
    sent = [s.wire_request for s in steps]
    assert [w.body if isinstance(w, ChatWireRequest) else None for w in sent] == bodies
    answered = [[(r.tool_call_id, r.content) for r in s.tool_results or ()] for s in steps]
    assert answered == [*RESULTS, []]
    assert [r.source for r in steps[1].tool_results or ()] == ["results", "results"]
    assert [r.source for r in steps[2].tool_results or ()] == ["result"]
    assert row.latency_ms == pytest.approx(sum(s.latency_ms for s in steps), abs=0.01)
    if row.usage is not None:
        assert row.usage.input_tokens == sum(s.usage.input_tokens or 0 for s in steps if s.usage)
