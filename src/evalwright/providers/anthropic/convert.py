"""Pure conversions between our chat messages and Anthropic Messages bodies
(docs/delivery.md#how-each-chat-api-receives-the-conversation)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from evalwright.errors import BlockedError
from evalwright.jsontext import JsonObject, JsonValue
from evalwright.prompts import ChatMessage, DeliveryNote, name_notes
from evalwright.prompts.chat import leading_system
from evalwright.providers.chat import Parsed, usage_from
from evalwright.providers.media import unsupported
from evalwright.providers.pairing import pair_tool_calls, with_results
from evalwright.providers.sampling import (
    OutputFormat,
    format_field_notes,
    offered_tool_settings,
    output_format,
    stop_list,
    target_settings,
    tool_declaration,
    unsupported_notes,
    with_extra_body,
)
from evalwright.records import ReasoningPart
from evalwright.targets.kinds import provider_kind
from evalwright.targets.models import AnthropicTarget
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import ToolChoice, ToolSpec

DEFAULT_MAX_TOKENS = 4096
CONVERSATION_START = "@[Conversation start]"
ANTHROPIC = provider_kind("anthropic").chat_api.name


def to_messages(paired: Sequence[ChatMessage]) -> list[JsonObject]:
    """Messages with ``tool_use`` blocks, and one user message of ``tool_result`` blocks per run;
    an answer of this run's tool loop starts with its thinking blocks, unchanged."""
    out: list[JsonObject] = []
    for message, results in with_results(paired):
        if not (message.role == "assistant" and (message.tool_calls or message.reasoning)):
            content = media_blocks(message) if message.parts else message.content
            out.append({"role": message.role, "content": content})
            continue
        blocks: list[JsonValue] = [_thinking(part) for part in message.reasoning]
        if message.content:
            blocks.append({"type": "text", "text": message.content})
        blocks.extend(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
            for call in message.tool_calls
        )
        out.append({"role": "assistant", "content": blocks})
        if results:
            out.append({"role": "user", "content": [_tool_result(r) for _, r in results]})
    return out


def media_blocks(message: ChatMessage) -> list[JsonValue]:
    """A user turn with media as ``text``, ``image`` and ``document`` (PDF) blocks, in order;
    Messages takes no audio (docs/delivery.md#media)."""
    out: list[JsonValue] = []
    for part in message.parts:
        if isinstance(part, str):
            out.append({"type": "text", "text": part})
        elif part.media is None:
            out.append({"type": "image", "source": {"type": "url", "url": part.url}})
        elif part.kind == "audio":
            raise unsupported(ANTHROPIC, part, "the Messages API takes no audio input")
        else:
            source: JsonObject = {
                "type": "base64",
                "media_type": part.media.media_type,
                "data": part.media.placeholder(),
            }
            out.append({"type": "image" if part.kind == "image" else "document", "source": source})
    return out


def _thinking(part: ReasoningPart) -> JsonValue:
    """A ``thinking`` block as the API gave it (its signature proves it unchanged), or a
    ``redacted_thinking`` block's data."""
    if part.data is not None:
        return {"type": "redacted_thinking", "data": part.data}
    return {"type": "thinking", "thinking": part.text, "signature": part.signature or ""}


def _tool_result(result: ChatMessage) -> JsonValue:
    block: JsonObject = {"type": "tool_result", "tool_use_id": result.tool_call_id}
    if result.content:
        block["content"] = result.content
    if result.is_error:
        block["is_error"] = True
    return block


def request_body(
    messages: Sequence[ChatMessage],
    target: AnthropicTarget,
    settings: SamplingSettings | None = None,
    tools: Sequence[ToolSpec] = (),
    response_schema: JsonObject | None = None,
) -> tuple[JsonObject, list[DeliveryNote]]:
    """The whole Messages body: top-level ``system``, the turns, the sampling fields
    ``settings`` (by default the target's own) set, ``response_format`` as
    ``output_config``, the tools, ``extra_body`` last. A judge's ``response_schema`` is not
    sent (its prompt asks for the JSON), and keeps ``response_format`` off its request."""
    settings = target_settings(target) if settings is None else settings
    paired, notes = pair_tool_calls(messages)
    notes.extend(name_notes(ANTHROPIC, messages))
    system, turns = leading_system(paired)
    first = len(system)
    wire = to_messages(turns)
    if not wire or wire[0]["role"] != "user":
        wire.insert(0, {"role": "user", "content": CONVERSATION_START})
        notes.append(start_note(first))
    if wire[-1]["role"] == "assistant":
        notes.append(
            DeliveryNote(
                rule="assistant_prefill",
                detail=(
                    f"chat_prompt[{len(messages) - 1}]: the conversation ends with an "
                    "assistant turn; Anthropic continues it as a prefill"
                ),
            )
        )
    body: JsonObject = {
        "model": target.model,
        "max_tokens": settings.max_output_tokens or DEFAULT_MAX_TOKENS,
    }
    body.update(_sampling(settings))
    if len(system) == 1:
        body["system"] = system[0]
    elif system:  # kept apart (the target's system_messages: separate): one block each
        body["system"] = [{"type": "text", "text": text} for text in system]
    body["messages"] = list[JsonValue](wire)  # the same messages, as a JSON list
    notes.extend(unsupported_notes("anthropic", settings))
    wanted = output_format(target, response_schema, settings)
    if wanted is not None and wanted.written is not None:
        output, format_notes = _output_config(wanted)
        body.update(output)
        notes.extend(format_notes)
    choice, parallel, tool_notes = offered_tool_settings(settings, tools)
    body.update(tool_fields(tools, choice, parallel) if tools else _history_tools(turns))
    notes.extend(tool_notes + _parallel_notes(choice, parallel))
    return with_extra_body(body, settings), notes


def _output_config(fmt: OutputFormat) -> tuple[JsonObject, list[DeliveryNote]]:
    """``output_config.format`` for a schema (always enforced: no ``name`` or ``strict``);
    the Messages API has no JSON mode without a schema, so that is a note."""
    if fmt.schema is None:
        detail = (
            f"settings.response_format.json: {ANTHROPIC} has no JSON mode without a schema "
            "(give json_schema); not sent"
        )
        return {}, [DeliveryNote(rule="setting_unsupported", detail=detail)]
    config: JsonObject = {"format": {"type": "json_schema", "schema": fmt.schema}}
    return {"output_config": config}, format_field_notes(ANTHROPIC, fmt, ("name", "strict"))


def tool_fields(
    tools: Sequence[ToolSpec], choice: ToolChoice | None, parallel: bool | None = None
) -> JsonObject:
    """Messages ``tools`` (``input_schema`` the parameters) and ``tool_choice``
    (docs/tools.md#what-each-api-is-sent); ``parallel_tool_calls`` is the choice's
    ``disable_parallel_tool_use``, inverted, on an ``auto`` choice when none is written."""
    fields: JsonObject = {"tools": [_tool(tool) for tool in tools]}
    if choice is None and parallel is not None:
        choice = "auto"
    if choice is not None:
        wire: JsonObject = (
            dict(_CHOICES[choice])
            if isinstance(choice, str)
            else {"type": "tool", "name": choice.name}
        )
        if parallel is not None and choice != "none":
            wire["disable_parallel_tool_use"] = not parallel
        fields["tool_choice"] = wire
    return fields


def _parallel_notes(choice: ToolChoice | None, parallel: bool | None) -> list[DeliveryNote]:
    """A choice of ``none`` calls no tool, and Anthropic's takes no parallel switch."""
    if parallel is None or choice != "none":
        return []
    detail = (
        f"settings.parallel_tool_calls: a tool_choice of none in {ANTHROPIC} has no "
        "disable_parallel_tool_use field; not sent"
    )
    return [DeliveryNote(rule="setting_unsupported", detail=detail)]


_CHOICES: dict[str, JsonObject] = {
    "auto": {"type": "auto"},
    "none": {"type": "none"},
    "required": {"type": "any"},
}


def _tool(tool: ToolSpec) -> JsonValue:
    return tool_declaration(tool, "input_schema")


def _history_tools(turns: Sequence[ChatMessage]) -> JsonObject:
    """Without declared tools, Anthropic still wants the tools of ``tool_use`` history
    declared: each name once with an open schema, and ``tool_choice: none`` so the model
    answers in text rather than calling a tool the case never offered."""
    names = list(dict.fromkeys(c.name for m in turns for c in m.tool_calls))
    if not names:
        return {}
    return {
        "tools": [{"name": n, "input_schema": {"type": "object"}} for n in names],
        "tool_choice": {"type": "none"},
    }


def _sampling(settings: SamplingSettings) -> JsonObject:
    """The Messages sampling fields; a thinking budget of 0 turns thinking off."""
    fields: JsonObject = {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "stop_sequences": list[JsonValue](stop) if (stop := stop_list(settings)) else None,
    }
    budget = settings.thinking_budget_tokens
    if budget is not None:
        fields["thinking"] = (
            {"type": "enabled", "budget_tokens": budget} if budget else {"type": "disabled"}
        )
    return {key: value for key, value in fields.items() if value is not None}


def start_note(index: int) -> DeliveryNote:
    """The note for an inserted ``@[Conversation start]`` user turn."""
    return DeliveryNote(
        rule="conversation_start_inserted",
        detail=(
            f"chat_prompt[{index}]: the API needs a user turn first; a user turn "
            f"{CONVERSATION_START!r} is inserted before it"
        ),
    )


def parse_reply(data: Any) -> Parsed:
    """Text blocks joined (thinking left out); a refusal is a block."""
    body = cast(dict[str, Any], data)
    blocks = cast(list[dict[str, Any]], body["content"])
    text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    stop = body.get("stop_reason")
    calls = any(b.get("type") == "tool_use" for b in blocks)  # no block (docs/tools.md)
    if stop == "refusal" and not text and not calls:
        raise BlockedError("the model refused to answer (stop_reason: refusal)")
    usage = usage_from(
        body.get("usage"),
        "input_tokens",
        "output_tokens",
        cache_read_tokens="cache_read_input_tokens",
        cache_write_tokens="cache_creation_input_tokens",
    )
    return text, stop, usage
