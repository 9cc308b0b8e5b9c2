"""Helpers every API's response bodies share: ids, token counts, compact JSON."""

from __future__ import annotations

import json
import uuid

from evalwright.testing.actions import Blocked, FunctionCall, Text, ToolCalls
from evalwright.testing.recorded import ReceivedRequest


def new_id(prefix: str) -> str:
    """A fresh id in the style of the real APIs (``chatcmpl-…``, ``msg_…``)."""
    return prefix + uuid.uuid4().hex[:24]


def estimate_tokens(text: str) -> int:
    """A rough token count (four characters a token), at least 1."""
    return max(1, (len(text) + 3) // 4)


def usage_of(
    answer: Text | FunctionCall | ToolCalls | Blocked, request: ReceivedRequest
) -> tuple[int, int]:
    """Input and output token counts to report for ``answer``."""
    estimated_input = estimate_tokens(request.body.decode("utf-8", "replace"))
    if isinstance(answer, Text):
        return (
            estimated_input if answer.input_tokens is None else answer.input_tokens,
            estimate_tokens(answer.text) if answer.output_tokens is None else answer.output_tokens,
        )
    if isinstance(answer, FunctionCall | ToolCalls):
        return estimated_input, estimate_tokens(ToolCalls.of(answer).output_text())
    return estimated_input, 0


def dumps(body: object) -> bytes:
    """``body`` as compact UTF-8 JSON."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
