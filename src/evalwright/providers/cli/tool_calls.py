"""The tool calls a ``cli`` agent reports: JSON Lines in ``$EVALWRIGHT_TOOL_CALLS_FILE``, one
``{"name": ..., "arguments": {...}}`` per call (docs/agents.md#reporting-tool-calls)."""

from __future__ import annotations

import json
from typing import Any

from evalwright.errors import ProviderError, ResponseTooLarge
from evalwright.files.reading import FileTooLarge, UnreadableFile, read_limited
from evalwright.jsontext import JsonValue
from evalwright.providers.wire import AnswerToolCall

VARIABLE = "EVALWRIGHT_TOOL_CALLS_FILE"
FILE_NAME = "tool_calls.jsonl"
_SHAPE = '{"name": "...", "arguments": {...}} (and optionally "id")'


def read_tool_calls(path: str, limit: int) -> tuple[AnswerToolCall, ...]:
    """The calls the agent wrote to ``path`` in order; none when it wrote no file. A line
    that is no call is an error naming the line: a report is never half read."""
    try:
        data = read_limited(path, limit)
    except FileTooLarge as exc:
        raise ResponseTooLarge(limit, exc.size) from None
    except UnreadableFile:
        return ()  # the agent called no tool, or does not report its calls
    calls: list[AnswerToolCall] = []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        if line.strip():
            calls.append(_call(line, number, len(calls) + 1))
    return tuple(calls)


def _call(line: str, number: int, index: int) -> AnswerToolCall:
    where = f"${VARIABLE} line {number}"
    try:
        item: Any = json.loads(line)
    except ValueError as exc:
        raise ProviderError(f"{where} is not JSON ({exc}); expected {_SHAPE}") from None
    if not isinstance(item, dict):
        raise ProviderError(f"{where}: expected {_SHAPE}")
    fields: dict[str, JsonValue] = item  # pyright: ignore[reportUnknownVariableType]
    name, arguments, ident = fields.get("name"), fields.get("arguments", {}), fields.get("id")
    unknown = sorted(set(fields) - {"name", "arguments", "id"})
    if unknown or not isinstance(name, str) or not name:
        raise ProviderError(f"{where}: expected {_SHAPE}")
    if not isinstance(arguments, dict):
        raise ProviderError(f"{where}: 'arguments' must be a JSON object")
    if ident is not None and not isinstance(ident, str):
        raise ProviderError(f"{where}: 'id' must be a string")
    return AnswerToolCall(
        id=ident or f"call-{index}", name=name, raw_arguments=arguments, arguments=arguments
    )
