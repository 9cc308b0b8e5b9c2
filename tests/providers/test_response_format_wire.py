"""``response_format`` in each chat API's own form, exactly
(docs/targets.md#structured-output-of-answers); the oracles of test_oracles.py check the same
bodies."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any, cast

import pytest

from evalwright.prompts import ChatMessage
from evalwright.providers.base import PreparedRequest, ProviderRequest
from evalwright.providers.http import HttpPool
from evalwright.targets.sampling import ResponseFormat, SamplingSettings
from evalwright.testing import FakeServer
from evalwright.testing.recorded import ApiName
from tests.providers.wire_cases import ask, chat_provider

ORDER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"price": {"type": "number"}},
                "required": ["price"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["items"],
    "additionalProperties": False,
}
VERDICT: dict[str, Any] = {"type": "object", "properties": {"score": {"type": "number"}}}
ASK = ProviderRequest(case_id="c", messages=(ChatMessage(role="user", content="List the order"),))
SCHEMA = ResponseFormat(json_schema=ORDER, name="order", strict=True)
JSON_MODE = ResponseFormat.model_validate({"json": True})


def with_format(fmt: ResponseFormat, request: ProviderRequest = ASK) -> ProviderRequest:
    """``request`` asking for ``fmt`` in its case settings."""
    return replace(request, settings=SamplingSettings(response_format=fmt))


def _prepared(api: str, request: ProviderRequest, **extra: Any) -> PreparedRequest:
    return chat_provider(api, **extra).prepare(request)


def _body(prepared: PreparedRequest) -> dict[str, Any]:
    return prepared.wire.model_dump(mode="json")["body"]


def _notes(prepared: PreparedRequest) -> list[str]:
    return [f"{note.rule}: {note.detail}" for note in prepared.notes]


@pytest.mark.parametrize("api", ["openai", "azure", "mistral"])
def test_chat_completions_send_the_schema_with_its_name_and_strict(api: str) -> None:
    prepared = _prepared(api, with_format(SCHEMA))

    assert _body(prepared)["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "order", "strict": True, "schema": ORDER},
    }
    assert _notes(prepared) == []


@pytest.mark.parametrize("api", ["openai", "azure", "mistral"])
def test_chat_completions_leave_out_strict_and_default_the_name(api: str) -> None:
    prepared = _prepared(api, with_format(ResponseFormat(json_schema=ORDER)))

    assert _body(prepared)["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": ORDER},
    }


@pytest.mark.parametrize("api", ["openai", "azure", "mistral"])
def test_chat_completions_json_mode_is_json_object(api: str) -> None:
    prepared = _prepared(api, with_format(JSON_MODE))

    assert _body(prepared)["response_format"] == {"type": "json_object"}
    assert _notes(prepared) == []


def test_anthropic_sends_the_schema_as_output_config_and_notes_name_and_strict() -> None:
    prepared = _prepared("anthropic", with_format(SCHEMA))

    sent = _body(prepared)
    assert sent["output_config"] == {"format": {"type": "json_schema", "schema": ORDER}}
    assert "response_format" not in sent
    assert _notes(prepared) == [
        "setting_unsupported: settings.response_format.name: Anthropic Messages has no such "
        "field; not sent",
        "setting_unsupported: settings.response_format.strict: Anthropic Messages has no such "
        "field; not sent",
    ]


def test_anthropic_has_no_json_mode_so_it_is_a_note() -> None:
    prepared = _prepared("anthropic", with_format(JSON_MODE))

    assert "output_config" not in _body(prepared)
    assert _notes(prepared) == [
        "setting_unsupported: settings.response_format.json: Anthropic Messages has no JSON "
        "mode without a schema (give json_schema); not sent"
    ]


def test_gemini_sends_the_mime_type_and_the_schema_as_written() -> None:
    prepared = _prepared("gemini", with_format(ResponseFormat(json_schema=ORDER)))

    assert _body(prepared)["generationConfig"] == {
        "responseMimeType": "application/json",
        "responseJsonSchema": ORDER,
    }
    assert _notes(prepared) == []


def test_gemini_json_mode_is_the_mime_type_alone_and_name_strict_are_notes() -> None:
    json_mode = _prepared("gemini", with_format(JSON_MODE))
    named = _prepared("gemini", with_format(SCHEMA))

    assert _body(json_mode)["generationConfig"] == {"responseMimeType": "application/json"}
    assert _notes(named) == [
        f"setting_unsupported: settings.response_format.{key}: Gemini generateContent has no "
        "such field; not sent"
        for key in ("name", "strict")
    ]


@pytest.mark.parametrize("api", ["openai", "azure", "mistral", "anthropic", "gemini"])
def test_a_targets_response_format_never_reaches_its_judge_requests(api: str) -> None:
    """A judge's verdict schema wins over the target's own setting (Anthropic's judge
    prompt asks for the JSON: nothing is sent there)."""
    settings = {"response_format": {"json_schema": ORDER, "name": "order"}}
    judge = ProviderRequest(
        case_id="j", purpose="judge", response_schema=VERDICT, messages=ASK.messages
    )
    candidate = _body(_prepared(api, ASK, settings=settings))
    judged = _prepared(api, judge, settings=settings)
    sent = _body(judged)

    assert "'items'" in str(candidate)
    assert "'items'" not in str(sent)
    assert _notes(judged) == []
    if api == "anthropic":
        assert "output_config" not in sent
    elif api == "gemini":
        assert sent["generationConfig"]["responseJsonSchema"] == VERDICT
    else:
        assert sent["response_format"]["json_schema"] == {
            "name": "verdict",
            "strict": True,
            "schema": VERDICT,
        }


@pytest.mark.parametrize("api", ["openai", "anthropic", "gemini"])
def test_a_cases_format_wins_over_its_targets(api: str) -> None:
    settings = {"response_format": {"json": True}}
    sent = _body(_prepared(api, with_format(ResponseFormat(json_schema=ORDER)), settings=settings))

    assert "items" in str(sent)


@pytest.mark.parametrize("api", ["openai", "azure", "mistral", "anthropic", "gemini"])
def test_the_server_receives_the_format_the_wire_records(api: str) -> None:
    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with FakeServer() as fake:
            pool = HttpPool()
            try:
                provider = chat_provider(api, pool, base_url=fake.url)
                answer = await ask(provider, with_format(SCHEMA))
            finally:
                await pool.aclose()
            route = "openai" if api == "mistral" else api  # Mistral's route is OpenAI's
            (received,) = fake.requests_for(cast(ApiName, route))
            return cast(dict[str, Any], received.json), answer.wire_request.model_dump(mode="json")[
                "body"
            ]

    received, recorded = asyncio.run(scenario())

    assert received == recorded
    assert received == _body(_prepared(api, with_format(SCHEMA)))
    assert "'price'" in str(received), "the schema went over HTTP"
