"""Streamed answers of the Anthropic Messages and Gemini APIs, as server-sent events.

Each is cut from the finished body the API would send whole, so a streamed answer and a whole
one carry the same content. Anthropic: ``message_start`` → per content block
``content_block_start``, its deltas, ``content_block_stop`` → ``message_delta`` (stop reason,
output tokens) → ``message_stop`` (its streaming guide). Gemini's ``streamGenerateContent``
with ``alt=sse``: one ``data:`` line per ``GenerateContentResponse`` chunk, the text split over
chunks, the last carrying the finish reason and usage. Claude Code and Gemini CLI read these.
"""

from __future__ import annotations

import json
from typing import TypeAlias

from evalwright.jsontext import JsonObject, JsonValue
from evalwright.testing.common import dumps
from evalwright.testing.responses_api import pieces

Body: TypeAlias = JsonObject

MALFORMED_ANTHROPIC = b'event: message_start\ndata: {"type": "message_start", "mess\n\n'
MALFORMED_GEMINI = b'data: {"candidates": [\n\n'


def anthropic_events(message: Body) -> tuple[bytes, ...]:
    """The events that stream the Messages API answer ``message``."""
    usage = _object(message["usage"])
    started = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    started["usage"] = {**usage, "output_tokens": 1}
    events: list[Body] = [{"type": "message_start", "message": started}, {"type": "ping"}]
    for index, block in enumerate(_objects(message["content"])):
        events.extend(_block_events(index, block))
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]}
    events.append({"type": "message_delta", "delta": stop, "usage": usage})
    events.append({"type": "message_stop"})
    return tuple(f"event: {e['type']}\ndata: ".encode() + dumps(e) + b"\n\n" for e in events)


def _block_events(index: int, block: Body) -> list[Body]:
    kind = block["type"]
    if kind == "text":
        empty: Body = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in pieces(_text(block["text"]))]
    elif kind == "tool_use":
        empty = {**block, "input": {}}
        arguments = json.dumps(block["input"], separators=(",", ":"))
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in _slices(arguments)]
    elif kind == "thinking":
        empty = {"type": "thinking", "thinking": "", "signature": ""}
        deltas: list[Body] = [
            {"type": "thinking_delta", "thinking": p} for p in pieces(_text(block["thinking"]))
        ]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    else:  # redacted_thinking comes whole, as its block's start
        empty, deltas = block, []
    start: Body = {"type": "content_block_start", "index": index, "content_block": empty}
    moves: list[Body] = [
        {"type": "content_block_delta", "index": index, "delta": d} for d in deltas
    ]
    return [start, *moves, {"type": "content_block_stop", "index": index}]


def gemini_chunks(response: Body) -> tuple[bytes, ...]:
    """The ``alt=sse`` chunks that stream the ``generateContent`` answer ``response``: its parts
    in order, a text part over several chunks, the last chunk with the finish reason and usage."""
    candidates = response.get("candidates")
    if not isinstance(candidates, list) or not candidates:
        return (_sse(response),)
    candidate = _object(candidates[0])
    parts: list[JsonValue] = []
    for part in _objects(_object(candidate["content"])["parts"]):
        if set(part) == {"text"}:
            parts.extend({"text": piece} for piece in pieces(_text(part["text"])))
        else:
            parts.append(part)
    lead = {k: v for k, v in response.items() if k not in ("candidates", "usageMetadata")}
    chunks: list[Body] = []
    for part in parts[:-1]:
        content: Body = {"role": "model", "parts": [part]}
        chunks.append({**lead, "candidates": [{"content": content, "index": 0}]})
    said: Body = {"role": "model", "parts": parts[-1:]}
    last: Body = {**candidate, "content": said}
    chunks.append({**response, "candidates": [last]})
    return tuple(_sse(chunk) for chunk in chunks)


def _sse(body: Body) -> bytes:
    return b"data: " + dumps(body) + b"\r\n\r\n"


def _slices(text: str, count: int = 4) -> list[str]:
    """``text`` in up to ``count`` slices (partial JSON is cut anywhere)."""
    size = -(-len(text) // count) or 1
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]


# The events are read back from bodies built by this package's renderers, so each value has
# the shape given it there; a mismatch is a bug of this package.
def _object(value: JsonValue) -> Body:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {value!r}")
    return value


def _objects(value: JsonValue) -> list[Body]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list of objects, got {value!r}")
    return [item for item in value if isinstance(item, dict)]


def _text(value: JsonValue) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value
