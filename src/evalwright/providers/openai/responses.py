"""Pure conversions between our chat messages and OpenAI Responses API bodies, for the
``openai`` and ``azure`` targets with ``api: responses`` (docs/targets.md#the-responses-api).

Stateless and exact: the whole conversation is sent as ``input`` items every time, with
``store: false`` and no ``previous_response_id``; the system prompt stays a message (no
``instructions`` unless ``extra_body`` adds them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from evalwright.errors import BlockedError, ProviderError
from evalwright.jsontext import JsonObject, JsonValue
from evalwright.prompts import ChatMessage, DeliveryNote, developer_notes, name_notes
from evalwright.prompts.render import tool_arguments
from evalwright.providers.chat import Parsed, count_of, usage_from
from evalwright.providers.media import unsupported
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
from evalwright.providers.tool_calls import parsed
from evalwright.providers.wire import AnswerToolCall
from evalwright.records import ReasoningPart
from evalwright.targets.models import AzureTarget, OpenAITarget
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import ToolChoice, ToolSpec


def to_input(
    messages: Sequence[ChatMessage], system_role: str
) -> tuple[list[JsonValue], list[DeliveryNote]]:
    """Responses ``input`` items: one ``message`` per message (the system one with
    ``system_role``), an assistant's calls as ``function_call`` items and each tool result as
    a ``function_call_output`` item, paired by ``call_id``. A call's item ``id`` (``fc_...``)
    is not sent: with ``store: false`` the API keeps no item to refer to."""
    paired, notes = pair_tool_calls(messages)
    notes.extend(developer_notes(system_role, messages))
    notes.extend(name_notes("OpenAI Responses", messages))
    items: list[JsonValue] = []
    for message in paired:
        if message.role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id,
                    "output": message.content,
                }
            )
            continue
        role = system_role if message.role == "system" else message.role
        # A turn of calls alone has no text: an empty message item would add a turn.
        if message.parts:
            items.append({"type": "message", "role": role, "content": _input_parts(message)})
        elif message.content or not message.tool_calls:
            items.append({"type": "message", "role": role, "content": message.content})
        items.extend(
            {
                "type": "function_call",
                "call_id": call.id,
                "name": call.name,
                "arguments": tool_arguments(call),
            }
            for call in message.tool_calls
        )
    return items, notes


def request_body(
    messages: Sequence[ChatMessage],
    target: OpenAITarget | AzureTarget,
    model: str,
    response_schema: JsonObject | None,
    settings: SamplingSettings | None = None,
    tools: Sequence[ToolSpec] = (),
) -> tuple[JsonObject, list[DeliveryNote]]:
    """The whole ``POST /responses`` body: ``store: false``, the settings' native fields
    where set, ``text.format`` for a judge's schema or the ``response_format`` setting, the
    tools, ``extra_body`` merged last."""
    settings = target_settings(target) if settings is None else settings
    items, notes = to_input(messages, target.system_role)
    body: JsonObject = {"model": model, "input": items, "store": False}
    body.update(_sampling(settings))
    wanted = output_format(target, response_schema, settings)
    if wanted is not None:
        body["text"] = {"format": _text_format(wanted)}
    notes.extend(unsupported_notes(target.kind, settings))
    choice, parallel, tool_notes = offered_tool_settings(settings, tools)
    body.update(tool_fields(tools, choice, parallel))
    notes.extend(tool_notes)
    return with_extra_body(body, settings), notes


def tool_fields(
    tools: Sequence[ToolSpec], choice: ToolChoice | None, parallel: bool | None = None
) -> JsonObject:
    """Responses ``tools`` (each a flat ``function`` tool), ``tool_choice`` and
    ``parallel_tool_calls`` (docs/tools.md#what-each-api-is-sent); nothing without tools.
    ``strict`` is a required field whose default there is ``true``: a tool that does not ask
    for it is sent ``false``, as Chat Completions treats it."""
    if not tools:
        return {}
    declared = [
        {"type": "function", **tool_declaration(tool, "parameters", strict=False)} for tool in tools
    ]
    for entry, tool in zip(declared, tools, strict=True):
        entry["strict"] = tool.strict is True
    fields: JsonObject = {"tools": list[JsonValue](declared)}
    if isinstance(choice, str):
        fields["tool_choice"] = choice
    elif choice is not None:
        fields["tool_choice"] = {"type": "function", "name": choice.name}
    if parallel is not None:
        fields["parallel_tool_calls"] = parallel
    return fields


def _sampling(settings: SamplingSettings) -> JsonObject:
    fields: JsonObject = {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "max_output_tokens": settings.max_output_tokens,
    }
    reasoning: JsonObject = {
        "effort": settings.reasoning_effort,
        "summary": settings.reasoning_summary,
    }
    fields["reasoning"] = {k: v for k, v in reasoning.items() if v is not None} or None
    return {key: value for key, value in fields.items() if value is not None}


def _text_format(fmt: OutputFormat) -> JsonObject:
    """``text.format``: a named JSON Schema (``strict`` where known), or JSON mode, which
    takes no schema there (docs/targets.md#structured-output)."""
    if fmt.mode == "json_object":
        return {"type": "json_object"}
    spec: JsonObject = {"type": "json_schema", "name": fmt.name}
    if fmt.strict is not None:
        spec["strict"] = fmt.strict
    spec["schema"] = fmt.schema
    return spec


def parse_reply(data: Any) -> Parsed:
    """The answer of a Response object: its message items' ``output_text`` joined, its
    finish value (``incomplete_details.reason`` of an incomplete one, else its ``status``)
    and usage; an empty answer filtered or refused is a block, a failed one an error."""
    body = cast(dict[str, Any], data)
    items = _items(body)
    status = body.get("status")
    incomplete = cast(dict[str, Any], body.get("incomplete_details") or {})
    finish = incomplete.get("reason") if status == "incomplete" else status
    if status == "failed":
        error = cast(dict[str, Any], body.get("error") or {})
        code, message = error.get("code"), error.get("message", "no reason given")
        # The API's own failure may pass on another attempt; any other code will not.
        raise ProviderError(
            f"the response failed: {code}: {message}", retryable=code == "server_error"
        )
    parts = [p for item in items if item.get("type") == "message" for p in _parts(item)]
    text = "".join(str(p.get("text", "")) for p in parts if p.get("type") == "output_text")
    calls = any(item.get("type") == "function_call" for item in items)
    if finish == "content_filter" and not text and not calls:
        raise BlockedError("the API filtered the answer (incomplete: content_filter)")
    refusals = [str(p.get("refusal", "")) for p in parts if p.get("type") == "refusal"]
    if not text and not calls and any(refusals):
        raise BlockedError(f"the model refused: {' '.join(refusals)}")
    usage = usage_from(
        body.get("usage"),
        "input_tokens",
        "output_tokens",
        cache_read_tokens=("input_tokens_details", "cached_tokens"),
        reasoning_tokens=("output_tokens_details", "reasoning_tokens"),
    )
    return text, finish if isinstance(finish, str) else None, usage


def function_calls(data: Any) -> tuple[AnswerToolCall, ...]:
    """The ``function_call`` output items in order: ``call_id`` is the call's id, and
    ``arguments`` its text exactly (docs/tools.md#tool-calls-in-the-answer)."""
    calls: list[AnswerToolCall] = []
    for item in _items(cast(dict[str, Any], data)):
        if item.get("type") != "function_call":
            continue
        call_id, name, raw = item["call_id"], item["name"], item.get("arguments")
        if not isinstance(call_id, str) or not isinstance(name, str):
            raise TypeError("a function_call item's call_id and name are text")
        calls.append(
            AnswerToolCall(id=call_id, name=name, raw_arguments=raw, arguments=parsed(raw))
        )
    return tuple(calls)


def reasoning_summaries(data: Any) -> tuple[str, ...]:
    """The ``summary_text`` of the ``reasoning`` output items, in order (the model's
    reasoning as the API summarises it, when the request asked for a summary)."""
    found: list[str] = []
    for item in _items(cast(dict[str, Any], data)):
        if item.get("type") == "reasoning":
            summary = _list(item.get("summary"))
            found.extend(str(s.get("text", "")) for s in summary if s.get("type") == "summary_text")
    return tuple(found)


def _items(body: dict[str, Any]) -> list[dict[str, Any]]:
    return _list(body["output"])


def _parts(item: dict[str, Any]) -> list[dict[str, Any]]:
    return _list(item.get("content"))


def _list(value: Any) -> list[dict[str, Any]]:
    """A list of objects (none for a missing one); anything else is a shape error."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError("expected a list of objects")
    entries = cast(list[Any], value)
    if not all(isinstance(entry, dict) for entry in entries):
        raise TypeError("expected a list of objects")
    return cast(list[dict[str, Any]], entries)


class ResponsesReading:
    """What the ``openai`` and ``azure`` Responses adapters read alike (mixed in before
    their Chat Completions adapter)."""

    build_body = staticmethod(request_body)
    """The Responses body, in place of the adapter's Chat Completions one."""

    @staticmethod
    def output_limit(body: JsonObject) -> int | None:
        """``max_output_tokens``, reasoning included, when the body sends it."""
        return count_of(body.get("max_output_tokens"))

    def parse(self, data: object) -> Parsed:
        """The Response object's answer."""
        return parse_reply(data)

    def tool_calls(self, data: object) -> tuple[AnswerToolCall, ...]:
        """Its ``function_call`` items."""
        return function_calls(data)

    def reasoning(self, data: object) -> tuple[ReasoningPart, ...]:
        """Its reasoning items' summaries, each a part (docs/running.md#reasoning)."""
        return tuple(ReasoningPart(text=text) for text in reasoning_summaries(data))


def _input_parts(message: ChatMessage) -> list[JsonValue]:
    """A user turn with media as ``input_text``, ``input_image`` and ``input_file`` (PDF)
    parts, in order; Responses takes no audio input (docs/delivery.md#media)."""
    out: list[JsonValue] = []
    for part in message.parts:
        if isinstance(part, str):
            out.append({"type": "input_text", "text": part})
        elif part.media is None:
            out.append({"type": "input_image", "image_url": part.url, "detail": "auto"})
        elif part.kind == "image":
            url = part.media.placeholder_url()
            out.append({"type": "input_image", "image_url": url, "detail": "auto"})
        elif part.kind == "pdf":
            name = part.display.rsplit("/", 1)[-1]
            url = part.media.placeholder_url()
            out.append({"type": "input_file", "filename": name, "file_data": url})
        else:
            raise unsupported("OpenAI Responses", part, "its input takes no audio")
    return out
