"""Tools a case offers the model (docs/tools.md): each declaration as written, and the
``tool_choice`` setting. Every chat API is sent them in its own form."""

from __future__ import annotations

from typing import Annotated, Literal, cast

from pydantic import AfterValidator, Discriminator, Field, JsonValue, Tag, model_validator

from evalwright.files.base import EnvName, FileModel, NonEmptyStr, Pattern, field_error

ToolName = Annotated[str, Pattern(r"[A-Za-z_][A-Za-z0-9_-]{0,63}", "tool name")]
"""A name every chat API accepts: a letter or ``_`` first, then letters, digits, ``_`` and
``-``, 64 characters at most."""


class ScriptedResult(FileModel):
    """One entry of a tool's ``results:``: what the tool answers when the call's arguments
    hold every key of ``when`` with its value (docs/tools.md#scripted-results)."""

    when: dict[str, JsonValue] | None = None
    """The arguments to match (a partial match, nested objects too); none matches any call."""
    result: JsonValue = None
    """What the tool answers: a text as it is, anything else as its JSON text."""
    error: NonEmptyStr | None = None
    """Fail the call with this message instead (an error result, docs/tools.md#failures)."""

    @model_validator(mode="after")
    def _one_answer(self) -> ScriptedResult:
        if "result" in self.model_fields_set and self.error is not None:
            raise field_error("exclusive", "give 'result' or 'error', not both", "error")
        return self


class ToolSpec(FileModel):
    """One tool: its name, what it does, its arguments' JSON Schema and, when the tool loop
    runs it, its implementation (docs/tools.md#the-tool-loop)."""

    name: ToolName
    description: str | None = None
    parameters: dict[str, JsonValue] = Field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    """A JSON Schema of the arguments object (``type: object``)."""
    strict: bool | None = None
    """Ask the API to hold the model's arguments to the schema, where it can."""
    result: JsonValue = None
    """A fixed answer to every call (only when written: ``result: null`` answers ``null``)."""
    results: list[ScriptedResult] | None = None
    """Answers chosen by the call's arguments: the first entry that matches."""
    command: Annotated[list[NonEmptyStr], Field(min_length=1)] | None = None
    """A program (argv, never a shell) given the arguments as JSON on stdin; its stdout is the
    answer."""
    cwd: NonEmptyStr | None = None
    """The command's directory (default: that of the file declaring the tool)."""
    timeout_seconds: Annotated[float, Field(gt=0)] = 30.0
    """How long the command may run before it is killed and the call fails."""
    pass_env: list[EnvName] = Field(default_factory=list[str])
    """Secret-named variables the command may see (none by default)."""

    @model_validator(mode="after")
    def _one_implementation(self) -> ToolSpec:
        given = [key for key in ("result", "results", "command") if key in self.model_fields_set]
        if len(given) > 1:
            message = "give one implementation: 'result', 'results' or 'command'"
            raise field_error("exclusive", message, given[1])
        return self

    @property
    def implemented(self) -> bool:
        """Whether the tool loop can answer a call of this tool."""
        return bool({"result", "results", "command"} & self.model_fields_set)


class McpServer(FileModel):
    """An MCP server whose tools a case offers (docs/tools.md#mcp-servers): started as a
    command over stdio, or reached at a streamable HTTP ``url``."""

    command: Annotated[list[NonEmptyStr], Field(min_length=1)] | None = None
    url: Annotated[str, Pattern(r"https?://\S+", "http(s) URL")] | None = None
    cwd: NonEmptyStr | None = None
    """The command's directory (default: the eval file's)."""
    pass_env: list[EnvName] = Field(default_factory=list[str])
    """Secret-named variables the command may see (none by default)."""
    timeout_seconds: Annotated[float, Field(gt=0)] = 30.0
    """How long starting, listing, and each call may take."""

    @model_validator(mode="after")
    def _one_transport(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            message = "give 'command' (stdio) or 'url' (streamable HTTP), one of them"
            raise field_error("transport", message)
        return self


class McpTools(FileModel):
    """``{mcp: SERVER, include: [NAMES]}`` in a ``tools:`` list: the tools an MCP server lists,
    all of them or those ``include`` names."""

    mcp: McpServer
    include: list[ToolName] | None = None


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


def schema_problems(schema: dict[str, JsonValue]) -> list[SchemaProblem]:
    """Why ``schema`` is not a valid JSON Schema against its meta-schema (its ``$schema``,
    else draft 2020-12); empty when it is."""
    # Imported here: only files that declare schemas need the meta-schemas.
    from jsonschema import exceptions, validators

    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    found = exceptions.best_match(cls(cls.META_SCHEMA).iter_errors(schema))  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    error = cast("exceptions.ValidationError | None", found)
    if error is None:
        return []
    path: tuple[str | int, ...] = tuple(error.absolute_path)
    return [(path, f"not a valid JSON Schema: {error.message}")]


def instance_problems(schema: dict[str, JsonValue], value: JsonValue) -> list[SchemaProblem]:
    """Where and why ``value`` does not match ``schema`` (a valid one), in document order."""
    from jsonschema import validators

    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    errors = cls(schema).iter_errors(value)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    found: list[SchemaProblem] = [(tuple(e.absolute_path), e.message) for e in errors]  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType, reportUnknownArgumentType]
    return sorted(found, key=lambda problem: [str(part) for part in problem[0]])


def json_path(path: tuple[str | int, ...]) -> str:
    """A data path as a JSONPath: ``$.items[2].price``."""
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _valid_schema(schema: dict[str, JsonValue]) -> dict[str, JsonValue]:
    for path, problem in schema_problems(schema)[:1]:
        where = f" (at {json_path(path)} of the schema)" if path else ""
        raise field_error("schema", problem + where)
    return schema


JsonSchema = Annotated[dict[str, JsonValue], AfterValidator(_valid_schema)]
"""A JSON Schema, checked against its meta-schema (its ``$schema``, else draft 2020-12)."""


def parameters_problems(parameters: dict[str, JsonValue]) -> list[SchemaProblem]:
    """Why ``parameters`` is not a usable arguments schema: not a valid JSON Schema
    (:func:`schema_problems`), or not ``type: object`` (docs/tools.md#declaring-tools).
    Empty when it is fine."""
    found = schema_problems(parameters)
    if found:
        return found
    kind = parameters.get("type")
    if kind != "object":
        where: tuple[str | int, ...] = ("type",) if "type" in parameters else ()
        got = "no 'type'" if kind is None else f"type {kind!r}"
        return [(where, f"the arguments schema must have type 'object', got {got}")]
    return []
