"""Pure conversions between our chat messages and Gemini generateContent bodies
(docs/delivery.md#how-each-chat-api-receives-the-conversation)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from evalwright.errors import BlockedError
from evalwright.evalfile.messages import ToolCall
from evalwright.prompts import ChatMessage, DeliveryNote
from evalwright.providers.anthropic.convert import CONVERSATION_START, start_note
from evalwright.providers.chat import Parsed, usage_from
from evalwright.providers.pairing import pair_tool_calls, with_results
from evalwright.targets.models import GeminiTarget

# Google's documented signature for function calls in history the model did not produce.
SKIP_SIGNATURE = "skip_thought_signature_validator"
BLOCK_FINISH_REASONS = frozenset(
    {"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION", "IMAGE_SAFETY"}
)


def _content(message: ChatMessage) -> dict[str, Any]:
    """One message as a content: text, and an assistant's calls as ``functionCall`` parts."""
    if not (message.role == "assistant" and message.tool_calls):
        return {
            "role": "model" if message.role == "assistant" else "user",
            "parts": [{"text": message.content}],
        }
    parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
    parts.extend(
        {
            "functionCall": {"id": c.id, "name": c.name, "args": c.arguments},
            "thoughtSignature": SKIP_SIGNATURE,
        }
        for c in message.tool_calls
    )
    return {"role": "model", "parts": parts}


def to_contents(paired: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Contents with native function calls and responses; same-role neighbours merged."""
    out: list[dict[str, Any]] = []
    for message, results in with_results(paired):
        _append(out, _content(message))
        if results:
            parts = [_function_response(call, result) for call, result in results]
            _append(out, {"role": "user", "parts": parts})
    return out


def _function_response(call: ToolCall, result: ChatMessage) -> dict[str, Any]:
    response = {"id": call.id, "name": call.name, "response": {"output": result.content}}
    return {"functionResponse": response}


def _append(out: list[dict[str, Any]], content: dict[str, Any]) -> None:
    if out and out[-1]["role"] == content["role"]:
        out[-1]["parts"].extend(content["parts"])
    else:
        out.append(content)


def request_body(
    messages: Sequence[ChatMessage],
    target: GeminiTarget,
    response_schema: dict[str, Any] | None,
) -> tuple[dict[str, Any], list[DeliveryNote]]:
    """The whole generateContent body."""
    paired, notes = pair_tool_calls(messages)
    system = paired[0].content if paired and paired[0].role == "system" else None
    turns = paired[1:] if system is not None else paired
    contents = to_contents(turns)
    if not contents or contents[0]["role"] != "user":
        contents.insert(0, {"role": "user", "parts": [{"text": CONVERSATION_START}]})
        notes.append(start_note(1 if system is not None else 0))
    body: dict[str, Any] = {}
    if system is not None:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    body["contents"] = contents
    config: dict[str, Any] = {}
    if target.temperature is not None:
        config["temperature"] = target.temperature
    if target.max_output_tokens is not None:
        config["maxOutputTokens"] = target.max_output_tokens
    if response_schema is not None and target.structured_output:
        config["responseMimeType"] = "application/json"
        config["responseJsonSchema"] = response_schema
    if config:
        body["generationConfig"] = config
    return body, notes


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
    if finish in BLOCK_FINISH_REASONS and not text:
        raise BlockedError(f"the API blocked the answer (finishReason: {finish})")
    usage = usage_from(body.get("usageMetadata"), "promptTokenCount", "candidatesTokenCount")
    return text, finish, usage
