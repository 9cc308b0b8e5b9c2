"""A message's ``name`` (few-shot ``example_user``/``example_assistant``): sent where the API
takes it, a ``name_unsupported`` note where not (docs/delivery.md#delivery-notes)."""

from __future__ import annotations

from typing import Any

import pytest

from evalwright.evalfile import LoadedCase, load_eval_file
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest
from tests.conftest import ProjectDir
from tests.providers.test_oracles import materialize, openapi_validator
from tests.providers.wire_cases import chat_provider, prepare

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


@pytest.mark.parametrize("api", ["openai", "azure"])
def test_responses_note_each_name_and_send_valid_items(api: str) -> None:
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
    from pydantic import TypeAdapter

    prepared = chat_provider(api, api="responses").prepare(REQUEST)
    body = prepared.wire.model_dump(mode="json")["body"]
    assert [item.get("name") for item in body["input"]] == [None] * 4
    notes = [n.detail for n in prepared.notes if n.rule == "name_unsupported"]
    assert [n.split(":")[0] for n in notes] == ["chat_prompt[1]", "chat_prompt[2]"]
    assert "OpenAI Responses has no field" in notes[0]
    assert not list(openapi_validator("CreateResponse").iter_errors(body))
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseCreateParamsNonStreaming)
    assert materialize(adapter.validate_python(body)) == body


def test_named_messages_give_bodies_the_vendor_types_accept() -> None:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from google.genai import types
    from pydantic import TypeAdapter

    anthropic = chat_provider("anthropic").prepare(REQUEST).wire.model_dump(mode="json")["body"]
    adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
    assert materialize(adapter.validate_python(anthropic)) == anthropic
    gemini = chat_provider("gemini").prepare(REQUEST).wire.model_dump(mode="json")["body"]
    for content in gemini["contents"]:
        types.Content.model_validate(content)
    assert [c["parts"][0]["text"] for c in gemini["contents"]] == ["chat", "cat", "chien"]


@pytest.mark.parametrize(("api", "field"), [("openai", "messages"), ("azure", "input")])
def test_a_developer_system_role_is_noted(api: str, field: str) -> None:
    extra: dict[str, Any] = {"system_role": "developer"}
    if field == "input":
        extra["api"] = "responses"
    prepared = chat_provider(api, **extra).prepare(REQUEST)
    body = prepared.wire.model_dump(mode="json")["body"]
    assert body[field][0]["role"] == "developer"
    [note] = [n for n in prepared.notes if n.rule == "system_as_developer"]
    assert note.detail.startswith("chat_prompt[0]: the system message is sent with role")
    plain = chat_provider(api, **{k: v for k, v in extra.items() if k == "api"}).prepare(REQUEST)
    assert not [n for n in plain.notes if n.rule == "system_as_developer"]


FEW_SHOT = """evalcases:
  - id: few-shot
    expected_outcome: Translates.
    input_messages:
      - {role: system, content: Translate to French.}
      - {role: system, name: example_user, content: cat}
      - {role: system, name: example_assistant, content: chat}
      - {role: user, content: dog}
      - {role: assistant, content: chien}
      - {role: system, name: example_user, content: bird}
      - {role: user, content: horse}
"""


@pytest.fixture
def few_shot(project: ProjectDir) -> LoadedCase:
    """OpenAI-evals' few-shot convention: examples as named system messages."""
    (case,) = load_eval_file(project.write("evals/e.yaml", FEW_SHOT)).cases
    return case


def test_named_system_messages_merged_say_their_names_are_lost(few_shot: LoadedCase) -> None:
    prepared = prepare("openai", few_shot)

    body = prepared.wire.model_dump(mode="json")["body"]
    assert body["messages"][0] == {
        "role": "system",
        "content": "Translate to French.\n\ncat\n\nchat",
    }
    assert [(n.rule, n.detail.split(":")[0]) for n in prepared.notes] == [
        ("system_messages_merged", "chat_prompt[0]"),
        ("name_unsupported", "input_messages[1]"),
        ("name_unsupported", "input_messages[2]"),
        ("name_unsupported", "input_messages[5]"),
        ("system_mid_conversation", "chat_prompt[3]"),
    ]


def test_named_system_messages_kept_apart_keep_their_names(few_shot: LoadedCase) -> None:
    prepared = prepare("openai", few_shot, system_messages="separate")

    body = prepared.wire.model_dump(mode="json")["body"]
    assert [(m["role"], m.get("name"), m["content"]) for m in body["messages"][:3]] == [
        ("system", None, "Translate to French."),
        ("system", "example_user", "cat"),
        ("system", "example_assistant", "chat"),
    ]
    assert not list(openapi_validator("CreateChatCompletionRequest").iter_errors(body))
    assert [n.rule for n in prepared.notes] == ["name_unsupported", "system_mid_conversation"]
    claude = prepare("anthropic", few_shot, system_messages="separate")
    assert [n.detail.split(":")[0] for n in claude.notes if n.rule == "name_unsupported"] == [
        "input_messages[5]",
        "chat_prompt[1]",
        "chat_prompt[2]",
    ]
