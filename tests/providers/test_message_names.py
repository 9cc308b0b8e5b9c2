"""A message's ``name`` (few-shot ``example_user``/``example_assistant``): sent where the API
takes it, a ``name_unsupported`` note where not (docs/delivery.md#the-eleven-delivery-notes)."""

from __future__ import annotations

import pytest

from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest
from tests.providers.test_oracles import openapi_validator
from tests.providers.wire_cases import chat_provider

REQUEST = ProviderRequest(
    case_id="c",
    messages=(
        ChatMessage(role="system", content="Translate."),
        ChatMessage(role="user", content="chat", name="example_user"),
        ChatMessage(role="assistant", content="cat", name="example_assistant"),
        ChatMessage(role="user", content="chien"),
    ),
)


@pytest.mark.parametrize("api", ["openai", "azure"])
def test_chat_completions_send_the_name(api: str) -> None:
    prepared = chat_provider(api).prepare(REQUEST)
    body = prepared.wire.model_dump(mode="json")["body"]
    assert [m.get("name") for m in body["messages"]] == [
        None,
        "example_user",
        "example_assistant",
        None,
    ]
    assert not list(openapi_validator("CreateChatCompletionRequest").iter_errors(body))
    assert not [n for n in prepared.notes if n.rule == "name_unsupported"]


@pytest.mark.parametrize("api", ["anthropic", "gemini", "mistral"])
def test_apis_without_the_field_note_each_name(api: str) -> None:
    prepared = chat_provider(api).prepare(REQUEST)
    assert "example_user" not in str(prepared.wire.model_dump(mode="json")["body"])
    notes = [n.detail for n in prepared.notes if n.rule == "name_unsupported"]
    assert len(notes) == 2
    assert notes[0].startswith("chat_prompt[1]:")
    assert "'example_user'" in notes[0]
