"""Response bodies in each chat API's own shape: answers, refusals, errors, broken JSON."""

from __future__ import annotations

import time
from collections.abc import Callable
from http import HTTPStatus
from typing import TypeAlias

from evalwright.jsontext import JsonObject, JsonValue
from evalwright.testing import responses_api, streams
from evalwright.testing.actions import (
    Answer,
    Blocked,
    Fault,
    FunctionCall,
    Malformed,
    Text,
    Thought,
    ToolCalls,
)
from evalwright.testing.common import dumps, estimate_tokens, new_id, usage_of
from evalwright.testing.http11 import Reply, StreamReply
from evalwright.testing.recorded import ApiName, ReceivedRequest

Body: TypeAlias = JsonObject
Said: TypeAlias = Text | FunctionCall | ToolCalls | Blocked
"""An answer a 200 response carries."""
Renderer: TypeAlias = Callable[[Said, ReceivedRequest], Body]

MALFORMED_BODIES: dict[ApiName, bytes] = {
    "openai": b'{"choices": [',
    "azure": b'{"choices": [',
    "anthropic": b'{"id": "msg_malformed", "content": [',
    "gemini": b'{"candidates": [',
    "responses": b'{"id": "resp_malformed", "output": [',
}


def render(answer: Answer, request: ReceivedRequest) -> Reply | StreamReply:
    """The response that carries ``answer`` for the API ``request`` spoke."""
    if isinstance(answer, Fault):
        return fault_reply(answer, request.api)
    if request.api == "responses":
        return responses_api.render(answer, request)
    if request.stream and request.api in ("anthropic", "gemini"):
        return _stream(answer, request)
    if isinstance(answer, Malformed):
        return Reply(200, MALFORMED_BODIES.get(request.api, b"{"))
    if request.stream:
        message = f"the fake server does not stream the {request.api} API"
        return Reply(400, dumps(error_body(request.api, 400, message)))
    renderer = _RENDERERS.get(request.api)
    if renderer is None:
        return not_found(request)
    return Reply(200, dumps(renderer(answer, request)))


def _stream(answer: Said | Malformed, request: ReceivedRequest) -> StreamReply:
    """A streamed Anthropic Messages or Gemini answer (:mod:`.streams`)."""
    if request.api == "anthropic":
        if isinstance(answer, Malformed):
            return StreamReply((streams.MALFORMED_ANTHROPIC,))
        return StreamReply(streams.anthropic_events(_anthropic(answer, request)))
    if isinstance(answer, Malformed):
        return StreamReply((streams.MALFORMED_GEMINI,))
    return StreamReply(streams.gemini_chunks(_gemini(answer, request)))


def not_found(request: ReceivedRequest) -> Reply:
    """The 404 for a route no API here serves."""
    message = f"no route for {request.method} {request.path} on the fake server"
    return Reply(404, dumps(error_body("unknown", 404, message)))


def fault_reply(fault: Fault, api: ApiName) -> Reply:
    """The error response a :class:`Fault` asks for."""
    headers: list[tuple[str, str]] = []
    if fault.retry_after is not None:
        headers.append(("Retry-After", _seconds_text(fault.retry_after)))
    if fault.retry_after_ms is not None:
        headers.append(("retry-after-ms", str(fault.retry_after_ms)))
    content_type = "application/json"
    for name, value in (fault.headers or {}).items():
        if name.lower() == "content-type":
            content_type = value
        else:
            headers.append((name, value))
    if fault.body is None:
        body = dumps(error_body(api, fault.status, _fault_message(fault)))
    elif isinstance(fault.body, bytes):
        body = fault.body
    elif isinstance(fault.body, str):
        body = fault.body.encode("utf-8")
    else:
        body = dumps(dict(fault.body))
    return Reply(fault.status, body, content_type, tuple(headers))


def error_body(api: ApiName, status: int, message: str) -> Body:
    """The JSON error object ``api`` sends with HTTP ``status``."""
    if api == "anthropic":
        return {"type": "error", "error": {"type": _anthropic_error(status), "message": message}}
    if api == "gemini":
        return {"error": {"code": status, "message": message, "status": _google_status(status)}}
    kind, code = _openai_error(status)
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _openai_chat(answer: Said, request: ReceivedRequest) -> Body:
    message: Body = {"role": "assistant", "content": None, "refusal": None}
    if isinstance(answer, Text):
        message["content"] = answer.text
        finish = answer.finish_reason or "stop"
    elif isinstance(answer, FunctionCall | ToolCalls):
        calls = ToolCalls.of(answer)
        message["content"] = calls.text or None
        message["tool_calls"] = [_openai_call(call) for call in calls.calls]
        finish = calls.finish_reason or "tool_calls"
    else:
        finish = "content_filter"
    prompt, completion = usage_of(answer, request)
    return {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model or "fake-model",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            **_cache_counts(answer, read=("prompt_tokens_details", "cached_tokens")),
            **_reasoning_count(answer),
        },
        "system_fingerprint": None,
    }


def _openai_call(call: FunctionCall) -> Body:
    function: Body = {"name": call.name, "arguments": call.arguments_json()}
    return {"id": call.call_id or new_id("call_"), "type": "function", "function": function}


def _anthropic(answer: Said, request: ReceivedRequest) -> Body:
    content: list[JsonValue] = [_anthropic_thought(t) for t in _thoughts(answer)]
    if isinstance(answer, Text):
        content.append({"type": "text", "text": answer.text})
        stop = answer.finish_reason or "end_turn"
    elif isinstance(answer, FunctionCall | ToolCalls):
        calls = ToolCalls.of(answer)
        if calls.text:
            content.append({"type": "text", "text": calls.text})
        for call in calls.calls:
            call_id = call.call_id or new_id("toolu_")
            block = {"type": "tool_use", "id": call_id, "name": call.name}
            content.append({**block, "input": call.arguments_object()})
        stop = calls.finish_reason or "tool_use"
    else:
        stop = "refusal"
    input_tokens, output_tokens = usage_of(answer, request)
    if not (isinstance(answer, Text) and answer.output_tokens is not None):
        output_tokens += _thought_tokens(answer)  # Anthropic counts thinking as output
    return {
        "id": new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": request.model or "fake-model",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            **_cache_counts(
                answer, read="cache_read_input_tokens", write="cache_creation_input_tokens"
            ),
        },
    }


def _gemini(answer: Said, request: ReceivedRequest) -> Body:
    prompt, candidates = usage_of(answer, request)
    body: Body = {
        "usageMetadata": {
            "promptTokenCount": prompt,
            "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates,
            **_cache_counts(answer, read="cachedContentTokenCount"),
            **({"thoughtsTokenCount": n} if (n := _thought_tokens(answer)) else {}),
        },
        "modelVersion": request.model or "fake-model",
        "responseId": new_id(""),
    }
    if isinstance(answer, Blocked):
        body["promptFeedback"] = {"blockReason": "SAFETY"}
        return body
    parts: list[JsonValue] = [_gemini_thought(t) for t in _thoughts(answer)]
    if isinstance(answer, Text):
        parts.append({"text": answer.text})
        finish = answer.finish_reason or "STOP"
    else:
        calls = ToolCalls.of(answer)
        if calls.text:
            parts.append({"text": calls.text})
        parts.extend(_gemini_call(call) for call in calls.calls)
        finish = calls.finish_reason or "STOP"
    content: Body = {"role": "model", "parts": parts}
    body["candidates"] = [{"content": content, "finishReason": finish, "index": 0}]
    return body


def _thoughts(answer: Said) -> tuple[Thought, ...]:
    return answer.reasoning if isinstance(answer, Text | ToolCalls) else ()


def _reasoning_count(answer: Said) -> Body:
    if not (isinstance(answer, Text) and answer.reasoning_tokens is not None):
        return {}
    return {"completion_tokens_details": {"reasoning_tokens": answer.reasoning_tokens}}


def _thought_tokens(answer: Said) -> int:
    """An estimate of the reasoning's tokens (Gemini reports them apart, Anthropic as output)."""
    return sum(estimate_tokens(t.text or t.redacted or "") for t in _thoughts(answer))


def _anthropic_thought(thought: Thought) -> JsonValue:
    if thought.redacted is not None:
        return {"type": "redacted_thinking", "data": thought.redacted}
    return {"type": "thinking", "thinking": thought.text, "signature": thought.signature or ""}


def _gemini_thought(thought: Thought) -> JsonValue:
    part: Body = {"text": thought.text, "thought": True}
    if thought.signature is not None:
        part["thoughtSignature"] = thought.signature
    return part


def _gemini_call(call: FunctionCall) -> Body:
    """A ``functionCall`` part: its id only when the call has one (Gemini may send none)."""
    function: Body = {"name": call.name, "args": call.arguments_object()}
    if call.call_id is not None:
        function["id"] = call.call_id
    part: Body = {"functionCall": function}
    if call.signature is not None:
        part["thoughtSignature"] = call.signature
    return part


_RENDERERS: dict[ApiName, Renderer] = {
    "openai": _openai_chat,
    "azure": _openai_chat,
    "anthropic": _anthropic,
    "gemini": _gemini,
}


def _seconds_text(value: float | str) -> str:
    if isinstance(value, str):
        return value
    return str(int(value)) if float(value).is_integer() else str(value)


def _fault_message(fault: Fault) -> str:
    try:
        phrase = HTTPStatus(fault.status).phrase
    except ValueError:
        phrase = "Error"
    message = f"{phrase} (fake {fault.status} from the evalwright test server)."
    if fault.retry_after is not None:
        # Some clients (the Codex CLI) read the delay from the message text.
        message += f" Please try again in {_seconds_text(fault.retry_after)}s."
    return message


def _openai_error(status: int) -> tuple[str, str | None]:
    if status == 401:
        return "invalid_request_error", "invalid_api_key"
    if status == 404:
        return "invalid_request_error", "not_found"
    if status == 429:
        return "requests", "rate_limit_exceeded"
    if status >= 500:
        return "server_error", None
    return "invalid_request_error", None


_ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    503: "overloaded_error",
    529: "overloaded_error",
}


def _anthropic_error(status: int) -> str:
    default = "api_error" if status >= 500 else "invalid_request_error"
    return _ANTHROPIC_ERRORS.get(status, default)


_GOOGLE_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def _google_status(status: int) -> str:
    return _GOOGLE_STATUSES.get(status, "UNKNOWN")


def _cache_counts(
    answer: Said,
    *,
    read: str | tuple[str, str],
    write: str | None = None,
) -> Body:
    """The prompt-cache counts a :class:`Text` asks for, at the API's keys (``read`` is a key,
    or an object and its key)."""
    if not isinstance(answer, Text):
        return {}
    counts: Body = {}
    if answer.cache_read_tokens is not None:
        value: JsonValue = answer.cache_read_tokens
        if isinstance(read, tuple):
            counts[read[0]] = {read[1]: value}
        else:
            counts[read] = value
    if write is not None and answer.cache_write_tokens is not None:
        counts[write] = answer.cache_write_tokens
    return counts
