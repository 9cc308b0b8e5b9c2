"""The fake server's answers have each API's real shape: the official SDKs parse them.

Each body is also validated with the SDK's own pydantic model (``model_validate``), which checks
required fields and types where the SDK's lazy parsing would not.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from typing import Any

import aiohttp
import anthropic
import openai
import pytest
from anthropic.types import Message, MessageParam
from google import genai
from google.genai import types as genai_types
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseInProgressEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
)
from pydantic import BaseModel

from evalwright.testing import Blocked, FakeServer, Fault, FunctionCall, Text

STREAM_EVENT_MODELS: dict[str, type[BaseModel]] = {
    "response.created": ResponseCreatedEvent,
    "response.in_progress": ResponseInProgressEvent,
    "response.output_item.added": ResponseOutputItemAddedEvent,
    "response.content_part.added": ResponseContentPartAddedEvent,
    "response.output_text.delta": ResponseTextDeltaEvent,
    "response.output_text.done": ResponseTextDoneEvent,
    "response.content_part.done": ResponseContentPartDoneEvent,
    "response.function_call_arguments.delta": ResponseFunctionCallArgumentsDeltaEvent,
    "response.function_call_arguments.done": ResponseFunctionCallArgumentsDoneEvent,
    "response.output_item.done": ResponseOutputItemDoneEvent,
    "response.completed": ResponseCompletedEvent,
}
SHELL_ARGS = {"command": ["bash", "-lc", "echo hi"]}
OPENAI_USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]
ANTHROPIC_USER: list[MessageParam] = [{"role": "user", "content": "hi"}]


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


async def post_json(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    async with aiohttp.ClientSession() as session, session.post(url, json=body) as response:
        return response.status, await response.json()


def openai_client(server: FakeServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="x", max_retries=0)


def test_openai_chat_completion_is_parsed_by_the_sdk() -> None:
    async def scenario() -> None:
        async with FakeServer(default_text="hello there") as server:
            async with openai_client(server) as client:
                completion = await client.chat.completions.create(
                    model="gpt-test", messages=OPENAI_USER
                )
            assert completion.choices[0].message.content == "hello there"
            assert completion.choices[0].finish_reason == "stop"
            assert completion.model == "gpt-test"
            assert completion.usage is not None
            assert completion.usage.total_tokens == (
                completion.usage.prompt_tokens + completion.usage.completion_tokens
            )
            status, raw = await post_json(server.url + "/v1/chat/completions", {"model": "m"})
            assert status == 200
            ChatCompletion.model_validate(raw)
            assert [r.api for r in server.requests] == ["openai", "openai"]

    run(scenario())


def test_azure_deployment_route_is_parsed_by_the_sdk() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            client = openai.AsyncAzureOpenAI(
                azure_endpoint=server.url, api_version="2024-10-21", api_key="x", max_retries=0
            )
            async with client:
                completion = await client.chat.completions.create(
                    model="my-deploy", messages=OPENAI_USER
                )
            assert completion.choices[0].message.content == "fake answer"
            request = server.requests[0]
            assert request.api == "azure"
            assert request.path == "/openai/deployments/my-deploy/chat/completions"
            assert request.query["api-version"] == "2024-10-21"
            assert request.model == "my-deploy"
            assert request.header("API-KEY") == "x"

    run(scenario())


def test_anthropic_message_is_parsed_by_the_sdk() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(Text("bonjour", input_tokens=7, output_tokens=2))
            client = anthropic.AsyncAnthropic(base_url=server.url, api_key="x", max_retries=0)
            async with client:
                message = await client.messages.create(
                    model="claude-t", max_tokens=5, messages=ANTHROPIC_USER
                )
            assert message.content[0].type == "text"
            assert message.content[0].text == "bonjour"
            assert (message.stop_reason, message.stop_sequence) == ("end_turn", None)
            assert (message.usage.input_tokens, message.usage.output_tokens) == (7, 2)
            assert message.model == "claude-t"
            _, raw = await post_json(server.url + "/v1/messages", {"model": "m"})
            Message.model_validate(raw)

    run(scenario())


@pytest.mark.filterwarnings("ignore:Inheritance class AiohttpClientSession:DeprecationWarning")
def test_gemini_answer_is_parsed_by_the_sdk() -> None:
    async def scenario() -> None:
        async with FakeServer(default_text="ciao") as server:
            options = genai_types.HttpOptions(base_url=server.url, api_version="v1beta")
            client = genai.Client(api_key="x", http_options=options)
            # Part of the signature names PIL.Image, which is not installed, hence unknown.
            models = client.aio.models
            response = await models.generate_content(model="gemini-t", contents="hi")  # pyright: ignore[reportUnknownMemberType]
            await client.aio.aclose()
            assert response.text == "ciao"
            assert response.usage_metadata is not None
            assert response.usage_metadata.total_token_count is not None
            assert server.requests[0].path == "/v1beta/models/gemini-t:generateContent"
            assert server.requests[0].model == "gemini-t"
            url = server.url + "/v1beta/models/g:generateContent"
            _, raw = await post_json(url, {"contents": []})
            genai_types.GenerateContentResponse.model_validate(raw)
            assert raw["candidates"][0]["finishReason"] == "STOP"
            assert raw["candidates"][0]["content"]["role"] == "model"
            assert raw["modelVersion"] == "g"

    run(scenario())


def test_function_calls_take_each_chat_api_s_own_form() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(FunctionCall("shell", SHELL_ARGS, call_id="c1"), api="openai")
            server.enqueue(FunctionCall("shell", json.dumps(SHELL_ARGS)), api="anthropic")
            server.enqueue(FunctionCall("shell", SHELL_ARGS), api="gemini")
            _, chat = await post_json(server.url + "/v1/chat/completions", {"model": "m"})
            ChatCompletion.model_validate(chat)
            choice = chat["choices"][0]
            assert choice["finish_reason"] == "tool_calls"
            assert choice["message"]["content"] is None
            call = choice["message"]["tool_calls"][0]
            assert (call["id"], call["type"], call["function"]["name"]) == (
                "c1",
                "function",
                "shell",
            )
            assert json.loads(call["function"]["arguments"]) == SHELL_ARGS
            _, message = await post_json(server.url + "/v1/messages", {"model": "m"})
            Message.model_validate(message)
            assert message["stop_reason"] == "tool_use"
            block = message["content"][0]
            assert (block["type"], block["name"], block["input"]) == (
                "tool_use",
                "shell",
                SHELL_ARGS,
            )
            _, gemini = await post_json(server.url + "/v1beta/models/g:generateContent", {})
            genai_types.GenerateContentResponse.model_validate(gemini)
            part = gemini["candidates"][0]["content"]["parts"][0]
            assert part["functionCall"] == {"name": "shell", "args": SHELL_ARGS}

    run(scenario())


def test_blocked_prompts_are_refused_in_each_api_s_way() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(*[Blocked()] * 4)
            _, chat = await post_json(server.url + "/v1/chat/completions", {"model": "m"})
            ChatCompletion.model_validate(chat)
            assert chat["choices"][0]["finish_reason"] == "content_filter"
            assert chat["choices"][0]["message"]["content"] is None
            _, message = await post_json(server.url + "/v1/messages", {"model": "m"})
            Message.model_validate(message)
            assert (message["stop_reason"], message["content"]) == ("refusal", [])
            _, gemini = await post_json(server.url + "/v1beta/models/g:generateContent", {})
            genai_types.GenerateContentResponse.model_validate(gemini)
            assert gemini["promptFeedback"] == {"blockReason": "SAFETY"}
            assert "candidates" not in gemini
            _, response = await post_json(server.url + "/v1/responses", {"model": "m"})
            Response.model_validate(response)
            assert response["status"] == "incomplete"
            assert response["incomplete_details"] == {"reason": "content_filter"}

    run(scenario())


def test_responses_without_stream_returns_a_response_object() -> None:
    async def scenario() -> None:
        async with FakeServer(default_text="plain") as server:
            async with openai_client(server) as client:
                response = await client.responses.create(model="gpt-r", input="hi")
            assert response.output_text == "plain"
            assert response.status == "completed"
            _, raw = await post_json(server.url + "/v1/responses", {"model": "m", "input": "x"})
            Response.model_validate(raw)
            assert server.requests[0].api == "responses"

    run(scenario())


async def read_events(url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The server-sent events of one streamed request, checked as SSE on the way."""
    async with aiohttp.ClientSession() as session, session.post(url, json=body) as response:
        assert response.headers["Content-Type"] == "text/event-stream"
        text = await response.text()
    events: list[dict[str, Any]] = []
    for block in text.strip().split("\n\n"):
        name_line, data_line = block.split("\n")
        data: dict[str, Any] = json.loads(data_line.removeprefix("data: "))
        assert name_line == f"event: {data['type']}"
        events.append(data)
    return events


def check_stream(events: list[dict[str, Any]]) -> list[str]:
    """Validate every event with the SDK's model; return the event types in order."""
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    for event in events:
        STREAM_EVENT_MODELS[event["type"]].model_validate(event)
    usage = events[-1]["response"]["usage"]
    assert usage["input_tokens_details"]["cached_tokens"] == 0
    assert usage["output_tokens_details"] == {"reasoning_tokens": 0}
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    return [event["type"] for event in events]


def test_responses_stream_events_match_the_sdk_event_models() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(FunctionCall("shell", SHELL_ARGS), Text("one two three"))
            url = server.url + "/v1/responses"
            body = {"model": "m", "input": "x", "stream": True}
            call_events = await read_events(url, body)
            assert check_stream(call_events) == [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.completed",
            ]
            deltas = [e["delta"] for e in call_events if e["type"].endswith("arguments.delta")]
            assert json.loads("".join(deltas)) == SHELL_ARGS
            text_events = await read_events(url, body)
            assert check_stream(text_events) == [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.content_part.added",
                *["response.output_text.delta"] * 3,
                "response.output_text.done",
                "response.content_part.done",
                "response.output_item.done",
                "response.completed",
            ]
            deltas = [e["delta"] for e in text_events if e["type"] == "response.output_text.delta"]
            assert "".join(deltas) == "one two three"

    run(scenario())


def test_responses_stream_function_call_then_text_through_the_sdk() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(FunctionCall("shell", SHELL_ARGS, call_id="call_1"), api="responses")
            server.enqueue(Text("it printed hi"), api="responses")
            async with openai_client(server) as client:
                async with client.responses.stream(model="codex-t", input="run it") as stream:
                    kinds = [event.type async for event in stream]
                    first = await stream.get_final_response()
                call = first.output[0]
                assert isinstance(call, ResponseFunctionToolCall)
                assert (call.name, call.call_id, call.status) == ("shell", "call_1", "completed")
                assert json.loads(call.arguments) == SHELL_ARGS
                assert "response.function_call_arguments.delta" in kinds
                assert "response.function_call_arguments.done" in kinds
                follow_up: list[Any] = [
                    {
                        "type": "function_call",
                        "call_id": "call_1",
                        "name": "shell",
                        "arguments": call.arguments,
                    },
                    {"type": "function_call_output", "call_id": "call_1", "output": "hi\n"},
                ]
                stream2 = await client.responses.create(
                    model="codex-t", input=follow_up, stream=True
                )
                finals = [event async for event in stream2 if event.type == "response.completed"]
            assert len(finals) == 1
            final = finals[0]
            assert isinstance(final, ResponseCompletedEvent)
            assert final.response.output_text == "it printed hi"
            second = server.requests[1].json
            assert second["stream"] is True
            assert second["input"][1] == {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": "hi\n",
            }

    run(scenario())


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/chat/completions", {"model": "m", "messages": [{"role": "system", "content": "S"}]}),
        (
            "/openai/deployments/d/chat/completions",
            {"messages": [{"role": "developer", "content": [{"type": "text", "text": "S"}]}]},
        ),
        ("/v1/messages", {"model": "m", "system": [{"type": "text", "text": "S"}]}),
        ("/v1beta/models/g:generateContent", {"systemInstruction": {"parts": [{"text": "S"}]}}),
        ("/v1/responses", {"model": "m", "instructions": "S"}),
    ],
)
def test_system_prompt_is_found_in_each_api_s_place(path: str, body: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            status, _ = await post_json(server.url + path, body)
            assert status == 200
            assert server.requests[0].system_prompt == "S"

    run(scenario())


def test_faults_raise_the_sdks_own_errors() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(Fault(429, retry_after=1), Fault(500))
            async with openai.AsyncOpenAI(
                base_url=server.url + "/v1", api_key="x", max_retries=0
            ) as client:
                with pytest.raises(openai.RateLimitError) as rate_limited:
                    await client.chat.completions.create(model="m", messages=[])
                assert rate_limited.value.response.headers["retry-after"] == "1"
                with pytest.raises(openai.InternalServerError):
                    await client.chat.completions.create(model="m", messages=[])
            server.enqueue(Fault(503))
            async with anthropic.AsyncAnthropic(
                base_url=server.url, api_key="x", max_retries=0
            ) as claude:
                with pytest.raises(anthropic.APIStatusError) as overloaded:
                    await claude.messages.create(model="m", max_tokens=1, messages=[])
                assert overloaded.value.status_code == 503

    run(scenario())
