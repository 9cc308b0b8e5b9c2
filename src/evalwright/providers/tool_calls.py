"""The tool calls of a chat API's answer, read from its response body in the API's order
(docs/tools.md#tool-calls-in-the-answer).

Each call keeps its arguments exactly as the API returned them and parsed: OpenAI's JSON text
is parsed when it is a JSON object, else its arguments are ``None``. A call without an id
(Gemini may omit them) is given ``call_<n>``, ``n`` its place among the answer's calls from 0.
A body of another shape raises ``TypeError`` or ``KeyError``, which the adapter reports as an
unexpected response shape.
"""

from __future__ import annotations

from typing import Any, cast

from evalwright import jsontext
from evalwright.jsontext import JsonObject, JsonValue
from evalwright.providers.wire import AnswerToolCall


def chat_completions_calls(data: Any) -> tuple[AnswerToolCall, ...]:
    """``choices[0].message.tool_calls`` of a Chat Completions body (OpenAI, Azure, Mistral
    and compatible servers): a function's ``arguments`` text (Mistral may send an object),
    a custom tool's ``input`` text."""
    choice = cast(dict[str, Any], cast(dict[str, Any], data)["choices"][0])
    message = cast(dict[str, Any], choice.get("message") or {})
    calls: list[AnswerToolCall] = []
    for index, entry in enumerate(entries(message.get("tool_calls"))):
        kind = entry.get("type") or "function"
        inner = cast(dict[str, Any], entry[kind])
        raw = inner.get("arguments" if kind == "function" else "input")
        calls.append(_call(entry.get("id"), inner["name"], raw, index))
    return tuple(calls)


def anthropic_calls(data: Any) -> tuple[AnswerToolCall, ...]:
    """The ``tool_use`` blocks of a Messages body's ``content``."""
    blocks = entries(cast(dict[str, Any], data)["content"])
    uses = [block for block in blocks if block.get("type") == "tool_use"]
    return tuple(_call(b.get("id"), b["name"], b.get("input"), i) for i, b in enumerate(uses))


def gemini_calls(data: Any) -> tuple[AnswerToolCall, ...]:
    """The ``functionCall`` parts of a generateContent body's first candidate."""
    candidates = entries(cast(dict[str, Any], data).get("candidates"))
    if not candidates:
        return ()
    content = cast(dict[str, Any], candidates[0].get("content") or {})
    parts = entries(content.get("parts"))
    called = [p for p in parts if "functionCall" in p]
    calls: list[AnswerToolCall] = []
    for index, part in enumerate(called):
        call = cast(dict[str, Any], part["functionCall"])
        found = _call(call.get("id"), call["name"], call.get("args"), index)
        signature = part.get("thoughtSignature")
        if isinstance(signature, str):
            found = found.model_copy(update={"signature": signature})
        calls.append(found)
    return tuple(calls)


def entries(value: Any) -> list[dict[str, Any]]:
    """A list of objects, or none for a missing list; anything else is a shape error."""
    if value is None:
        return []
    entries = cast(list[Any], value) if isinstance(value, list) else None
    if entries is None or not all(isinstance(entry, dict) for entry in entries):
        raise TypeError("expected a list of objects")
    return cast(list[dict[str, Any]], entries)


def _call(call_id: Any, name: Any, raw: JsonValue, index: int) -> AnswerToolCall:
    if not isinstance(name, str):
        raise TypeError(f"a tool call's name is {type(name).__name__}, not text")
    if call_id is not None and not isinstance(call_id, str):
        raise TypeError(f"a tool call's id is {type(call_id).__name__}, not text")
    return AnswerToolCall(
        id=call_id or f"call_{index}", name=name, raw_arguments=raw, arguments=parsed(raw)
    )


def parsed(raw: JsonValue) -> JsonObject | None:
    """Arguments as an object: ``raw`` itself, or the JSON object its text holds; ``None``
    for anything else (a text that is no JSON, or JSON that is no object)."""
    value = raw
    if isinstance(raw, str):
        try:
            value = jsontext.loads(raw)
        except ValueError:
            return None
    return cast(JsonObject, value) if isinstance(value, dict) else None
