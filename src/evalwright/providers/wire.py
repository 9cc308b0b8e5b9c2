"""What a target was sent, as recorded on every row (docs/delivery.md#what-is-recorded).

A union discriminated by ``api``: a chat API's request body exactly as sent, an agent's
command and prompt document, or the mock's messages. Adapters build them with
``model_construct``: every value comes from our own converters, and validating a body again for
every request would be most of a case's CPU; reading a results file validates them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import (
    BaseModel,
    Field,
    JsonValue,
    model_serializer,
)

from evalwright.records import RecordModel
from evalwright.targets.kinds import wire_apis

if TYPE_CHECKING:
    ChatApi = str
    AgentApi = str
else:
    # One Literal of the values the kinds' rows declare: ``api`` tells the request shapes
    # apart, and the results schema lists them.
    ChatApi = Literal[wire_apis("chat")]
    AgentApi = Literal[wire_apis("agent")]


class ChatWireRequest(RecordModel):
    """A chat API's request: the body exactly as sent, and the URL path without the host."""

    api: ChatApi
    model: str
    url_path: str | None
    body: dict[str, JsonValue]


class AgentWireRequest(RecordModel):
    """A coding agent's command line, its directory, and the prompt document it was given."""

    api: AgentApi
    argv: list[str]
    cwd: str
    prompt_document: str | None


class MockWireRequest(RecordModel):
    """The messages the offline mock would have sent (no API mapping)."""

    api: Literal["mock"]
    model: str
    url_path: None
    body: dict[str, JsonValue]


WireRequest = Annotated[
    ChatWireRequest | AgentWireRequest | MockWireRequest, Field(discriminator="api")
]
"""What a target was sent, discriminated by ``api``."""


def given_keys(model: BaseModel) -> dict[str, JsonValue]:
    """The fields ``model`` was given, in field order, values as they are (ints, text and
    ``None``). A plain serializer: a wrap serializer's handler cost twice as much a row."""
    given = model.model_fields_set
    return {key: value for key, value in model.__dict__.items() if key in given}


class AnswerToolCall(RecordModel):
    """A tool call in a model's answer (docs/tools.md): its id and name, its arguments exactly
    as the API returned them (OpenAI's JSON text, Anthropic's and Gemini's objects), and
    those arguments parsed (``None`` when they are no JSON object)."""

    id: str
    name: str
    raw_arguments: JsonValue
    arguments: dict[str, JsonValue] | None
    signature: Annotated[str | None, Field(exclude_if=lambda value: value is None)] = None
    """Gemini's ``thoughtSignature`` of the call's part, sent back with the call in a tool
    loop (docs/tools.md#the-tool-loop); left out where the API gave none."""


class Usage(RecordModel):
    """Token counts as the API reported them (``None`` where it did not).

    The cache and thinking counts are written only where the API reported them, so a row of
    an API without them reads as before (docs/running.md#cost).
    """

    input_tokens: int | None
    output_tokens: int | None
    cache_read_tokens: int | None = None
    """Input tokens read from the API's prompt cache: OpenAI's and Azure's
    ``prompt_tokens_details.cached_tokens``, Codex's ``cached_input_tokens`` and Gemini's
    ``cachedContentTokenCount`` (all part of ``input_tokens``), Anthropic's
    ``cache_read_input_tokens`` (not part of it)."""
    cache_write_tokens: int | None = None
    """Anthropic's ``cache_creation_input_tokens``: input written to the cache (not part of
    ``input_tokens``)."""
    thoughts_tokens: int | None = None
    """Gemini's ``thoughtsTokenCount``: thinking tokens, billed as output but not part of
    ``output_tokens``."""
    reasoning_tokens: int | None = None
    """OpenAI's and Azure's reasoning tokens (Chat Completions'
    ``completion_tokens_details.reasoning_tokens``, the Responses API's
    ``output_tokens_details.reasoning_tokens``): already part of ``output_tokens`` (so not
    billed again; docs/running.md#reasoning)."""

    @model_serializer(mode="plain")
    def _given_keys(self) -> dict[str, JsonValue]:
        return given_keys(self)


class TraceEntry(RecordModel):
    """One step of an agent's run: a command, a message, reasoning or an error
    (docs/running.md#the-results-file). Only the keys an entry was given are written."""

    type: str
    command: str | None = None
    exit_code: int | None = None
    text: str | None = None

    @model_serializer(mode="plain")
    def _given_keys(self) -> dict[str, JsonValue]:
        return given_keys(self)
