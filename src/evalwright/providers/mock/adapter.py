"""The ``mock`` provider: fixed answers, per-case answers or scripts of tool calls, and a fixed
judge verdict (docs/targets.md#mock-offline-answers)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from evalwright.prompts import ChatMessage
from evalwright.providers.base import (
    PreparedRequest,
    Provider,
    ProviderContext,
    ProviderRequest,
    ProviderResponse,
)
from evalwright.providers.sampling import tool_declaration
from evalwright.providers.wire import AnswerToolCall, MockWireRequest
from evalwright.targets.models import MockStep, MockTarget

DEFAULT_RESPONSE = "This is a mock answer."
DEFAULT_VERDICT = json.dumps({"score": 1, "hits": [], "misses": [], "reasoning": "mock judge"})


class MockProvider(Provider):
    """Answers without a network; records the messages it would have sent."""

    kind = "mock"

    def __init__(self, target: MockTarget, context: ProviderContext) -> None:
        super().__init__(target, context)
        self.mock = target

    def prepare(self, request: ProviderRequest) -> PreparedRequest:
        """The messages, and the tools when the request offers some, as the wire request: no
        API mapping, so no notes of its own."""
        body: dict[str, Any] = {"messages": [m.to_json() for m in request.messages]}
        if request.tools:
            body["tools"] = [tool_declaration(tool, "parameters") for tool in request.tools]
        wire = MockWireRequest.model_construct(api="mock", model="mock", url_path=None, body=body)
        return PreparedRequest(request, wire, self.request_notes(request))

    def answer(self, request: ProviderRequest) -> str:
        """The configured text for this request."""
        if request.purpose == "judge":
            return self.mock.judge_response or DEFAULT_VERDICT
        if request.purpose == "simulator":  # one turn, then done: a dry run stays short
            done = len(request.messages) > 2
            return json.dumps({"message": DEFAULT_RESPONSE, "done": done})
        if self.mock.responses and request.case_id in self.mock.responses:
            return self.mock.responses[request.case_id]
        return DEFAULT_RESPONSE if self.mock.response is None else self.mock.response

    def scripted(self, request: ProviderRequest) -> MockStep | None:
        """The step of the case's script that answers ``request``: step k when its
        conversation holds k assistant turns with tool calls after its last user turn; none
        without a script, for a judge or simulator, or past the script's end."""
        script = self.mock.scripts.get(request.case_id) if self.mock.scripts else None
        if script is None or request.purpose != "candidate":
            return None
        step = _steps_taken(request.messages)
        return script[step] if step < len(script) else None

    async def send(self, prepared: PreparedRequest) -> ProviderResponse:
        """Wait ``delay_ms``, then answer: the script's step for this request, else text."""
        if self.mock.delay_ms:
            await asyncio.sleep(self.mock.delay_ms / 1000)
        step = self.scripted(prepared.request)
        calls = _calls(step, prepared.request.messages) if step is not None else ()
        return ProviderResponse(
            text=self.answer(prepared.request) if step is None else step.content,
            finish_reason="tool_calls" if calls else "stop",
            usage=None,
            latency_ms=self.mock.delay_ms,
            wire_request=prepared.wire,
            delivery_notes=prepared.notes,
            tool_calls=calls,
        )


def _steps_taken(messages: tuple[ChatMessage, ...]) -> int:
    """How many assistant turns with tool calls come after the last user turn."""
    taken = 0
    for message in reversed(messages):
        if message.role == "user":
            break
        if message.role == "assistant" and message.tool_calls:
            taken += 1
    return taken


def _calls(step: MockStep, messages: tuple[ChatMessage, ...]) -> tuple[AnswerToolCall, ...]:
    """The step's calls with ids ``call_N``, numbered on from the calls the conversation
    holds, skipping any id it already uses (so ids stay unique within a case). The
    arguments are the script's object, as Anthropic and Gemini return theirs."""
    used = {call.id for message in messages for call in message.tool_calls}
    number = len(used)
    calls: list[AnswerToolCall] = []
    for call in step.tool_calls or ():
        number += 1
        while f"call_{number}" in used:
            number += 1
        calls.append(
            AnswerToolCall(
                id=f"call_{number}",
                name=call.name,
                raw_arguments=call.arguments,
                arguments=call.arguments,
            )
        )
    return tuple(calls)
