"""Render segments, blocks and the question (docs/delivery.md#lm-mode-and-agent-mode,
docs/delivery.md#the-question-flat-or-with-role-markers)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from evalwright.evalfile.messages import ToolCall
from evalwright.evalfile.resolved import CaseMessage, FileSegment, GuidelineSegment, Segment

Mode = Literal["lm", "agent"]


def file_block(display: str, content: str) -> str:
    """A file shown inline: ``<file path="DISPLAY">\\nCONTENT\\n</file>``."""
    return f'<file path="{display}">\n{content}\n</file>'


def render_segment(segment: Segment, mode: Mode) -> str:
    """One segment as text, in LM or agent mode."""
    if isinstance(segment, FileSegment):
        if mode == "agent":
            return f'<file: path="{segment.display}">'
        return file_block(segment.display, segment.content)
    if isinstance(segment, GuidelineSegment):
        return f"<Attached: {segment.display}>"
    return segment.text


def tool_arguments(call: ToolCall) -> str:
    """A call's arguments as the canonical compact JSON string."""
    return json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def tool_call_line(call: ToolCall) -> str:
    """``<tool_call id="ID" name="NAME">ARGUMENTS</tool_call>``."""
    return f'<tool_call id="{call.id}" name="{call.name}">{tool_arguments(call)}</tool_call>'


def content_text(message: CaseMessage, mode: Mode = "lm") -> str:
    """A message's rendered segments joined by ``\\n`` (its chat content; no tool calls)."""
    return "\n".join(render_segment(s, mode) for s in message.segments)


def block(message: CaseMessage, mode: Mode) -> str:
    """A message's block: rendered segments, then one line per tool call."""
    lines = [render_segment(s, mode) for s in message.segments]
    lines.extend(tool_call_line(call) for call in message.tool_calls)
    return "\n".join(lines)


def uses_markers(messages: Sequence[CaseMessage]) -> bool:
    """Role markers are used iff some turn is assistant or tool, or several are visible."""
    if any(m.role in ("assistant", "tool") for m in messages):
        return True
    return sum(1 for m in messages if m.visible) > 1


def question(messages: Sequence[CaseMessage], mode: Mode) -> str:
    """The transcript of a conversation, with role markers or flat."""
    if uses_markers(messages):
        return "\n\n".join(
            f"@[{m.role.capitalize()}]:\n{block(m, mode)}" for m in messages if m.visible
        )
    return "\n".join(text for text in (block(m, mode) for m in messages) if text)
