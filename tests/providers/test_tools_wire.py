"""Declared tools and ``tool_choice`` in each chat API's own form, exactly
(docs/tools.md#what-each-api-is-sent); the oracles of test_oracles.py check the same bodies."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from evalwright.evalfile.messages import ToolCall
from evalwright.prompts import ChatMessage
from evalwright.providers.base import PreparedRequest, ProviderRequest, ProviderResponse
from evalwright.providers.http import HttpPool
from evalwright.providers.sampling import unsupported_settings
from evalwright.targets.kinds import PROVIDER_KINDS
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import ToolChoice, ToolChoiceName
from evalwright.testing import FakeServer
from evalwright.testing.recorded import ApiName
from tests.conftest import ProjectDir, run_cli
from tests.providers.wire_cases import AIRLINE_TOOLS, ask, chat_provider, with_tools

ASK = ProviderRequest(case_id="c", messages=(ChatMessage(role="user", content="Book me a flight"),))
HISTORY = ProviderRequest(
    case_id="h",
    messages=(
        ChatMessage(role="user", content="Run it"),
        ChatMessage(
            role="assistant",
            content="ok",
            tool_calls=(ToolCall(id="c1", name="run", arguments={"cmd": "ls"}),),
        ),
        ChatMessage(role="tool", content="a.txt", tool_call_id="c1", name="run"),
        ChatMessage(role="user", content="Which files?"),
    ),
)
RESERVATION, FLIGHTS, CANCEL, HUMAN = AIRLINE_TOOLS
NO_TOOL_CHOICE = "settings.tool_choice: the request offers no tools; not sent"


def _prepared(api: str, request: ProviderRequest) -> PreparedRequest:
    return chat_provider(api).prepare(request)


def _body(api: str, request: ProviderRequest) -> dict[str, Any]:
    return _prepared(api, request).wire.model_dump(mode="json")["body"]


def _notes(prepared: PreparedRequest) -> list[tuple[str, str]]:
    return [(note.rule, note.detail) for note in prepared.notes]


OPENAI_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_reservation",
            "description": "Look up a reservation by its code.",
            "parameters": RESERVATION.parameters,
            "strict": True,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_flights",
            "description": "Direct flights between two airports on a date.",
            "parameters": FLIGHTS.parameters,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "cancel-reservation",
            "parameters": CANCEL.parameters,
            "strict": False,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "transfer_to_human",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]


@pytest.mark.parametrize("api", ["openai", "azure", "mistral"])
def test_openai_form_function_tools_with_keys_only_where_given(api: str) -> None:
    prepared = _prepared(api, with_tools(ASK))
    sent = prepared.wire.model_dump(mode="json")["body"]

    assert sent["tools"] == OPENAI_TOOLS
    assert "tool_choice" not in sent  # none written: the API's default (auto) stands
    assert _notes(prepared) == []


OPENAI_CHOICES: list[tuple[ToolChoice, Any]] = [
    ("auto", "auto"),
    ("none", "none"),
    ("required", "required"),
    (
        ToolChoiceName(name="search_flights"),
        {"type": "function", "function": {"name": "search_flights"}},
    ),
]


@pytest.mark.parametrize(("choice", "sent"), OPENAI_CHOICES)
@pytest.mark.parametrize("api", ["openai", "azure", "mistral"])
def test_openai_form_tool_choice(api: str, choice: ToolChoice, sent: Any) -> None:
    # Mistral's request takes "required" as OpenAI's word (its enum also has "any").
    prepared = _prepared(api, with_tools(ASK, choice=choice))

    assert prepared.wire.model_dump(mode="json")["body"]["tool_choice"] == sent
    assert _notes(prepared) == []


def test_anthropic_tools_carry_their_schema_as_input_schema_and_strict() -> None:
    prepared = _prepared("anthropic", with_tools(ASK))
    sent = prepared.wire.model_dump(mode="json")["body"]

    assert sent["tools"] == [
        {
            "name": "get_reservation",
            "description": "Look up a reservation by its code.",
            "input_schema": RESERVATION.parameters,
            "strict": True,
        },
        {
            "name": "search_flights",
            "description": "Direct flights between two airports on a date.",
            "input_schema": FLIGHTS.parameters,
        },
        {"name": "cancel-reservation", "input_schema": CANCEL.parameters, "strict": False},
        {"name": "transfer_to_human", "input_schema": {"type": "object", "properties": {}}},
    ]
    assert "tool_choice" not in sent
    assert _notes(prepared) == []


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", {"type": "auto"}),
        ("none", {"type": "none"}),
        ("required", {"type": "any"}),
        (ToolChoiceName(name="search_flights"), {"type": "tool", "name": "search_flights"}),
    ],
)
def test_anthropic_tool_choice(choice: ToolChoice, sent: Any) -> None:
    prepared = _prepared("anthropic", with_tools(ASK, choice=choice))

    assert prepared.wire.model_dump(mode="json")["body"]["tool_choice"] == sent
    assert _notes(prepared) == []


def test_anthropic_declares_history_tools_with_choice_none_only_without_declared_tools() -> None:
    history_only = _body("anthropic", HISTORY)
    declared = _body("anthropic", with_tools(HISTORY, (RESERVATION,)))

    # The history's tool must be declared for Anthropic; the case offered none, so none.
    assert history_only["tools"] == [{"name": "run", "input_schema": {"type": "object"}}]
    assert history_only["tool_choice"] == {"type": "none"}
    # With declared tools, the model gets exactly those, free to call them.
    assert declared["tools"] == [
        {
            "name": "get_reservation",
            "description": "Look up a reservation by its code.",
            "input_schema": RESERVATION.parameters,
            "strict": True,
        }
    ]
    assert "tool_choice" not in declared


def test_gemini_sends_each_schema_as_written_in_parameters_json_schema() -> None:
    prepared = _prepared("gemini", with_tools(ASK))
    sent = prepared.wire.model_dump(mode="json")["body"]

    # $schema, $ref/$defs, const, default and additionalProperties go as written: no
    # conversion to the OpenAPI subset of ``parameters``.
    assert sent["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "get_reservation",
                    "description": "Look up a reservation by its code.",
                    "parametersJsonSchema": RESERVATION.parameters,
                },
                {
                    "name": "search_flights",
                    "description": "Direct flights between two airports on a date.",
                    "parametersJsonSchema": FLIGHTS.parameters,
                },
                {"name": "cancel-reservation", "parametersJsonSchema": CANCEL.parameters},
                {
                    "name": "transfer_to_human",
                    "parametersJsonSchema": {"type": "object", "properties": {}},
                },
            ]
        }
    ]
    assert "toolConfig" not in sent


def test_gemini_has_no_strict_field_so_each_strict_is_a_note() -> None:
    prepared = _prepared("gemini", with_tools(ASK))

    assert _notes(prepared) == [
        (
            "setting_unsupported",
            "tools[0].strict (get_reservation): Gemini generateContent has no such field; not sent",
        ),
        (
            "setting_unsupported",
            "tools[2].strict (cancel-reservation): Gemini generateContent has no such field; "
            "not sent",
        ),
    ]
    assert _notes(_prepared("gemini", with_tools(ASK, (FLIGHTS, HUMAN)))) == []


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        (
            ToolChoiceName(name="search_flights"),
            {"mode": "ANY", "allowedFunctionNames": ["search_flights"]},
        ),
    ],
)
def test_gemini_tool_choice_is_a_function_calling_config(choice: ToolChoice, sent: Any) -> None:
    body = _body("gemini", with_tools(ASK, (FLIGHTS,), choice))

    assert body["toolConfig"] == {"functionCallingConfig": sent}


@pytest.mark.parametrize("api", ["openai", "azure", "mistral", "anthropic", "gemini"])
def test_a_tool_choice_without_tools_is_not_sent_with_a_note(api: str) -> None:
    request = with_tools(ASK, (), "required")
    prepared = _prepared(api, request)
    sent = prepared.wire.model_dump(mode="json")["body"]

    assert not {"tools", "tool_choice", "toolConfig"} & set(sent)
    assert _notes(prepared) == [("setting_unsupported", NO_TOOL_CHOICE)]


def test_a_tool_choice_without_tools_leaves_anthropics_history_tools_unchosen() -> None:
    prepared = _prepared("anthropic", with_tools(HISTORY, (), "required"))

    assert prepared.wire.model_dump(mode="json")["body"]["tool_choice"] == {"type": "none"}
    assert _notes(prepared) == [("setting_unsupported", NO_TOOL_CHOICE)]


@pytest.mark.parametrize("api", ["openai", "azure", "mistral", "anthropic", "gemini"])
def test_declared_tools_leave_the_tool_history_as_it_was(api: str) -> None:
    without = _body(api, HISTORY)
    offered = _body(api, with_tools(HISTORY, choice="auto"))

    conversation = "contents" if api == "gemini" else "messages"
    assert offered[conversation] == without[conversation]
    assert offered["tools"] != without.get("tools")


def test_every_chat_api_takes_tool_choice_and_no_agent_does() -> None:
    settings = SamplingSettings(tool_choice="auto")

    for name, kind in PROVIDER_KINDS.items():
        flagged = dict(unsupported_settings(name, settings))
        if kind.chat is not None:
            assert flagged == {}, name
        else:
            assert flagged == {"tool_choice": f"a {name} target takes no sampling settings"}


def test_the_wire_that_prompt_target_shows_holds_the_tools() -> None:
    """``prompt --target`` prints ``prepare(request).wire``: the tools are in its body."""
    provider = chat_provider("openai")
    wire = provider.prepare(with_tools(ASK, (HUMAN,), "required")).wire.model_dump(mode="json")

    assert wire["body"]["tools"] == [OPENAI_TOOLS[3]]
    assert wire["body"]["tool_choice"] == "required"


def test_prompt_target_shows_a_tool_choice_with_no_tools_not_sent(project: ProjectDir) -> None:
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: claude\n    provider: anthropic\n    model: claude-test\n"
        "    api_key: test-key-123456\n    settings: {tool_choice: required}\n",
    )
    # On a case, a tool_choice without tools is a validate error; a target's applies to cases
    # with tools and without.
    path = project.write(
        "evals/choice.yaml",
        "evalcases:\n  - id: picks\n    expected_outcome: Answers.\n    input: Hello\n",
    )

    result = run_cli("prompt", path, "--target", "claude", "--json")

    assert result.code == 0, result.err
    output = result.json()
    shown = cast(dict[str, Any], output[0] if isinstance(output, list) else output)
    assert "tool_choice" not in shown["wire_request"]["body"]
    assert shown["delivery_notes"] == [{"rule": "setting_unsupported", "detail": NO_TOOL_CHOICE}]


@pytest.mark.parametrize("api", ["openai", "azure", "mistral", "anthropic", "gemini"])
def test_the_server_receives_the_tools_the_wire_records(api: str) -> None:
    async def scenario() -> tuple[dict[str, Any], ProviderResponse]:
        async with FakeServer() as fake:
            pool = HttpPool()
            try:
                provider = chat_provider(api, pool, base_url=fake.url)
                answer = await ask(provider, with_tools(ASK, choice="required"))
            finally:
                await pool.aclose()
            route = "openai" if api == "mistral" else api  # Mistral's route is OpenAI's
            (received,) = fake.requests_for(cast(ApiName, route))
            return cast(dict[str, Any], received.json), answer

    received, answer = asyncio.run(scenario())

    assert received["tools"], "the tools went over HTTP"
    assert answer.wire_request.model_dump(mode="json")["body"] == received
    assert received == _body(api, with_tools(ASK, choice="required"))


def _parallel(request: ProviderRequest, parallel: bool) -> ProviderRequest:
    settings = (request.settings or SamplingSettings()).model_copy(
        update={"parallel_tool_calls": parallel}
    )
    return ProviderRequest(
        case_id=request.case_id, messages=request.messages, tools=request.tools, settings=settings
    )


@pytest.mark.parametrize(
    ("api", "extra", "sent"),
    [
        ("openai", {}, {"parallel_tool_calls": False}),
        ("azure", {"api": "responses"}, {"parallel_tool_calls": False}),
        ("mistral", {}, {"parallel_tool_calls": False}),
        ("anthropic", {}, {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}),
    ],
)
def test_parallel_tool_calls_is_each_apis_own_field(
    api: str, extra: dict[str, Any], sent: dict[str, Any]
) -> None:
    prepared = chat_provider(api, **extra).prepare(_parallel(with_tools(ASK), False))
    body = prepared.wire.model_dump(mode="json")["body"]

    assert {key: body.get(key) for key in sent} == sent
    assert not _notes(prepared)


def test_anthropic_keeps_the_written_tool_choice_beside_the_parallel_switch() -> None:
    required = _body("anthropic", _parallel(with_tools(ASK, choice="required"), True))
    assert required["tool_choice"] == {"type": "any", "disable_parallel_tool_use": False}
    prepared = _prepared("anthropic", _parallel(with_tools(ASK, choice="none"), False))
    assert prepared.wire.model_dump(mode="json")["body"]["tool_choice"] == {"type": "none"}
    assert _notes(prepared) == [
        (
            "setting_unsupported",
            "settings.parallel_tool_calls: a tool_choice of none in Anthropic Messages has no "
            "disable_parallel_tool_use field; not sent",
        )
    ]


@pytest.mark.parametrize("api", ["openai", "gemini"])
def test_parallel_tool_calls_without_tools_or_a_field_is_a_note(api: str) -> None:
    prepared = _prepared(api, _parallel(with_tools(ASK, ()), True))

    assert "parallel_tool_calls" not in str(prepared.wire.model_dump(mode="json")["body"])
    [(rule, detail)] = _notes(prepared)
    assert rule == "setting_unsupported"
    assert detail.startswith("settings.parallel_tool_calls: ")
