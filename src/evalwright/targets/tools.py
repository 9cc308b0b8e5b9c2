"""Tools a case offers the model (docs/tools.md): each declaration as written, and the
``tool_choice`` setting. Every chat API is sent them in its own form."""

from __future__ import annotations

from typing import Annotated, Literal, cast

from pydantic import Discriminator, Field, JsonValue, Tag

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


def _choice_tag(value: object) -> str | None:
    if isinstance(value, str):
        return "mode"
    return "name" if isinstance(value, dict | ToolChoiceName) else None


ToolChoice = Annotated[
    Annotated[Literal["auto", "none", "required"], Tag("mode")]
    | Annotated[ToolChoiceName, Tag("name")],
    Discriminator(
        _choice_tag,
        custom_error_type="tool_choice_type",
        custom_error_message="expected auto, none, required or {name: TOOL}",
    ),
]
"""Whether the model may, must not, or must call a tool, or which one it must call; one
error for a wrong value, not one per form."""

SchemaProblem = tuple[tuple[str | int, ...], str]
"""Where in a tool's ``parameters`` a problem is (a data path inside it), and what it is."""


def parameters_problems(parameters: dict[str, JsonValue]) -> list[SchemaProblem]:
    """Why ``parameters`` is not a usable arguments schema: not valid against its JSON
    Schema meta-schema (its ``$schema``, else draft 2020-12), or not ``type: object``
    (docs/tools.md#declaring-tools). Empty when it is fine."""
    # Imported here: only files that declare tools need the meta-schemas.
    from jsonschema import exceptions, validators

    cls = validators.validator_for(parameters, default=validators.Draft202012Validator)
    found = exceptions.best_match(cls(cls.META_SCHEMA).iter_errors(parameters))  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    error = cast("exceptions.ValidationError | None", found)
    if error is not None:
        path: tuple[str | int, ...] = tuple(error.absolute_path)
        return [(path, f"not a valid JSON Schema: {error.message}")]
    kind = parameters.get("type")
    if kind != "object":
        where: tuple[str | int, ...] = ("type",) if "type" in parameters else ()
        got = "no 'type'" if kind is None else f"type {kind!r}"
        return [(where, f"the arguments schema must have type 'object', got {got}")]
    return []
