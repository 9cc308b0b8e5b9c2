"""Messages and content parts as authored in an eval file
(docs/eval-files.md#messages-and-parts)."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    Tag,
    model_validator,
)

from evalwright import jsontext
from evalwright.files.base import FileModel, Pattern, field_error, still_required, variant
from evalwright.files.media import MediaKind
from evalwright.files.source import MAX_DEPTH
from evalwright.targets.tools import ToolName

Role = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant", "tool")
PART_TYPES = ("text", "file", "image", "pdf", "audio")

ToolCallId = Annotated[str, Pattern(r"[A-Za-z0-9_-]{1,64}", "tool call id")]


class TextPart(FileModel):
    """A text part: ``{type: text, value: STRING}`` (``TextPart(value=...)`` in Python)."""

    model_config = ConfigDict(json_schema_extra=still_required("type"))

    type: Literal["text"] = "text"
    value: str


class FilePart(FileModel):
    """A file part: ``{type: file, value: PATH}`` (docs/eval-files.md#file-references);
    ``FilePart(value=...)`` in Python."""

    model_config = ConfigDict(json_schema_extra=still_required("type"))

    type: Literal["file"] = "file"
    value: str


class MediaPart(FileModel):
    """A media part (docs/eval-files.md#media-parts): ``{type: image | pdf | audio, value:
    PATH}``, its format sniffed from its bytes, or ``{type: image, url: URL}`` for an image
    the API fetches itself; ``MediaPart(type="image", value=...)`` in Python."""

    type: MediaKind
    value: str | None = None
    url: str | None = None

    @model_validator(mode="after")
    def _check(self) -> MediaPart:
        if (self.value is None) == (self.url is None):
            raise field_error(
                "media_source", f"a {self.type} part needs exactly one of 'value' (a path) or 'url'"
            )
        if self.url is not None:
            if self.type != "image":
                raise field_error(
                    "media_url",
                    f"only an image may be given by url; a {self.type} needs 'value'",
                    "url",
                )
            if not self.url.startswith(("https://", "http://")):
                raise field_error("media_url", "url must start with https:// or http://", "url")
        return self


def _part_tag(value: JsonValue | BaseModel) -> str | None:
    """The part's tag, for data read from a file or a part built in Python."""
    if isinstance(value, str):
        return "str"
    if isinstance(value, TextPart | FilePart | MediaPart):
        return value.type if value.type in ("text", "file") else "media"
    if isinstance(value, dict):
        kind = value.get("type")
        if isinstance(kind, str) and kind in PART_TYPES:
            return kind if kind in ("text", "file") else "media"
    return None


Part = Annotated[
    Annotated[str, Tag("str")]
    | Annotated[TextPart, Tag("text")]
    | Annotated[FilePart, Tag("file")]
    | Annotated[MediaPart, Tag("media")],
    variant(_part_tag, "type", "unsupported part type", PART_TYPES),
]
"""A plain string (text), a :class:`TextPart`, a :class:`FilePart` or a :class:`MediaPart`."""


def _content_tag(value: object) -> str | None:
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list"
    if value is None:
        return "null"
    return None


_CONTENT_ERROR = "expected a string or a list of parts"
Content = Annotated[
    Annotated[str, Tag("str")] | Annotated[list[Part], Tag("list")],
    Discriminator(
        _content_tag, custom_error_type="content_type", custom_error_message=_CONTENT_ERROR
    ),
]
"""A message's content: a string, or a list of parts."""
OptionalContent = Annotated[
    Annotated[str, Tag("str")] | Annotated[list[Part], Tag("list")] | Annotated[None, Tag("null")],
    Discriminator(
        _content_tag, custom_error_type="content_type", custom_error_message=_CONTENT_ERROR
    ),
]


def _parse_arguments(value: object) -> object:
    if isinstance(value, str):
        try:
            parsed = jsontext.loads(value)
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise field_error("arguments", f"arguments is not valid JSON: {reason}") from None
        if not isinstance(parsed, dict):
            raise field_error("arguments", "arguments must be a JSON object")
        if _deeper_than(parsed, MAX_DEPTH):
            raise field_error("arguments", f"arguments nest more than {MAX_DEPTH} levels deep")
        return parsed
    return value


def _deeper_than(value: JsonValue, limit: int) -> bool:
    """Whether ``value`` nests lists and mappings more than ``limit`` deep (no recursion: it
    is what a too deep value would break)."""
    stack: list[tuple[JsonValue, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = list(item.values()) if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


class ToolCall(FileModel):
    """A call an assistant made: ``{id, name, arguments}``; ``arguments`` is always a mapping."""

    id: ToolCallId
    name: ToolName
    arguments: Annotated[
        dict[str, JsonValue],
        BeforeValidator(_parse_arguments, json_schema_input_type=dict[str, object] | str),
    ] = Field(default_factory=dict[str, JsonValue])


ParticipantName = Annotated[str, Pattern(r"[A-Za-z0-9_-]{1,64}", "participant name")]
"""A message's ``name`` (e.g. few-shot ``example_user``): OpenAI's documented constraint,
letters, digits, ``_`` and ``-``, 1 to 64 characters (docs/eval-files.md)."""


class SystemMessage(FileModel):
    """A system turn; OpenAI-evals' few-shot examples are system turns named
    ``example_user`` and ``example_assistant``."""

    role: Literal["system"]
    content: Content
    name: ParticipantName | None = None


class UserMessage(FileModel):
    """A user turn."""

    role: Literal["user"]
    content: Content
    name: ParticipantName | None = None


class AssistantMessage(FileModel):
    """An assistant turn; ``content`` may be left out when it has ``tool_calls``."""

    role: Literal["assistant"]
    content: OptionalContent = None
    name: ParticipantName | None = None
    tool_calls: list[ToolCall] | None = None

    @model_validator(mode="after")
    def _check(self) -> AssistantMessage:
        if self.content is None and not self.tool_calls:
            raise field_error(
                "required",
                "missing required key 'content' (an assistant message "
                "needs content unless it has tool_calls)",
                "content",
            )
        return self


class ToolMessage(FileModel):
    """A tool result; ``tool_call_id`` names the call it answers."""

    role: Literal["tool"]
    content: Content
    tool_call_id: ToolCallId | None = None
    name: ToolName | None = None


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolMessage, Field(discriminator="role")
]
"""One authored message: a union discriminated by ``role``."""
