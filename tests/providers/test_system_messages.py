"""Several leading system messages (11,404 OpenAI-evals cases have them): joined into one
with a ``system_messages_merged`` note by default, or kept apart with the target's
``system_messages: separate`` in each API's own form (docs/delivery.md#the-system-message)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter

from evalwright.evalfile import LoadedCase, load_eval_file
from tests.conftest import ProjectDir
from tests.providers.test_oracles import materialize, openapi_validator
from tests.providers.wire_cases import body, prepare, rules

EVAL = """evalcases:
  - id: two-systems
    expected_outcome: Answers in French, briefly.
    input_messages:
      - {role: system, content: You translate.}
      - role: system
        content: [Answer in French., {type: file, value: style.instructions.md}]
      - {role: user, content: Hello}
"""
FIRST, SECOND = "You translate.", "Answer in French.\n<Attached: style.instructions.md>"
GUIDE = '[[ ## Guidelines ## ]]\n\n<file path="style.instructions.md">\nBe brief.\n</file>'


@pytest.fixture
def case(project: ProjectDir) -> LoadedCase:
    project.write("evals/style.instructions.md", "Be brief.\n")
    (case,) = load_eval_file(project.write("evals/e.yaml", EVAL)).cases
    return case


@pytest.mark.parametrize("api", ["openai", "azure", "anthropic", "gemini", "mistral"])
def test_merged_by_default_with_a_note(api: str, case: LoadedCase) -> None:
    prepared = prepare(api, case)

    assert rules(prepared) == ["system_messages_merged"]
    assert prepared.notes[0].detail.startswith("chat_prompt[0]: the 2 leading system messages")
    sent = json.dumps(prepared.wire.model_dump(mode="json")["body"])
    assert json.dumps(f"{FIRST}\n\n{SECOND}\n\n{GUIDE}") in sent


def test_kept_apart_on_chat_completions_and_responses(case: LoadedCase) -> None:
    chat = body("openai", case, system_messages="separate")
    assert chat["messages"][:2] == [
        {"role": "system", "content": FIRST},
        {"role": "system", "content": f"{SECOND}\n\n{GUIDE}"},
    ]
    assert not list(openapi_validator("CreateChatCompletionRequest").iter_errors(chat))
    separate: dict[str, Any] = {"system_messages": "separate", "api": "responses"}
    responses = prepare("azure", case, **separate).wire.model_dump(mode="json")["body"]
    assert [item["content"] for item in responses["input"][:2]] == [FIRST, f"{SECOND}\n\n{GUIDE}"]
    assert not rules(prepare("mistral", case, system_messages="separate"))


def test_kept_apart_as_anthropic_blocks_and_gemini_parts(case: LoadedCase) -> None:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from google.genai import types

    anthropic = body("anthropic", case, system_messages="separate")
    assert anthropic["system"] == [
        {"type": "text", "text": FIRST},
        {"type": "text", "text": f"{SECOND}\n\n{GUIDE}"},
    ]
    adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
    assert materialize(adapter.validate_python(anthropic)) == anthropic
    gemini = body("gemini", case, system_messages="separate")
    assert gemini["systemInstruction"] == {
        "parts": [{"text": FIRST}, {"text": f"{SECOND}\n\n{GUIDE}"}]
    }
    types.Content.model_validate(gemini["systemInstruction"])
    assert not rules(prepare("gemini", case, system_messages="separate"))
