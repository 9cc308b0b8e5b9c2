"""docs/delivery.md#the-chat-prompt beyond the worked examples: the system base, and tool-call
rendering."""

from __future__ import annotations

import pytest

from evalwright.evalfile.messages import Role, ToolCall
from evalwright.evalfile.resolved import CaseMessage, TextSegment
from evalwright.prompts.chat import ChatMessage, chat_prompt, needs_chat_prompt, system_content
from evalwright.prompts.render import question, tool_call_line


def text(role: Role, value: str) -> CaseMessage:
    return CaseMessage(role, (TextSegment(value),))


@pytest.mark.parametrize(
    ("system_prompt", "expected"),
    [(None, "You are a careful assistant."), ("Be terse.", "Be terse."), ("", "")],
)
def test_target_system_prompt_is_the_base_without_leading_system(
    system_prompt: str | None, expected: str
) -> None:
    messages = [text("user", "a"), text("assistant", "b")]
    assert system_content(messages, "", system_prompt) == expected


def test_empty_system_prompt_with_guidelines_keeps_only_the_guidelines() -> None:
    content = system_content([text("user", "a")], "<file>", "")
    assert content == "[[ ## Guidelines ## ]]\n\n<file>"


def test_no_system_entry_when_system_content_is_empty() -> None:
    entries, _ = chat_prompt([text("user", "a"), text("assistant", "b")], ())
    assert [e.role for e in entries] == ["user", "assistant"]


def test_leading_system_messages_join_with_a_blank_line() -> None:
    messages = [text("system", "one"), text("system", "two"), text("user", "hi")]
    assert system_content(messages, "", "ignored") == "one\n\ntwo"


def test_a_lone_user_turn_needs_no_chat_prompt() -> None:
    assert not needs_chat_prompt([text("user", "a")])
    assert needs_chat_prompt([text("system", "s")])
    assert needs_chat_prompt([text("user", "a"), text("user", "b")])


def test_tool_call_arguments_are_sorted_compact_unicode_json() -> None:
    call = ToolCall(id="c-1", name="look_up", arguments={"z": 1, "a": "é", "m": [1, {"k": None}]})
    assert tool_call_line(call) == (
        '<tool_call id="c-1" name="look_up">{"a":"é","m":[1,{"k":null}],"z":1}</tool_call>'
    )


def test_tool_call_arguments_given_as_a_json_string() -> None:
    call = ToolCall.model_validate({"id": "c1", "name": "f", "arguments": '{"b": 2, "a": 1}'})
    assert call.arguments == {"b": 2, "a": 1}
    assert tool_call_line(call).endswith('>{"a":1,"b":2}</tool_call>')


def test_mid_system_note_names_its_index() -> None:
    messages = [text("user", "a"), text("system", "s"), text("user", "b")]
    entries, notes = chat_prompt(messages, (ChatMessage("system", "base"),))
    assert entries[2].role == "assistant"
    assert entries[2].content == "@[System]:\ns"
    assert [n.rule for n in notes] == ["system_mid_conversation"]
    assert notes[0].detail.startswith("chat_prompt[2]")


def test_flat_question_joins_blocks_with_one_newline() -> None:
    assert question([text("user", "only")], "lm") == "only"


def test_an_empty_turn_is_left_out_with_a_note_a_guideline_only_turn_without() -> None:
    from evalwright.evalfile.resolved import GuidelineSegment

    guideline = CaseMessage("user", (GuidelineSegment("g.md", "/p/g.md", "Be brief."),))
    messages = [CaseMessage("user", ()), text("assistant", "Hi"), guideline, text("user", "Go")]
    entries, notes = chat_prompt(messages, (ChatMessage("system", "base"),))

    assert [(e.role, e.content) for e in entries[1:]] == [("assistant", "Hi"), ("user", "Go")]
    assert [(n.rule, n.detail.split(":")[0]) for n in notes] == [
        ("empty_message_dropped", "input_messages[0]")
    ]
