"""Messages written in Python: one helper per role (docs/python-api.md#suites-and-cases).

Each helper takes the turn's content as arguments: strings and :class:`TextPart` are text,
a :class:`pathlib.Path` or :class:`FilePart` attaches a file. A single string stays a plain
string, exactly as ``content: "..."`` in a YAML file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import PurePath

from pydantic import JsonValue

from evalwright.evalfile.messages import (
    AssistantMessage,
    FilePart,
    MediaPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
)

Content = str | TextPart | FilePart | MediaPart | PurePath
"""What a helper accepts as one piece of a turn."""


def _content(parts: Sequence[Content]) -> str | list[str | TextPart | FilePart | MediaPart]:
    if len(parts) == 1 and isinstance(parts[0], str):
        return parts[0]
    return [FilePart(value=os.fspath(p)) if isinstance(p, PurePath) else p for p in parts]


def system(*content: Content) -> SystemMessage:
    """A system turn."""
    return SystemMessage(role="system", content=_content(content))


def user(*content: Content) -> UserMessage:
    """A user turn; a ``Path`` attaches that file in this turn."""
    return UserMessage(role="user", content=_content(content))


def assistant(*content: Content, tool_calls: Sequence[ToolCall] = ()) -> AssistantMessage:
    """An assistant turn, with the tool calls it made."""
    return AssistantMessage(
        role="assistant",
        content=_content(content) if content else None,
        tool_calls=list(tool_calls) or None,
    )


def tool(
    *content: Content, tool_call_id: str | None = None, name: str | None = None
) -> ToolMessage:
    """A tool result answering the call ``tool_call_id``."""
    return ToolMessage(role="tool", content=_content(content), tool_call_id=tool_call_id, name=name)


def tool_call(id: str, name: str, arguments: dict[str, JsonValue] | None = None) -> ToolCall:
    """A call an assistant made: ``{id, name, arguments}``."""
    return ToolCall(id=id, name=name, arguments=arguments or {})
