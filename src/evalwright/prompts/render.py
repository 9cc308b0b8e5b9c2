"""Render segments, blocks and the question (docs/delivery.md#lm-mode-and-agent-mode,
docs/delivery.md#the-question-flat-or-with-role-markers)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from evalwright.evalfile.messages import ROLES, ToolCall
from evalwright.evalfile.resolved import (
    CaseMessage,
    FileSegment,
    MediaSegment,
    Segment,
    TextSegment,
)
from evalwright.targets.kind_facts import Mode

# Each role's marker line, as ``@[{role.capitalize()}]:`` spells it.
_MARKERS: dict[str, str] = {role: f"@[{role.capitalize()}]:\n" for role in ROLES}


def file_block(display: str, content: str) -> str:
    """A file shown inline: ``<file path="DISPLAY">\\nCONTENT\\n</file>``."""
    return f'<file path="{display}">\n{content}\n</file>'


def render_segment(segment: Segment, mode: Mode) -> str:
    """One segment as text, in LM or agent mode."""
    if isinstance(segment, TextSegment):  # the usual segment: tested first
        return segment.text
    if isinstance(segment, FileSegment):
        if mode == "agent":
            return f'<file: path="{segment.display}">'
        return file_block(segment.display, segment.content)
    if isinstance(segment, MediaSegment):
        # An agent reads the file at its path; in text, a marker stands where the media was
        # (a chat API gets the media natively: prompts/chat.py).
        if mode == "agent" and segment.media is not None:
            return f'<file: path="{segment.display}">'
        return segment.marker()
    return f"<Attached: {segment.display}>"


class ReturnedCall(ToolCall):
    """A call the model made in this run, sent back in the tool loop's next request with its
    arguments' text exactly as the API returned it (docs/tools.md#the-tool-loop)."""

    raw_arguments: str
    signature: str | None = None
    """Gemini's ``thoughtSignature`` of the call, when the API gave one."""


def tool_arguments(call: ToolCall) -> str:
    """A call's arguments as a JSON string: as the model wrote them for a call it made in
    this run, else the canonical compact form."""
    if isinstance(call, ReturnedCall):
        return call.raw_arguments
    return json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def tool_call_line(call: ToolCall) -> str:
    """``<tool_call id="ID" name="NAME">ARGUMENTS</tool_call>``."""
    return f'<tool_call id="{call.id}" name="{call.name}">{tool_arguments(call)}</tool_call>'


def content_text(message: CaseMessage, mode: Mode = "lm") -> str:
    """A message's rendered segments joined by ``\\n`` (its chat content; no tool calls)."""
    segments = message.segments
    if len(segments) == 1:  # most turns: one text, nothing to join
        return render_segment(segments[0], mode)
    return "\n".join([render_segment(s, mode) for s in segments])


def block(message: CaseMessage, mode: Mode) -> str:
    """A message's block: rendered segments, then one line per tool call."""
    if not message.tool_calls:
        return content_text(message, mode)
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
        return "\n\n".join([_MARKERS[m.role] + block(m, mode) for m in messages if m.visible])
    return "\n".join(text for text in (block(m, mode) for m in messages) if text)
