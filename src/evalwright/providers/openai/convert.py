"""Pure conversions between our chat messages and Chat Completions bodies
(docs/delivery.md#how-each-chat-api-receives-the-conversation).

Shared by the ``openai`` and ``azure`` providers: both speak the same wire format.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from evalwright.errors import BlockedError
from evalwright.jsontext import JsonObject, JsonValue
from evalwright.prompts import ChatMessage, DeliveryNote, developer_notes
from evalwright.prompts.render import tool_arguments
from evalwright.providers.chat import Parsed, usage_from
from evalwright.providers.pairing import pair_tool_calls
from evalwright.providers.sampling import (
    OutputFormat,
    offered_tool_settings,
    output_format,
    target_settings,
    tool_declaration,
    unsupported_notes,
    with_extra_body,
)
from evalwright.targets.models import AzureTarget, OpenAITarget
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import ToolChoice, ToolSpec


def bearer_headers(target: OpenAITarget) -> dict[str, str]:
    """The headers that carry an OpenAI (or compatible) target's key: a bearer token."""
    return {"authorization": f"Bearer {target.api_key or ''}"}


def to_messages(
    messages: Sequence[ChatMessage],
    system_role: str,
    names: bool = True,
) -> tuple[list[JsonValue], list[DeliveryNote]]:
    """Chat Completions ``messages``: tool calls native, one ``tool`` message per result; a
    message's ``name`` where ``names`` (an API without the field notes it instead)."""
    paired, notes = pair_tool_calls(messages)
    notes.extend(developer_notes(system_role, messages))
    out: list[JsonValue] = []
    for message in paired:
        if message.role == "tool":
            out.append(
                {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
            )
            continue
        role = system_role if message.role == "system" else message.role
        content = content_parts(message) if message.parts else message.content
        entry: JsonObject = {"role": role, "content": content}
        if names and message.name is not None:
            entry["name"] = message.name  # a participant name, sent where the API takes it
        if message.role == "assistant" and message.tool_calls:
            # Chat templates read ``content`` unconditionally; "" is valid OpenAI and safe there.
            entry["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": tool_arguments(call)},
                }
                for call in message.tool_calls
            ]
        out.append(entry)
    return out, notes


def content_parts(message: ChatMessage) -> list[JsonValue]:
    """A user turn with media as Chat Completions content parts, in order: ``text``,
    ``image_url``, ``file`` (a PDF) and ``input_audio`` (docs/delivery.md#media)."""
    out: list[JsonValue] = []
    for part in message.parts:
        if isinstance(part, str):
            out.append({"type": "text", "text": part})
        elif part.media is None:
            out.append({"type": "image_url", "image_url": {"url": part.url}})
        elif part.kind == "image":
            out.append({"type": "image_url", "image_url": {"url": part.media.placeholder_url()}})
        elif part.kind == "pdf":
            name = part.display.rsplit("/", 1)[-1]
            file: JsonObject = {"filename": name, "file_data": part.media.placeholder_url()}
            out.append({"type": "file", "file": file})
        else:
            fmt = "wav" if part.media.media_type == "audio/wav" else "mp3"
            audio: JsonObject = {"data": part.media.placeholder(), "format": fmt}
            out.append({"type": "input_audio", "input_audio": audio})
    return out


def request_body(
    messages: Sequence[ChatMessage],
    target: OpenAITarget | AzureTarget,
    model: str,
    response_schema: JsonObject | None,
    settings: SamplingSettings | None = None,
    tools: Sequence[ToolSpec] = (),
) -> tuple[JsonObject, list[DeliveryNote]]:
    """The whole request body; sampling keys only where ``settings`` (by default the
    target's own) set them, the declared ``tools``, ``extra_body`` merged last."""
    settings = target_settings(target) if settings is None else settings
    wire_messages, notes = to_messages(messages, target.system_role)
    body: JsonObject = {"model": model, "messages": wire_messages}
    body.update(_sampling(settings, target.max_tokens_field))
    wanted = output_format(target, response_schema, settings)
    if wanted is not None:
        body["response_format"] = response_format(wanted, json_mode_schema=True)
    notes.extend(unsupported_notes(target.kind, settings))
    choice, parallel, tool_notes = offered_tool_settings(settings, tools)
    body.update(tool_fields(tools, choice, parallel))
    notes.extend(tool_notes)
    return with_extra_body(body, settings), notes


def tool_fields(
    tools: Sequence[ToolSpec], choice: ToolChoice | None, parallel: bool | None = None
) -> JsonObject:
    """Chat Completions ``tools`` (each a ``function``, keys only where given),
    ``tool_choice`` and ``parallel_tool_calls`` (docs/tools.md#what-each-api-is-sent); nothing
    without tools."""
    if not tools:
        return {}
    fields: JsonObject = {"tools": [_function(tool) for tool in tools]}
    if isinstance(choice, str):
        fields["tool_choice"] = choice
    elif choice is not None:
        fields["tool_choice"] = {"type": "function", "function": {"name": choice.name}}
    if parallel is not None:
        fields["parallel_tool_calls"] = parallel
    return fields


def _function(tool: ToolSpec) -> JsonValue:
    return {"type": "function", "function": tool_declaration(tool, "parameters")}


def _sampling(settings: SamplingSettings, max_tokens_field: str) -> JsonObject:
    """The Chat Completions sampling fields (no thinking budget: reasoning_effort instead)."""
    fields: JsonObject = {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "seed": settings.seed,
        # One string stays a string: the API takes either form, and the wire shows what was written.
        "stop": settings.stop if isinstance(settings.stop, str) else _strings(settings.stop),
        "presence_penalty": settings.presence_penalty,
        "frequency_penalty": settings.frequency_penalty,
        "reasoning_effort": settings.reasoning_effort,
        max_tokens_field: settings.max_output_tokens,
    }
    return {key: value for key, value in fields.items() if value is not None}


def _strings(values: list[str] | None) -> JsonValue:
    return list[JsonValue](values) if values else None


def response_format(fmt: OutputFormat, *, json_mode_schema: bool) -> JsonObject:
    """Chat Completions ``response_format``: ``json_schema`` (its name, ``strict`` where
    known, the schema) or ``json_object``. A judge's JSON mode carries its schema where
    ``json_mode_schema``: llama-cpp-python's server turns it into a grammar
    (docs/targets.md#structured-output)."""
    if fmt.mode == "json_object":
        if fmt.schema is not None and json_mode_schema:
            return {"type": "json_object", "schema": fmt.schema}
        return {"type": "json_object"}
    spec: JsonObject = {"name": fmt.name}
    if fmt.strict is not None:
        spec["strict"] = fmt.strict
    spec["schema"] = fmt.schema
    return {"type": "json_schema", "json_schema": spec}


def parse_reply(data: Any) -> Parsed:
    """The answer of a chat.completion body; a content filter on an empty answer is a block."""
    body = cast(dict[str, Any], data)
    choice = cast(dict[str, Any], body["choices"][0])
    message = cast(dict[str, Any], choice.get("message") or {})
    content = message.get("content")
    text = content if isinstance(content, str) else _text_parts(content)
    finish = choice.get("finish_reason")
    # An answer of tool calls alone has no text and is no block (docs/tools.md).
    calls = message.get("tool_calls")
    if finish == "content_filter" and not text and not calls:
        raise BlockedError("the API filtered the answer (finish_reason: content_filter)")
    if not text and not calls and message.get("refusal"):
        raise BlockedError(f"the model refused: {message['refusal']}")
    usage = usage_from(
        body.get("usage"),
        "prompt_tokens",
        "completion_tokens",
        cache_read_tokens=("prompt_tokens_details", "cached_tokens"),
        reasoning_tokens=("completion_tokens_details", "reasoning_tokens"),
    )
    return text, finish, usage


def _text_parts(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    texts = [cast(dict[str, Any], p) for p in cast(list[Any], content) if isinstance(p, dict)]
    return "".join(str(p.get("text", "")) for p in texts if p.get("type") == "text")
