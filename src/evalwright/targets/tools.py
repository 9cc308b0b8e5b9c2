"""Tools a case offers the model (docs/tools.md): each declaration as written, and the
``tool_choice`` setting. Every chat API is sent them in its own form."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue

from evalwright.files.base import FileModel, Pattern

ToolName = Annotated[str, Pattern(r"[A-Za-z_][A-Za-z0-9_-]{0,63}", "tool name")]
"""A name every chat API accepts: a letter or ``_`` first, then letters, digits, ``_`` and
``-``, 64 characters at most."""


class ToolSpec(FileModel):
    """One tool: its name, what it does, and its arguments' JSON Schema."""

    name: ToolName
    description: str | None = None
    parameters: dict[str, JsonValue] = Field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    """A JSON Schema of the arguments object (``type: object``)."""
    strict: bool | None = None
    """Ask the API to hold the model's arguments to the schema, where it can."""


class ToolChoiceName(FileModel):
    """``tool_choice: {name: NAME}``: the model must call that tool."""

    name: ToolName


ToolChoice = Literal["auto", "none", "required"] | ToolChoiceName
"""Whether the model may, must not, or must call a tool, or which one it must call."""
