"""The offline mock: a fixed answer, per-case answers, scripts of tool calls, a judge verdict,
an optional delay."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from evalwright.evalfile.messages import ToolCall
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderContext, ProviderRequest, ProviderResponse
from evalwright.providers.http import HttpPool
from evalwright.providers.mock.adapter import DEFAULT_RESPONSE, MockProvider
from evalwright.targets.models import MockTarget
from evalwright.targets.tools import ToolSpec
from tests.providers.wire_cases import ask as send_once

MESSAGES = (ChatMessage(role="user", content="hi"),)


def mock(target: MockTarget) -> MockProvider:
    return MockProvider(target, ProviderContext(Path.cwd(), HttpPool()))


def ask(target: MockTarget, case_id: str = "c", purpose: str = "candidate") -> str:
    request = ProviderRequest(
        case_id=case_id, messages=MESSAGES, purpose="judge" if purpose == "judge" else "candidate"
    )
    return asyncio.run(send_once(mock(target), request)).text


def test_answers() -> None:
    plain = MockTarget(name="m", provider="mock")
    assert ask(plain) == DEFAULT_RESPONSE
    assert json.loads(ask(plain, purpose="judge"))["score"] == 1
    scripted = MockTarget(
        name="m",
        provider="mock",
        response="fixed",
        responses={"x": "for x"},
        judge_response='{"score": 0.2}',
    )
    assert ask(scripted, "x") == "for x"
    assert ask(scripted, "y") == "fixed"
    assert ask(scripted, purpose="judge") == '{"score": 0.2}'


def test_delay_and_recorded_messages() -> None:
    target = MockTarget(name="m", provider="mock", delay_ms=50)
    started = time.monotonic()
    response = asyncio.run(send_once(mock(target), ProviderRequest(case_id="c", messages=MESSAGES)))
    assert time.monotonic() - started >= 0.045
    assert response.latency_ms == 50
    assert response.wire_request.model_dump(mode="json")["body"] == {
        "messages": [{"role": "user", "content": "hi"}]
    }


# --- scripts: tool calls, step by step (docs/targets.md#mock-offline-answers) ------------

SCRIPTED = MockTarget.model_validate(
    {
        "name": "m",
        "provider": "mock",
        "response": "past the script",
        "scripts": {
            "c": [
                {
                    "tool_calls": [
                        {"name": "find", "arguments": {"q": "a"}},
                        {"name": "find", "arguments": {"q": "b"}},
                    ]
                },
                {"content": "Booking.", "tool_calls": [{"name": "book"}]},
                {"content": "Booked."},
            ]
        },
    }
)


def _call(call_id: str, name: str = "find") -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments={})


def _step(*call_ids: str) -> tuple[ChatMessage, ...]:
    """An assistant turn with calls ``call_ids``, then their results."""
    calls = tuple(_call(i) for i in call_ids)
    results = (ChatMessage(role="tool", content="r", tool_call_id=i) for i in call_ids)
    return (ChatMessage(role="assistant", content="", tool_calls=calls), *results)


def answer(
    target: MockTarget, messages: tuple[ChatMessage, ...], case_id: str = "c"
) -> ProviderResponse:
    request = ProviderRequest(case_id=case_id, messages=messages)
    return asyncio.run(send_once(mock(target), request))


def called(response: ProviderResponse) -> list[tuple[str, str, object]]:
    return [(c.id, c.name, c.raw_arguments) for c in response.tool_calls]


def test_a_script_plays_one_step_per_round_of_calls() -> None:
    first = answer(SCRIPTED, MESSAGES)
    assert (first.text, first.finish_reason) == ("", "tool_calls")
    assert called(first) == [("call_1", "find", {"q": "a"}), ("call_2", "find", {"q": "b"})]
    assert [c.arguments for c in first.tool_calls] == [{"q": "a"}, {"q": "b"}]

    second = answer(SCRIPTED, (*MESSAGES, *_step("call_1", "call_2")))
    assert second.text == "Booking."
    assert called(second) == [("call_3", "book", {})]

    third = answer(SCRIPTED, (*MESSAGES, *_step("call_1", "call_2"), *_step("call_3")))
    assert (third.text, third.finish_reason, third.tool_calls) == ("Booked.", "stop", ())


def test_steps_count_from_the_last_user_turn() -> None:
    # An earlier exchange's calls are history: a new user turn starts the script again, and
    # the new calls' ids go on from the ones the conversation holds.
    history = (*MESSAGES, *_step("call_1", "call_2"), ChatMessage(role="user", content="again"))
    response = answer(SCRIPTED, history)
    assert called(response) == [("call_3", "find", {"q": "a"}), ("call_4", "find", {"q": "b"})]


def test_ids_skip_the_ones_the_conversation_uses() -> None:
    authored = (*MESSAGES, *_step("call_2", "x"), ChatMessage(role="user", content="more"))
    assert [c.id for c in answer(SCRIPTED, authored).tool_calls] == ["call_3", "call_4"]
    taken = (*MESSAGES, *_step("call_3"), ChatMessage(role="user", content="more"))
    assert [c.id for c in answer(SCRIPTED, taken).tool_calls] == ["call_2", "call_4"]


def test_past_the_script_and_without_one_the_mock_answers_text() -> None:
    past = answer(SCRIPTED, (*MESSAGES, *_step("call_1"), *_step("call_2"), *_step("call_3")))
    assert (past.text, past.tool_calls) == ("past the script", ())
    other = answer(SCRIPTED, MESSAGES, case_id="other")
    assert (other.text, other.finish_reason, other.tool_calls) == ("past the script", "stop", ())
    assert json.loads(ask(SCRIPTED, "c", purpose="judge"))["score"] == 1


def test_the_tools_offered_are_recorded() -> None:
    tool = ToolSpec(
        name="find",
        description="Finds.",
        parameters={"type": "object", "properties": {"q": {"type": "string"}}},
        result="found",
    )
    request = ProviderRequest(case_id="c", messages=MESSAGES, tools=(tool,))
    body = mock(SCRIPTED).prepare(request).wire.model_dump(mode="json")["body"]
    assert body == {
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {
                "name": "find",
                "description": "Finds.",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            }
        ],
    }
