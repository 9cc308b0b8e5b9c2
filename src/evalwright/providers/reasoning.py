"""The reasoning of a chat API's answer, read from its response body in the API's order and
kept apart from the answer's text (docs/running.md#reasoning).

Anthropic's ``thinking`` blocks keep their ``signature`` and ``redacted_thinking`` blocks
their ``data``: a tool loop sends both back unchanged (docs/tools.md#the-tool-loop). Gemini's
thought summaries are the parts marked ``thought: true`` (asked for with
``thinkingConfig.includeThoughts``). A body of another shape raises ``TypeError`` or
``KeyError``, which the adapter reports as an unexpected response shape.
"""

from __future__ import annotations

from typing import Any, cast

from evalwright.providers.tool_calls import entries
from evalwright.records import ReasoningPart


def anthropic_reasoning(data: Any) -> tuple[ReasoningPart, ...]:
    """The ``thinking`` and ``redacted_thinking`` blocks of a Messages body's ``content``."""
    parts: list[ReasoningPart] = []
    for block in entries(cast(dict[str, Any], data)["content"]):
        kind = block.get("type")
        if kind == "thinking":
            parts.append(
                ReasoningPart(
                    text=_text(block.get("thinking")), signature=_signature(block.get("signature"))
                )
            )
        elif kind == "redacted_thinking":
            parts.append(ReasoningPart(text="", data=_text(block.get("data"))))
    return tuple(parts)


def gemini_reasoning(data: Any) -> tuple[ReasoningPart, ...]:
    """The thought parts of a generateContent body's first candidate."""
    candidates = entries(cast(dict[str, Any], data).get("candidates"))
    if not candidates:
        return ()
    content = cast(dict[str, Any], candidates[0].get("content") or {})
    return tuple(
        ReasoningPart(
            text=_text(part.get("text")), signature=_signature(part.get("thoughtSignature"))
        )
        for part in entries(content.get("parts"))
        if part.get("thought") is True
    )


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"a reasoning part's text is {type(value).__name__}, not text")
    return value


def _signature(value: Any) -> str | None:
    return None if value is None else _text(value)
