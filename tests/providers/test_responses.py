"""``api: responses`` on ``openai`` and ``azure`` targets (docs/targets.md#the-responses-api):
the conversation as ``input`` items, the settings' native fields, and the answer read from
the output items, over real HTTP against the fake server."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from pydantic import ValidationError

from evalwright.errors import BlockedError, ProviderError
from evalwright.evalfile import load_eval_file
from evalwright.evalfile.messages import ToolCall
from evalwright.evaluators.judge import CUT_OFF_REASONS
from evalwright.prompts import ChatMessage
from evalwright.prompts.render import ReturnedCall
from evalwright.providers.base import ProviderRequest, ProviderResponse
from evalwright.providers.http import HttpPool
from evalwright.providers.openai.responses import parse_reply, reasoning_summaries
from evalwright.providers.sampling import unsupported_settings
from evalwright.providers.wire import Usage
from evalwright.records import ReasoningPart
from evalwright.targets.kinds import wire_apis
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import ToolChoiceName
from evalwright.testing import Blocked, FakeServer, Fault, FunctionCall, Text, ToolCalls
from tests.conftest import ProjectDir, run_cli
from tests.providers.wire_cases import (
    ask,
    case_request,
    chat_provider,
    chat_target,
    rules,
    with_tools,
)
from tests.scenarios import SCENARIOS, write_scenarios

RESPONSES: dict[str, Any] = {"api": "responses"}
AUTH = {
    "openai": ("authorization", "Bearer test-key-123456"),
    "azure": ("api-key", "test-key-123456"),
}
PATH = {"openai": "/v1/responses", "azure": "/openai/v1/responses"}
RAW = '{ "code": "ABC123" }'  # spaced: sent back exactly as the model wrote it

CONVERSATION = (
    ChatMessage(role="system", content="Be brief."),
    ChatMessage(role="user", content="Where is my booking?"),
    ChatMessage(
        role="assistant",
        content="Looking it up.",
        tool_calls=(
            ReturnedCall(
                id="call_a", name="get_reservation", arguments={"code": "ABC123"}, raw_arguments=RAW
            ),
            ToolCall(id="call_b", name="get_status", arguments={"z": 1, "a": 2}),
        ),
    ),
    ChatMessage(role="tool", content="Booked.", tool_call_id="call_a"),
    ChatMessage(role="tool", content="On time.", tool_call_id="call_b"),
    ChatMessage(
        role="assistant",
        content="",
        tool_calls=(ToolCall(id="call_c", name="get_status", arguments={}),),
    ),
    ChatMessage(role="tool", content="Still on time.", tool_call_id="call_c"),
    ChatMessage(role="user", content="Thanks"),
)


def _request(*messages: ChatMessage, **fields: Any) -> ProviderRequest:
    return ProviderRequest(case_id="c", purpose="candidate", messages=messages, **fields)


def _body(api: str, request: ProviderRequest, **extra: Any) -> dict[str, Any]:
    provider = chat_provider(api, **RESPONSES, **extra)
    return provider.prepare(request).wire.model_dump(mode="json")["body"]


@pytest.mark.parametrize("api", ["openai", "azure"])
def test_the_conversation_becomes_input_items_paired_by_call_id(api: str) -> None:
    sent = _body(api, _request(*CONVERSATION), system_role="developer")

    model = "gpt-test" if api == "openai" else "dep-test"
    assert sent == {
        "model": model,
        "input": [
            {"type": "message", "role": "developer", "content": "Be brief."},
            {"type": "message", "role": "user", "content": "Where is my booking?"},
            {"type": "message", "role": "assistant", "content": "Looking it up."},
            {
                "type": "function_call",
                "call_id": "call_a",
                "name": "get_reservation",
                "arguments": RAW,
            },
            {
                "type": "function_call",
                "call_id": "call_b",
                "name": "get_status",
                "arguments": '{"a":2,"z":1}',
            },
            {"type": "function_call_output", "call_id": "call_a", "output": "Booked."},
            {"type": "function_call_output", "call_id": "call_b", "output": "On time."},
            {"type": "function_call", "call_id": "call_c", "name": "get_status", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_c", "output": "Still on time."},
            {"type": "message", "role": "user", "content": "Thanks"},
        ],
        "store": False,
    }


def test_settings_map_to_native_fields_and_the_rest_are_noted() -> None:
    settings = SamplingSettings(
        temperature=0.3,
        top_p=0.9,
        max_output_tokens=50,
        reasoning_effort="low",
        seed=7,
        stop="X",
        extra_body={"reasoning": {"summary": "auto"}},
    )
    provider = chat_provider("openai", **RESPONSES, settings=settings.model_dump(exclude_none=True))
    prepared = provider.prepare(
        with_tools(_request(ChatMessage(role="user", content="Hi")), choice="required")
    )
    sent = prepared.wire.model_dump(mode="json")["body"]

    assert sent["temperature"] == 0.3
    assert sent["top_p"] == 0.9
    assert sent["max_output_tokens"] == 50
    assert sent["reasoning"] == {"effort": "low", "summary": "auto"}  # extra_body merged in
    assert "seed" not in sent
    assert "stop" not in sent
    assert sent["tool_choice"] == "required"
    assert all(
        tool["type"] == "function" and isinstance(tool["strict"], bool) for tool in sent["tools"]
    )
    assert "function" not in sent["tools"][0]  # flat, not Chat Completions' nesting
    details = [note.detail for note in prepared.notes]
    assert rules(prepared) == ["setting_unsupported", "setting_unsupported"]
    assert details == [
        "settings.seed: OpenAI Responses has no such field; not sent",
        "settings.stop: OpenAI Responses has no such field; not sent",
    ]


def test_a_named_tool_choice_and_an_unasked_strict() -> None:
    request = with_tools(
        _request(ChatMessage(role="user", content="Hi")),
        choice=ToolChoiceName(name="get_reservation"),
    )
    sent = _body("azure", request)

    assert sent["tool_choice"] == {"type": "function", "name": "get_reservation"}
    # The Responses API makes a tool strict unless told: one that does not ask is sent false.
    assert [tool["strict"] for tool in sent["tools"]] == [True, False, False, False]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (
            "json_schema",
            {
                "type": "json_schema",
                "name": "verdict",
                "strict": True,
                "schema": {"type": "object"},
            },
        ),
        ("json_object", {"type": "json_object"}),
        ("none", None),
    ],
)
def test_a_judge_schema_is_sent_as_text_format(mode: str, expected: dict[str, Any] | None) -> None:
    judge = ProviderRequest(
        case_id="judge",
        purpose="judge",
        response_schema={"type": "object"},
        messages=(ChatMessage(role="user", content="Grade."),),
    )
    sent = _body("openai", judge, structured_output=mode)

    assert sent.get("text") == (None if expected is None else {"format": expected})


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (
            {"json_schema": {"type": "object"}, "name": "answer", "strict": True},
            {"type": "json_schema", "name": "answer", "strict": True, "schema": {"type": "object"}},
        ),
        ({"json": True}, {"type": "json_object"}),
    ],
)
def test_the_response_format_setting_is_sent_as_text_format(
    written: dict[str, Any], expected: dict[str, Any]
) -> None:
    settings = SamplingSettings.model_validate({"response_format": written})
    sent = _body("azure", _request(ChatMessage(role="user", content="JSON."), settings=settings))

    assert sent["text"] == {"format": expected}
    assert "response_format" not in sent


def test_unsupported_settings_are_the_responses_apis() -> None:
    settings = SamplingSettings(seed=1, presence_penalty=0.1, temperature=0.2)
    chat = chat_target("openai")
    responses = chat_target("azure", **RESPONSES)

    assert unsupported_settings(chat.kind, settings) == []
    assert [key for key, _ in unsupported_settings(responses.kind, settings)] == [
        "seed",
        "presence_penalty",
    ]
    assert responses.kind.wire == "azure.responses"
    assert {"openai.responses", "azure.responses"} <= set(wire_apis("chat"))
    assert "max_output_tokens" in CUT_OFF_REASONS


def test_target_keys_that_mean_nothing_to_the_responses_api_are_refused() -> None:
    with pytest.raises(ValidationError, match="max_tokens_field is a Chat Completions key"):
        chat_target("openai", **RESPONSES, max_tokens_field="max_tokens")
    with pytest.raises(ValidationError, match="cannot check a target with api: responses"):
        chat_target("openai", **RESPONSES, check_template=True)


def test_an_azure_api_version_written_selects_the_dated_route() -> None:
    request = _request(ChatMessage(role="user", content="Hi"))
    version = "2025-04-01-preview"
    response, received = asyncio.run(_send("azure", request, Text("Hi."), api_version=version))

    assert (received.path, received.query) == ("/openai/responses", {"api-version": version})
    wire = response.wire_request.model_dump(mode="json")
    assert wire["url_path"] == f"/openai/responses?api-version={version}"
    assert response.text == "Hi."


async def _send(
    api: str, request: ProviderRequest, *actions: Any, **extra: Any
) -> tuple[ProviderResponse, Any]:
    async with FakeServer() as server:
        server.enqueue(*actions)
        pool = HttpPool()
        try:
            provider = chat_provider(api, pool, base_url=server.url, **RESPONSES, **extra)
            response = await ask(provider, request)
        finally:
            await pool.aclose()
        (received,) = server.requests_for("responses")
        return response, received


@pytest.mark.parametrize("api", ["openai", "azure"])
def test_the_server_receives_the_recorded_body_and_answers_text(api: str) -> None:
    request = _request(*CONVERSATION)
    answer = Text("Safe travels.", input_tokens=40, output_tokens=4, cache_read_tokens=16)
    response, received = asyncio.run(_send(api, request, answer))

    wire = response.wire_request.model_dump(mode="json")
    assert received.json == wire["body"]
    assert received.path == PATH[api] == wire["url_path"]
    assert wire["api"] == f"{api}.responses"
    header, value = AUTH[api]
    assert received.header(header) == value
    assert response.text == "Safe travels."
    assert response.finish_reason == "completed"
    assert response.usage == Usage(
        input_tokens=40, output_tokens=4, cache_read_tokens=16, reasoning_tokens=0
    )


@pytest.mark.parametrize("api", ["openai", "azure"])
def test_function_call_items_are_the_answers_tool_calls(api: str) -> None:
    calls = ToolCalls(
        (
            FunctionCall("get_reservation", RAW, call_id="call_x"),
            FunctionCall("get_status", {"n": 1}, call_id="call_y"),
        ),
        text="Checking.",
    )
    response, _ = asyncio.run(_send(api, _request(ChatMessage(role="user", content="Hi")), calls))

    assert response.text == "Checking."
    assert [(c.id, c.name, c.raw_arguments, c.arguments) for c in response.tool_calls] == [
        ("call_x", "get_reservation", RAW, {"code": "ABC123"}),
        ("call_y", "get_status", '{"n":1}', {"n": 1}),
    ]


def test_an_answer_cut_at_the_limit_is_noted_and_read_as_cut_off() -> None:
    request = _request(ChatMessage(role="user", content="Tell a long story."))
    cut = Text("Once upon", output_tokens=90, finish_reason="incomplete")
    response, _ = asyncio.run(_send("openai", request, cut, max_output_tokens=20))

    assert response.finish_reason == "max_output_tokens"
    assert response.finish_reason in CUT_OFF_REASONS
    (note,) = [n for n in response.delivery_notes if n.rule == "output_limit_ignored"]
    assert "max_output_tokens was 20" in note.detail


def test_a_filtered_answer_is_a_block() -> None:
    with pytest.raises(BlockedError, match="content_filter"):
        asyncio.run(_send("azure", _request(ChatMessage(role="user", content="Hi")), Blocked()))


def test_a_refused_text_format_names_the_setting_to_change() -> None:
    judge = ProviderRequest(
        case_id="judge",
        purpose="judge",
        response_schema={"type": "object"},
        messages=(ChatMessage(role="user", content="Grade."),),
    )
    refusal = Fault(400, body={"error": {"message": "Invalid parameter: 'text.format.schema'"}})
    with pytest.raises(ProviderError) as caught:
        asyncio.run(_send("openai", judge, refusal))
    assert "hint: the server refused text.format json_schema: set structured_output: " in str(
        caught.value
    )


@pytest.mark.parametrize("api", ["openai", "azure"])
def test_a_failed_response_is_an_error_another_attempt_may_cure(api: str) -> None:
    request = _request(ChatMessage(role="user", content="Hi"))
    with pytest.raises(ProviderError, match="the response failed: server_error") as caught:
        asyncio.run(_send(api, request, Text("", finish_reason="failed")))
    assert caught.value.retryable


def test_reasoning_summaries_and_tokens_are_read_from_the_output() -> None:
    body: dict[str, Any] = {
        "status": "completed",
        "output": [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [
                    {"type": "summary_text", "text": "Compared the dates."},
                    {"type": "summary_text", "text": "Picked the earliest."},
                ],
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "Tuesday.", "annotations": []},
                ],
            },
        ],
        "usage": {
            "input_tokens": 10,
            "output_tokens": 30,
            "output_tokens_details": {"reasoning_tokens": 28},
        },
    }

    assert reasoning_summaries(body) == ("Compared the dates.", "Picked the earliest.")
    # The row keeps them apart from the answer, as each API's reasoning is.
    provider = chat_provider("openai", **RESPONSES)
    assert provider.reasoning(body) == (
        ReasoningPart(text="Compared the dates."),
        ReasoningPart(text="Picked the earliest."),
    )
    assert parse_reply(body) == (
        "Tuesday.",
        "completed",
        Usage(input_tokens=10, output_tokens=30, reasoning_tokens=28),
    )


def test_a_refusal_alone_is_a_block() -> None:
    body = {
        "status": "completed",
        "output": [{"type": "message", "content": [{"type": "refusal", "refusal": "I can't."}]}],
    }
    with pytest.raises(BlockedError, match="I can't"):
        parse_reply(cast(Any, body))


def test_validate_warns_of_the_settings_the_responses_api_lacks(project: ProjectDir) -> None:
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: default\n    provider: openai\n    model: gpt-test\n"
        "    api: responses\n    settings: {seed: 42, temperature: 0.1}\n",
    )
    path = project.write(
        "evals/hello.yaml",
        "evalcases:\n  - id: hi\n    expected_outcome: Greets.\n    input: Hello\n"
        "    settings: {stop: X}\n",
    )

    result = run_cli("validate", path)

    assert result.code == 0, result.err
    shown = result.out + result.err
    assert "targets[0].settings.seed: not sent: OpenAI Responses has no such field" in shown
    assert (
        "settings.stop is not sent to target 'default': OpenAI Responses has no such field" in shown
    )
    assert "temperature" not in shown


@pytest.mark.parametrize("api", ["openai", "azure"])
def test_every_scenario_arrives_exactly_as_recorded(api: str, project: ProjectDir) -> None:
    cases = load_eval_file(write_scenarios(project.root)).cases

    async def deliver() -> list[tuple[dict[str, Any], Any]]:
        async with FakeServer() as server:
            pool = HttpPool()
            try:
                provider = chat_provider(api, pool, base_url=server.url, **RESPONSES)
                sent: list[tuple[dict[str, Any], Any]] = []
                for case in cases:
                    response = await ask(provider, case_request(provider, case))
                    sent.append(
                        (response.wire_request.model_dump(mode="json"), server.requests[-1])
                    )
            finally:
                await pool.aclose()
            return sent

    delivered = asyncio.run(deliver())

    assert len(delivered) == len(SCENARIOS)
    for wire, received in delivered:
        assert received.api == "responses"
        assert received.json == wire["body"]
        assert received.path == wire["url_path"] == PATH[api]


def test_a_reasoning_summary_is_asked_for_in_each_apis_form() -> None:
    settings = SamplingSettings(reasoning_effort="high", reasoning_summary="detailed")
    request = _request(ChatMessage(role="user", content="Think."), settings=settings)

    assert _body("openai", request)["reasoning"] == {"effort": "high", "summary": "detailed"}
    gemini = chat_provider("gemini").prepare(request).wire.model_dump(mode="json")["body"]
    assert gemini["generationConfig"]["thinkingConfig"] == {
        "thinkingLevel": "high",
        "includeThoughts": True,
    }
    for api in ("openai", "anthropic", "mistral"):
        prepared = chat_provider(api).prepare(request)
        assert "summary" not in str(prepared.wire.model_dump(mode="json")["body"])
        assert [n.detail.split(":")[0] for n in prepared.notes if n.rule == "setting_unsupported"][
            -1:
        ] == ["settings.reasoning_summary"], api
