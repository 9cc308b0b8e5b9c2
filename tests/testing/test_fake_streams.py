"""The fake server's streamed Anthropic Messages and Gemini answers (what Claude Code and
Gemini CLI read) are what the official SDKs parse, and carry what the whole answer carries."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest
from google import genai
from google.genai import types as genai_types

from evalwright.testing import FakeServer, FunctionCall, Malformed, Text, Thought, ToolCalls

EDIT = {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}
LONG = " ".join(f"word{n}" for n in range(40))


def test_anthropic_stream_carries_text_thinking_and_tool_use_through_the_sdk() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            calls = ToolCalls(
                (FunctionCall("Edit", EDIT, call_id="toolu_1"),),
                text="Fixing it.",
                reasoning=(Thought("It subtracts.", signature="sig-1"),),
            )
            server.enqueue(calls, Text(LONG, input_tokens=11, output_tokens=3))
            client = anthropic.AsyncAnthropic(base_url=server.url, api_key="x", max_retries=0)
            async with client:
                kinds: list[str] = []
                async with client.messages.stream(
                    model="claude-t", max_tokens=50, messages=[{"role": "user", "content": "fix"}]
                ) as stream:
                    kinds = [event.type async for event in stream]
                    first = await stream.get_final_message()
                async with client.messages.stream(
                    model="claude-t", max_tokens=50, messages=[{"role": "user", "content": "go"}]
                ) as stream:
                    deltas = [e.delta.type async for e in stream if e.type == "content_block_delta"]
                    second = await stream.get_final_message()
            thinking, text, tool = first.content
            assert thinking.type == "thinking"
            assert (thinking.thinking, thinking.signature) == ("It subtracts.", "sig-1")
            assert text.type == "text"
            assert text.text == "Fixing it."
            assert tool.type == "tool_use"
            assert (tool.id, tool.name, tool.input) == ("toolu_1", "Edit", EDIT)
            assert first.stop_reason == "tool_use"
            assert kinds[0] == "message_start"
            assert "input_json" in kinds
            (said,) = second.content
            assert said.type == "text"
            assert said.text == LONG
            assert deltas.count("text_delta") > 1  # streamed in pieces, not whole
            assert (second.usage.input_tokens, second.usage.output_tokens) == (11, 3)
            assert second.stop_reason == "end_turn"
            assert all(r.stream for r in server.requests)

    asyncio.run(scenario())


def test_a_malformed_anthropic_stream_is_an_error_for_the_sdk() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(Malformed())
            client = anthropic.AsyncAnthropic(base_url=server.url, api_key="x", max_retries=0)
            async with client:
                with pytest.raises(Exception):  # noqa: B017, PT011 - the SDK's own JSON error
                    async with client.messages.stream(
                        model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
                    ) as stream:
                        await stream.get_final_message()

    asyncio.run(scenario())


@pytest.mark.filterwarnings("ignore:Inheritance class AiohttpClientSession:DeprecationWarning")
def test_gemini_stream_carries_text_and_calls_in_chunks_through_the_sdk() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(
                ToolCalls((FunctionCall("replace", EDIT),), text="Fixing."),
                Text(LONG, input_tokens=9, output_tokens=4),
            )
            options = genai_types.HttpOptions(base_url=server.url, api_version="v1beta")
            client = genai.Client(api_key="x", http_options=options)
            models: Any = client.aio.models  # its signature names PIL.Image, not installed
            first = [c async for c in await models.generate_content_stream(model="g", contents="f")]
            second = [
                c async for c in await models.generate_content_stream(model="g", contents="g")
            ]
            await client.aio.aclose()
            parts = [p for c in first for p in c.candidates[0].content.parts]
            assert parts[0].text == "Fixing."
            assert parts[1].function_call.name == "replace"
            assert parts[1].function_call.args == EDIT
            assert len(second) > 1
            assert "".join(c.text for c in second) == LONG
            assert second[-1].candidates[0].finish_reason == "STOP"
            assert second[-1].usage_metadata.prompt_token_count == 9
            assert all(c.usage_metadata is None for c in second[:-1])
            request = server.requests[0]
            assert request.path == "/v1beta/models/g:streamGenerateContent"
            assert (request.api, request.model, request.stream) == ("gemini", "g", True)

    asyncio.run(scenario())
