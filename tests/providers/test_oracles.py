"""Our request bodies checked by outside oracles: the official OpenAI OpenAPI document, the
Anthropic SDK's request type, and the google-genai types (which forbid unknown keys)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any, cast

import pytest
from jsonschema import Draft202012Validator
from pydantic import TypeAdapter
from referencing import Registry, Resource

from evalwright.evalfile import LoadedCase, load_eval_file
from evalwright.evalfile.messages import ToolCall
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest
from tests.conftest import DATA, ProjectDir
from tests.providers.test_response_format_wire import JSON_MODE, SCHEMA, with_format
from tests.providers.wire_cases import (
    case_request,
    chat_provider,
    offering_each_choice,
)
from tests.scenarios import SCENARIOS, write_scenarios

OPENAPI = DATA / "openai-openapi.json"
SCHEMAS = "urn:openai-openapi#/components/schemas/"
VERDICT = {
    "type": "object",
    "properties": {"score": {"type": "number"}, "reasoning": {"type": "string"}},
    "required": ["score", "reasoning"],
    "additionalProperties": False,
}
TUNING: list[dict[str, Any]] = [
    {},
    {"temperature": 0.2, "max_output_tokens": 64},
    {"max_output_tokens": 64, "max_tokens_field": "max_tokens", "system_role": "developer"},
]


@cache
def _openapi() -> dict[str, Any]:
    return cast(dict[str, Any], json.loads(OPENAPI.read_text(encoding="utf-8")))


@cache
def openapi_validator(schema_name: str) -> Any:
    # The whole document is one resource, so "#/components/schemas/..." references resolve.
    registry_type: Any = Registry
    registry = registry_type().with_resource("urn:openai-openapi", Resource.opaque(_openapi()))
    return Draft202012Validator({"$ref": SCHEMAS + schema_name}, registry=registry)


def _properties(schema_name: str) -> set[str]:
    schemas = cast(dict[str, Any], _openapi()["components"]["schemas"])
    return set(cast(dict[str, Any], schemas[schema_name]["properties"]))


def _message_schema(role: str) -> dict[str, Any]:
    name = {
        "system": "System",
        "developer": "Developer",
        "user": "User",
        "assistant": "Assistant",
        "tool": "Tool",
    }[role]
    schemas = cast(dict[str, Any], _openapi()["components"]["schemas"])
    return cast(dict[str, Any], schemas[f"ChatCompletionRequest{name}Message"])


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[LoadedCase]:
    root = tmp_path_factory.mktemp("oracles")
    (root / ".git").mkdir()
    return list(load_eval_file(write_scenarios(root)).cases)


def _requests(
    cases: list[LoadedCase], api: str, tuning: dict[str, Any], offered: bool = False
) -> list[dict[str, Any]]:
    """Every scenario's body and a judge's; ``offered``: each scenario offering the airline
    tools, with each ``tool_choice`` in turn (and none). Then a case asking for JSON to a
    schema, and one for JSON mode (``response_format``)."""
    provider = chat_provider(api, **tuning)
    requests = [case_request(provider, c) for c in cases]
    if offered:
        requests = offering_each_choice(requests)
    requests += [with_format(SCHEMA), with_format(JSON_MODE)]
    bodies = [provider.prepare(r).wire.model_dump(mode="json")["body"] for r in requests]
    judge = ProviderRequest(
        case_id="judge",
        purpose="judge",
        response_schema=VERDICT,
        messages=(
            ChatMessage(role="system", content="Judge."),
            ChatMessage(role="user", content="Grade this."),
        ),
    )
    bodies.append(provider.prepare(judge).wire.model_dump(mode="json")["body"])
    return bodies


@pytest.mark.parametrize("offered", [False, True], ids=["no-tools", "tools"])
@pytest.mark.parametrize("tuning", TUNING)
@pytest.mark.parametrize("api", ["openai", "azure"])
def test_openai_bodies_satisfy_the_openapi_document(
    api: str, tuning: dict[str, Any], offered: bool, cases: list[LoadedCase]
) -> None:
    validator = openapi_validator("CreateChatCompletionRequest")
    for sent in _requests(cases, api, tuning, offered):
        errors = [e.message for e in validator.iter_errors(sent)]
        assert not errors, (errors, sent)
        for message in sent["messages"]:
            allowed = set(_message_schema(message["role"])["properties"])
            assert set(message) <= allowed, (message, allowed)
        for tool in sent.get("tools", []):  # the document lets unknown keys through
            assert set(tool) <= _properties("ChatCompletionTool"), tool
            assert set(tool["function"]) <= _properties("FunctionObject"), tool


def test_the_openapi_check_rejects_a_bad_body() -> None:
    validator = openapi_validator("CreateChatCompletionRequest")
    bad = {"model": "m", "messages": [{"role": "tool", "content": "x"}]}  # no tool_call_id
    assert list(validator.iter_errors(bad))
    assert list(validator.iter_errors({"model": "m", "messages": []}))


def materialize(value: Any) -> Any:
    """Consume pydantic's lazy iterables so every item is validated."""
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in cast(dict[str, Any], value).items()}
    if isinstance(value, list | tuple) or type(value).__name__ == "ValidatorIterator":
        return [materialize(v) for v in cast(list[Any], value)]
    return value


@pytest.mark.parametrize("offered", [False, True], ids=["no-tools", "tools"])
@pytest.mark.parametrize("tuning", [{}, {"max_output_tokens": 64}])
def test_anthropic_bodies_satisfy_the_sdk_type(
    tuning: dict[str, Any], offered: bool, cases: list[LoadedCase]
) -> None:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
    for sent in _requests(cases, "anthropic", tuning, offered):
        # TypedDicts drop unknown keys: an unchanged round trip means every key is known.
        assert materialize(adapter.validate_python(sent)) == sent


def test_the_anthropic_check_rejects_an_unknown_key() -> None:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
    sent = {
        "model": "m",
        "max_tokens": 5,
        "messages": [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "x": 1}]}
        ],
    }
    assert materialize(adapter.validate_python(sent)) != sent


@pytest.mark.parametrize("offered", [False, True], ids=["no-tools", "tools"])
@pytest.mark.parametrize(
    "tuning",
    [{}, {"temperature": 0.1, "max_output_tokens": 64, "settings": {"reasoning_summary": "auto"}}],
)
def test_gemini_bodies_satisfy_the_sdk_types(
    tuning: dict[str, Any], offered: bool, cases: list[LoadedCase]
) -> None:
    from google.genai import types

    known = {"contents", "systemInstruction", "generationConfig", "tools", "toolConfig"}
    for sent in _requests(cases, "gemini", tuning, offered):
        assert set(sent) <= known
        for tool in sent.get("tools", []):
            types.Tool.model_validate(tool)
        if "toolConfig" in sent:
            assert gemini_tool_config_known(sent["toolConfig"]), sent["toolConfig"]
        for content in sent["contents"]:
            types.Content.model_validate(content)
        if "systemInstruction" in sent:
            types.Content.model_validate(sent["systemInstruction"])
        if "generationConfig" in sent:
            types.GenerateContentConfig.model_validate(sent["generationConfig"])


def gemini_tool_config_known(config: dict[str, Any]) -> bool:
    """``config`` read by the SDK's ``ToolConfig`` (unknown keys raise), its mode one the SDK
    names: the SDK's enums take an unknown value with only a warning."""
    import warnings

    from google.genai import types

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            read = types.ToolConfig.model_validate(config)
        except UserWarning:
            return False
    calling = read.function_calling_config
    mode = calling.mode if calling is not None else None
    return mode is None or mode.value in types.FunctionCallingConfigMode.__members__


def test_the_gemini_check_rejects_an_unknown_key() -> None:
    from google.genai import types
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        types.Content.model_validate({"role": "user", "parts": [{"txt": "x"}]})
    with pytest.raises(ValidationError):  # a tool's fields are checked too
        types.Tool.model_validate({"functionDeclarations": [{"name": "f", "strict": True}]})
    assert not gemini_tool_config_known({"functionCallingConfig": {"mode": "REQUIRED"}})
    with pytest.raises(ValidationError):
        gemini_tool_config_known({"functionCallingConfig": {"mode": "ANY", "names": ["f"]}})


def test_scenarios_cover_tool_calls(project: ProjectDir) -> None:
    """The oracle runs above include native tool calls and results."""
    suite = load_eval_file(write_scenarios(project.root))
    assert any(m.tool_calls for c in suite.cases for m in c.input_messages)
    assert len(suite.cases) == len(SCENARIOS)


@pytest.mark.parametrize("api", ["openai", "azure"])
def test_an_assistant_tool_call_turn_without_text_carries_an_empty_content(api: str) -> None:
    # Chat templates of local servers read ``content`` and fail with HTTP 500 without it.
    provider = chat_provider(api)
    call = ChatMessage(
        role="assistant", content="", tool_calls=(ToolCall(id="c1", name="run", arguments={}),)
    )
    request = ProviderRequest(
        case_id="c",
        messages=(
            ChatMessage(role="user", content="Go"),
            call,
            ChatMessage(role="tool", content="done", tool_call_id="c1"),
        ),
    )
    body = provider.prepare(request).wire.model_dump(mode="json")["body"]
    turn = body["messages"][1]
    assert turn["role"] == "assistant"
    assert turn["content"] == ""
    assert not list(openapi_validator("CreateChatCompletionRequest").iter_errors(body))


def test_an_anthropic_history_with_thinking_blocks_satisfies_the_sdk_type() -> None:
    """A tool loop's answer sent back with its thinking and redacted thinking blocks first
    (docs/tools.md#the-tool-loop): every key known to the SDK's request type, in its order."""
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    from evalwright.prompts.render import ReturnedCall
    from evalwright.providers.anthropic.convert import request_body
    from evalwright.records import ReasoningPart
    from evalwright.targets.models import AnthropicTarget

    call = ReturnedCall(id="toolu_1", name="f", arguments={"a": 1}, raw_arguments='{"a": 1}')
    thought = (ReasoningPart(text="Plan.", signature="c2ln"), ReasoningPart(text="", data="RU5D"))
    messages = (
        ChatMessage(role="user", content="Go."),
        ChatMessage(role="assistant", content="Calling.", tool_calls=(call,), reasoning=thought),
        ChatMessage(role="tool", content="2", tool_call_id="toolu_1"),
    )
    body, _ = request_body(messages, AnthropicTarget(name="a", model="claude-test"))
    adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
    assert materialize(adapter.validate_python(body)) == body
    assistant = cast(list[Any], body["messages"])[1]
    assert [block["type"] for block in assistant["content"]] == [
        "thinking",
        "redacted_thinking",
        "text",
        "tool_use",
    ]
    assert assistant["content"][0] == {"type": "thinking", "thinking": "Plan.", "signature": "c2ln"}


RESPONSES_TUNING: list[dict[str, Any]] = [
    {},
    {"temperature": 0.2, "max_output_tokens": 64},
    {
        "system_role": "developer",
        "settings": {"reasoning_effort": "low", "reasoning_summary": "auto", "top_p": 0.5},
    },
]


@pytest.mark.parametrize("offered", [False, True], ids=["no-tools", "tools"])
@pytest.mark.parametrize("tuning", RESPONSES_TUNING)
@pytest.mark.parametrize("api", ["openai", "azure"])
def test_responses_bodies_satisfy_the_openapi_document_and_the_sdk_type(
    api: str, tuning: dict[str, Any], offered: bool, cases: list[LoadedCase]
) -> None:
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

    validator = openapi_validator("CreateResponse")
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseCreateParamsNonStreaming)
    for sent in _requests(cases, api, {"api": "responses", **tuning}, offered):
        errors = [e.message for e in validator.iter_errors(sent)]
        assert not errors, (errors, sent)
        # TypedDicts drop unknown keys: an unchanged round trip means every key is known.
        assert materialize(adapter.validate_python(sent)) == sent
        assert sent["store"] is False
        assert "previous_response_id" not in sent
        assert "instructions" not in sent


def test_the_responses_checks_reject_a_bad_body() -> None:
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

    validator = openapi_validator("CreateResponse")
    bad_output = {"type": "function_call_output", "call_id": "", "output": "x"}  # call_id empty
    assert list(validator.iter_errors({"model": "m", "input": [bad_output]}))
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseCreateParamsNonStreaming)
    unknown = {"model": "m", "input": "hi", "max_tokens": 5}
    assert materialize(adapter.validate_python(unknown)) != unknown
