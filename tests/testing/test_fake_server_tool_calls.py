"""The fake server's tool-call answers (``ToolCalls``): text beside parallel calls, in each
API's exact response shape, each body read by the vendor SDK's own response model."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
from anthropic.types import Message
from google.genai import types as genai_types
from mistralai.client.models import ChatCompletionResponse as MistralResponse
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from evalwright.testing import FakeServer, FunctionCall, ToolCalls

WEATHER = {"city": "Paris", "unit": "c"}
TIME = {"zone": "CET"}
ANSWER = ToolCalls(
    (FunctionCall("get_weather", WEATHER, call_id="c1"), FunctionCall("get_time", TIME, "c2")),
    text="Checking both.",
)
ROUTES = {
    "openai": "/v1/chat/completions",
    "azure": "/openai/deployments/d/chat/completions",
    "anthropic": "/v1/messages",
    "gemini": "/v1beta/models/g:generateContent",
    "responses": "/v1/responses",
}


def answered(api: str, answer: ToolCalls) -> dict[str, Any]:
    """The body the fake server answers ``answer`` with on ``api``."""

    async def scenario() -> dict[str, Any]:
        async with FakeServer() as server:
            server.enqueue(answer)
            async with (
                aiohttp.ClientSession() as session,
                session.post(server.url + ROUTES[api], json={"model": "m"}) as response,
            ):
                assert response.status == 200
                return await response.json()

    return asyncio.run(scenario())


def test_chat_completions_carry_text_and_parallel_calls() -> None:
    for api in ("openai", "azure"):
        message = ChatCompletion.model_validate(answered(api, ANSWER)).choices[0]
        assert message.finish_reason == "tool_calls"
        assert message.message.content == "Checking both."
        calls = [
            (c.id, c.function.name, json.loads(c.function.arguments))
            for c in message.message.tool_calls or []
            if c.type == "function"
        ]
        assert calls == [("c1", "get_weather", WEATHER), ("c2", "get_time", TIME)]
        # Mistral's chat completion is the same shape; its SDK reads it too.
        assert MistralResponse.model_validate(answered(api, ANSWER)).choices[0].message


def test_anthropic_carries_a_text_block_then_tool_use_blocks() -> None:
    message = Message.model_validate(answered("anthropic", ANSWER))
    assert message.stop_reason == "tool_use"
    assert [block.type for block in message.content] == ["text", "tool_use", "tool_use"]
    uses = [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"]
    assert uses == [("c1", "get_weather", WEATHER), ("c2", "get_time", TIME)]


def test_gemini_carries_function_call_parts_with_ids_only_when_given() -> None:
    no_ids = ToolCalls((FunctionCall("get_weather", WEATHER), FunctionCall("get_time", TIME)))
    for answer, ids in ((ANSWER, ["c1", "c2"]), (no_ids, [None, None])):
        body = genai_types.GenerateContentResponse.model_validate(answered("gemini", answer))
        assert body.candidates
        assert body.candidates[0].content
        parts = body.candidates[0].content.parts or []
        calls = [p.function_call for p in parts if p.function_call]
        assert [(c.id, c.name, c.args) for c in calls] == [
            (ids[0], "get_weather", WEATHER),
            (ids[1], "get_time", TIME),
        ]
        texts = [p.text for p in parts if p.text]
        assert texts == (["Checking both."] if answer.text else [])
        assert body.candidates[0].finish_reason == "STOP"


def test_responses_api_carries_a_message_then_function_call_items() -> None:
    response = Response.model_validate(answered("responses", ANSWER))
    assert [item.type for item in response.output] == ["message", "function_call", "function_call"]
    calls = [(i.call_id, i.name, i.arguments) for i in response.output if i.type == "function_call"]
    assert calls == [
        ("c1", "get_weather", json.dumps(WEATHER, separators=(",", ":"))),
        ("c2", "get_time", json.dumps(TIME, separators=(",", ":"))),
    ]
