"""Pure conversions between our chat messages and Gemini generateContent bodies
(docs/delivery.md#how-each-chat-api-receives-the-conversation)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias, cast

from evalwright.errors import BlockedError
from evalwright.evalfile.messages import ToolCall
from evalwright.jsontext import JsonObject, JsonValue
from evalwright.prompts import ChatMessage, DeliveryNote, name_notes
from evalwright.prompts.chat import leading_system
from evalwright.prompts.render import ReturnedCall
from evalwright.providers.anthropic.convert import CONVERSATION_START, start_note
from evalwright.providers.chat import Parsed, usage_from
from evalwright.providers.media import unsupported
from evalwright.providers.pairing import pair_tool_calls, with_results
from evalwright.providers.sampling import (
    format_field_notes,
    offered_choice,
    output_format,
    stop_list,
    target_settings,
    tool_declaration,
    tool_field_note,
    unsupported_notes,
    with_extra_body,
)
from evalwright.targets.kinds import provider_kind
from evalwright.targets.models import GeminiTarget
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import ToolChoice, ToolSpec

# Google's documented signature for function calls in history the model did not produce.
SKIP_SIGNATURE = "skip_thought_signature_validator"
BLOCK_FINISH_REASONS = frozenset(
    {"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION", "IMAGE_SAFETY"}
)


GEMINI = provider_kind("gemini").chat_api.name

_Content: TypeAlias = tuple[str, list[JsonValue]]  # a content's role and parts, while merging


def _content(message: ChatMessage) -> _Content:
    """One message as a content: text, and an assistant's calls as ``functionCall`` parts."""
    if message.parts:
        return "user", _media_parts(message)
    if not (message.role == "assistant" and message.tool_calls):
        return "model" if message.role == "assistant" else "user", [{"text": message.content}]
    parts: list[JsonValue] = [{"text": message.content}] if message.content else []
    parts.extend(_function_call(c) for c in message.tool_calls)
    return "model", parts


def _media_parts(message: ChatMessage) -> list[JsonValue]:
    """A user turn with media as ``text`` and ``inlineData`` parts, in order; an image URL is
    refused: ``fileData`` takes only files uploaded to Google (docs/delivery.md#media)."""
    out: list[JsonValue] = []
    for part in message.parts:
        if isinstance(part, str):
            out.append({"text": part})
        elif part.media is None:
            raise unsupported(GEMINI, part, "fileData takes only files uploaded to Google")
        else:
            inline: JsonObject = {
                "mimeType": part.media.media_type,
                "data": part.media.placeholder(),
            }
            out.append({"inlineData": inline})
    return out


def _function_call(call: ToolCall) -> JsonValue:
    """A call as a ``functionCall`` part: a call the model made in this run with the signature
    it came with (none when it had none), any other with Google's skip signature."""
    part: JsonObject = {"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}
    if not isinstance(call, ReturnedCall):
        part["thoughtSignature"] = SKIP_SIGNATURE
    elif call.signature is not None:
        part["thoughtSignature"] = call.signature
    return part


def to_contents(paired: Sequence[ChatMessage]) -> list[JsonObject]:
    """Contents with native function calls and responses; same-role neighbours merged."""
    out: list[_Content] = []
    for message, results in with_results(paired):
        _append(out, _content(message))
        if results:
            _append(out, ("user", [_function_response(call, result) for call, result in results]))
    return [{"role": role, "parts": parts} for role, parts in out]


def _function_response(call: ToolCall, result: ChatMessage) -> JsonValue:
    response: JsonObject = {
        "id": call.id,
        "name": call.name,
        # Gemini reads an "error" key as the function's failure, "output" as its result.
        "response": {"error" if result.is_error else "output": result.content},
    }
    return {"functionResponse": response}


def _append(out: list[_Content], content: _Content) -> None:
    if out and out[-1][0] == content[0]:
        out[-1][1].extend(content[1])
    else:
        out.append(content)


def request_body(
    messages: Sequence[ChatMessage],
    target: GeminiTarget,
    response_schema: JsonObject | None,
    settings: SamplingSettings | None = None,
    tools: Sequence[ToolSpec] = (),
) -> tuple[JsonObject, list[DeliveryNote]]:
    """The whole generateContent body: sampling in ``generationConfig`` where ``settings``
    (by default the target's own) set it, the tools, ``extra_body`` merged last."""
    settings = target_settings(target) if settings is None else settings
    paired, notes = pair_tool_calls(messages)
    notes.extend(name_notes(GEMINI, messages))
    system, turns = leading_system(paired)
    contents = to_contents(turns)
    if not contents or contents[0]["role"] != "user":
        contents.insert(0, {"role": "user", "parts": [{"text": CONVERSATION_START}]})
        notes.append(start_note(len(system)))
    body: JsonObject = {}
    if system:  # several when the target keeps them apart: one part each
        body["systemInstruction"] = {"parts": [{"text": text} for text in system]}
    body["contents"] = list[JsonValue](contents)  # the same contents, as a JSON list
    config = _generation_config(settings)
    wanted = output_format(target, response_schema, settings)
    if wanted is not None:
        # JSON mode is the mime type alone; a schema is constrained, so it has no strict.
        config["responseMimeType"] = "application/json"
        if wanted.mode == "json_schema":
            config["responseJsonSchema"] = wanted.schema
        notes.extend(format_field_notes(GEMINI, wanted, ("name", "strict")))
    if config:
        body["generationConfig"] = config
    notes.extend(unsupported_notes("gemini", settings))
    choice, choice_notes = offered_choice(settings, tools)
    fields, tool_notes = tool_fields(tools, choice)
    body.update(fields)
    notes.extend(choice_notes + tool_notes)
    return with_extra_body(body, settings), notes


def tool_fields(
    tools: Sequence[ToolSpec], choice: ToolChoice | None
) -> tuple[JsonObject, list[DeliveryNote]]:
    """One ``functionDeclarations`` tool, each schema as written in ``parametersJsonSchema``
    (Gemini's JSON Schema field: nothing to convert), and ``toolConfig`` for the choice;
    ``strict`` has no field, so it is a note (docs/tools.md#what-each-api-is-sent)."""
    if not tools:
        return {}, []
    declarations: list[JsonValue] = []
    notes: list[DeliveryNote] = []
    for index, tool in enumerate(tools):
        declarations.append(tool_declaration(tool, "parametersJsonSchema", strict=False))
        if tool.strict is not None:
            notes.append(tool_field_note(GEMINI, index, tool, "strict"))
    fields: JsonObject = {"tools": [{"functionDeclarations": declarations}]}
    if choice is not None:
        fields["toolConfig"] = {"functionCallingConfig": _calling_config(choice)}
    return fields, notes


def _calling_config(choice: ToolChoice) -> JsonObject:
    """``required`` is ``ANY``; one named tool is ``ANY`` allowed only that name."""
    if isinstance(choice, str):
        return {"mode": {"auto": "AUTO", "none": "NONE", "required": "ANY"}[choice]}
    return {"mode": "ANY", "allowedFunctionNames": [choice.name]}


def _generation_config(settings: SamplingSettings) -> JsonObject:
    """The ``generationConfig`` sampling fields; ``reasoning_effort`` is Gemini's
    ``thinkingLevel``, ``thinking_budget_tokens`` its ``thinkingBudget``, any
    ``reasoning_summary`` its ``includeThoughts``."""
    stop = stop_list(settings)
    fields: JsonObject = {
        "temperature": settings.temperature,
        "topP": settings.top_p,
        "seed": settings.seed,
        "stopSequences": list[JsonValue](stop) if stop else None,
        "presencePenalty": settings.presence_penalty,
        "frequencyPenalty": settings.frequency_penalty,
        "maxOutputTokens": settings.max_output_tokens,
    }
    thinking: JsonObject = {
        "thinkingBudget": settings.thinking_budget_tokens,
        "thinkingLevel": settings.reasoning_effort,
        # Gemini has one switch for thought summaries, no levels of detail.
        "includeThoughts": True if settings.reasoning_summary is not None else None,
    }
    fields["thinkingConfig"] = {k: v for k, v in thinking.items() if v is not None} or None
    return {key: value for key, value in fields.items() if value is not None}


def parse_reply(data: Any) -> Parsed:
    """Text parts of the first candidate joined (thoughts left out); a blocked prompt raises."""
    body = cast(dict[str, Any], data)
    candidates = cast(list[dict[str, Any]], body.get("candidates") or [])
    feedback = cast(dict[str, Any], body.get("promptFeedback") or {})
    if not candidates:
        reason = feedback.get("blockReason") or "no candidates"
        raise BlockedError(f"the API blocked the prompt ({reason})")
    candidate = candidates[0]
    content = cast(dict[str, Any], candidate.get("content") or {})
    parts = cast(list[dict[str, Any]], content.get("parts") or [])
    text = "".join(str(p["text"]) for p in parts if "text" in p and not p.get("thought"))
    finish = candidate.get("finishReason")
    calls = any("functionCall" in p for p in parts)  # no block (docs/tools.md)
    if finish in BLOCK_FINISH_REASONS and not text and not calls:
        raise BlockedError(f"the API blocked the answer (finishReason: {finish})")
    usage = usage_from(
        body.get("usageMetadata"),
        "promptTokenCount",
        "candidatesTokenCount",
        cache_read_tokens="cachedContentTokenCount",
        thoughts_tokens="thoughtsTokenCount",
    )
    return text, finish, usage
