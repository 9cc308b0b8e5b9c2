"""The OpenAI Responses API: a Response object, or the server-sent events that stream one.

A streamed answer goes ``response.created`` → ``response.in_progress`` → the events of one
output item (a message, or a function call) → ``response.completed``, every event numbered
with ``sequence_number`` as the real API does; the Codex CLI and the openai SDK both read it.
"""

from __future__ import annotations

import re
import time
from typing import TypeAlias

from evalwright.jsontext import JsonObject, JsonValue
from evalwright.testing.actions import Blocked, FunctionCall, Malformed, Text, ToolCalls
from evalwright.testing.common import dumps, new_id, usage_of
from evalwright.testing.http11 import Reply, StreamReply
from evalwright.testing.recorded import ReceivedRequest

Body: TypeAlias = JsonObject
Event: TypeAlias = tuple[str, Body]

MAX_DELTAS = 32
"""Most text or argument deltas one item is split into."""

_MALFORMED_EVENT = b'event: response.created\ndata: {"type": "response.created", "resp\n\n'


def render(
    answer: Text | FunctionCall | ToolCalls | Blocked | Malformed, request: ReceivedRequest
) -> Reply | StreamReply:
    """The Responses API answer, streamed when the request asked for ``stream``."""
    if isinstance(answer, Malformed):
        if request.stream:
            return StreamReply((_MALFORMED_EVENT,))
        return Reply(200, b'{"id": "resp_malformed", "output": [')
    final = response_object(answer, request)
    if not request.stream:
        return Reply(200, dumps(final))
    return StreamReply(tuple(encode_event(event) for event in stream_events(final)))


def response_object(
    answer: Text | FunctionCall | ToolCalls | Blocked, request: ReceivedRequest
) -> Body:
    """The finished Response object for ``answer``."""
    input_tokens, output_tokens = usage_of(answer, request)
    cached = (answer.cache_read_tokens if isinstance(answer, Text) else None) or 0
    status = "completed"
    output: list[JsonValue] = []
    incomplete: Body | None = None
    if isinstance(answer, Text):
        status = answer.finish_reason or "completed"
        output.append(message_item(new_id("msg_"), answer.text))
        if status == "incomplete":
            incomplete = {"reason": "max_output_tokens"}
    elif isinstance(answer, FunctionCall | ToolCalls):
        calls = ToolCalls.of(answer)
        if calls.text:
            output.append(message_item(new_id("msg_"), calls.text))
        output.extend(function_call_item(new_id("fc_"), call) for call in calls.calls)
    else:
        status = "incomplete"
        incomplete = {"reason": "content_filter"}
    instructions = _field(request, "instructions")
    return {
        "id": new_id("resp_"),
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "background": False,
        "error": _error_for(status),
        "incomplete_details": incomplete,
        "instructions": instructions if isinstance(instructions, str) else None,
        "max_output_tokens": None,
        "metadata": {},
        "model": request.model or "fake-model",
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": _usage(input_tokens, output_tokens, cached),
    }


def message_item(item_id: str, text: str) -> Body:
    """A finished assistant message output item holding ``text``."""
    part: Body = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
    return {
        "id": item_id,
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [part],
    }


def function_call_item(item_id: str, call: FunctionCall) -> Body:
    """A finished ``function_call`` output item."""
    return {
        "id": item_id,
        "type": "function_call",
        "status": "completed",
        "call_id": call.call_id or new_id("call_"),
        "name": call.name,
        "arguments": call.arguments_json(),
    }


def stream_events(final: Body) -> list[Body]:
    """Every event of the stream that ends in the Response ``final``, numbered in order."""
    started: Body = {**final, "status": "in_progress", "output": [], "usage": None, "error": None}
    started["incomplete_details"] = None
    events: list[Event] = [
        ("response.created", {"response": started}),
        ("response.in_progress", {"response": started}),
    ]
    for index, item in enumerate(_objects(final["output"])):
        if item["type"] == "message":
            events.extend(_message_events(item, index))
        else:
            events.extend(_function_call_events(item, index))
    last = final["status"] if final["status"] in ("incomplete", "failed") else "completed"
    events.append((f"response.{last}", {"response": final}))
    return [
        {"type": name, "sequence_number": number, **fields}
        for number, (name, fields) in enumerate(events)
    ]


def encode_event(event: Body) -> bytes:
    """One server-sent event: ``event: TYPE``, ``data: JSON`` and a blank line."""
    return f"event: {event['type']}\ndata: ".encode() + dumps(event) + b"\n\n"


def pieces(text: str) -> list[str]:
    """``text`` split at word boundaries into at most :data:`MAX_DELTAS` deltas."""
    words: list[str] = re.findall(r"\s*\S+\s*|\s+", text)
    size = -(-len(words) // MAX_DELTAS) or 1
    return ["".join(words[start : start + size]) for start in range(0, len(words), size)]


def _message_events(item: Body, index: int) -> list[Event]:
    part = _objects(item["content"])[0]
    text = _text(part["text"])
    ref = {"item_id": item["id"], "output_index": index, "content_index": 0}
    empty_part = {**part, "text": ""}
    events: list[Event] = [
        ("response.output_item.added", _added(item, index, content=[])),
        ("response.content_part.added", {**ref, "part": empty_part}),
    ]
    for delta in pieces(text):
        events.append(("response.output_text.delta", {**ref, "delta": delta, "logprobs": []}))
    events.append(("response.output_text.done", {**ref, "text": text, "logprobs": []}))
    events.append(("response.content_part.done", {**ref, "part": part}))
    events.append(("response.output_item.done", {"output_index": index, "item": item}))
    return events


def _function_call_events(item: Body, index: int) -> list[Event]:
    arguments = _text(item["arguments"])
    ref = {"item_id": item["id"], "output_index": index}
    events: list[Event] = [("response.output_item.added", _added(item, index, arguments=""))]
    for delta in pieces(arguments):
        events.append(("response.function_call_arguments.delta", {**ref, "delta": delta}))
    events.append(("response.function_call_arguments.done", {**ref, "arguments": arguments}))
    events.append(("response.output_item.done", {"output_index": index, "item": item}))
    return events


def _added(item: Body, index: int, **empty: JsonValue) -> Body:
    return {"output_index": index, "item": {**item, **empty, "status": "in_progress"}}


def _usage(input_tokens: int, output_tokens: int, cached: int) -> Body:
    # Cache reads are part of the input tokens, as on Chat Completions.
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


def _error_for(status: str) -> Body | None:
    if status != "failed":
        return None
    return {"code": "server_error", "message": "fake failure from the evalwright test server"}


def _field(request: ReceivedRequest, name: str) -> object:
    body: JsonValue = request.json
    return body.get(name) if isinstance(body, dict) else None


# The events are read back from the Response object built above, so each value has the shape
# given it there; a mismatch is a bug of this module.
def _objects(value: JsonValue) -> list[Body]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list of objects, got {value!r}")
    return [item for item in value if isinstance(item, dict)]


def _text(value: JsonValue) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value
