"""Reading an answer's reasoning from each API's response body (docs/running.md#reasoning):
in the API's order, signatures and redacted data kept, never part of the answer's text, and a
reasoning part of another shape reported as an unexpected response shape."""

from __future__ import annotations

from typing import Any

import pytest

from evalwright.providers.anthropic.convert import parse_reply as anthropic_text
from evalwright.providers.gemini.convert import parse_reply as gemini_text
from evalwright.providers.reasoning import anthropic_reasoning, gemini_reasoning
from evalwright.records import ReasoningPart

ANTHROPIC: dict[str, Any] = {
    "content": [
        {"type": "thinking", "thinking": "First.", "signature": "s1"},
        {"type": "redacted_thinking", "data": "RU5D"},
        {"type": "text", "text": "Answer."},
        {"type": "thinking", "thinking": "Then.", "signature": "s2"},
        {"type": "tool_use", "id": "t", "name": "f", "input": {}},
    ],
    "stop_reason": "tool_use",
}
GEMINI: dict[str, Any] = {
    "candidates": [
        {
            "content": {
                "parts": [
                    {"text": "**Thinking** about it.", "thought": True},
                    {"text": "Answer.", "thoughtSignature": "g1"},
                    {"text": "More.", "thought": True, "thoughtSignature": "g2"},
                ]
            },
            "finishReason": "STOP",
        }
    ]
}


def test_anthropic_thinking_blocks_are_read_in_order_and_kept_out_of_the_text() -> None:
    assert anthropic_reasoning(ANTHROPIC) == (
        ReasoningPart(text="First.", signature="s1"),
        ReasoningPart(text="", data="RU5D"),
        ReasoningPart(text="Then.", signature="s2"),
    )
    assert anthropic_text(ANTHROPIC)[0] == "Answer."


def test_gemini_thought_parts_are_read_and_kept_out_of_the_text() -> None:
    assert gemini_reasoning(GEMINI) == (
        ReasoningPart(text="**Thinking** about it."),
        ReasoningPart(text="More.", signature="g2"),
    )
    assert gemini_text(GEMINI)[0] == "Answer."
    assert gemini_reasoning({"candidates": []}) == ()


@pytest.mark.parametrize(
    ("read", "body"),
    [
        (anthropic_reasoning, {"content": [{"type": "thinking", "thinking": 3}]}),
        (anthropic_reasoning, {"content": [{"type": "thinking", "thinking": "", "signature": 1}]}),
        (gemini_reasoning, {"candidates": [{"content": {"parts": [{"thought": True}]}}]}),
    ],
)
def test_a_reasoning_part_of_another_shape_is_a_type_error(read: Any, body: Any) -> None:
    with pytest.raises(TypeError):
        read(body)
