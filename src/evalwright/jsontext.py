"""JSON that comes from outside (users' files, servers, agents, scripts) and JSON Lines that
go out (results files, ``prompt --json``).

Python's parser raises :class:`RecursionError` on deeply nested input, which no caller
expects from a parser; here it is a :class:`ValueError` like any other unreadable JSON, so a
hostile document is a located error or a failed reply, never a crash.
"""

from __future__ import annotations

import json
from typing import TypeAlias

from pydantic import JsonValue

JsonObject: TypeAlias = dict[str, JsonValue]
"""A JSON object: what a request or response body, or a parsed mapping, holds."""

__all__ = ["JsonObject", "JsonValue", "dumps_line", "loads", "one_line"]

# Line breaks to readers that split on every Unicode line end (Python's ``splitlines``),
# though JSON lets them stand in a string: written escaped, a JSON line stays one line.
_UNICODE_BREAKS = (("\x85", "\\u0085"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def dumps_line(value: object, *, ensure_ascii: bool = False) -> str:
    """``value`` as one JSON Lines line: compact, and one line for every reader."""
    return one_line(json.dumps(value, ensure_ascii=ensure_ascii, separators=(",", ":")))


def one_line(text: str) -> str:
    """Compact JSON ``text`` with the Unicode line ends a JSON string may hold escaped, so
    it stays one line for every reader."""
    for char, escape in _UNICODE_BREAKS:  # rare: a scan each is cheaper than translate()
        if char in text:
            text = text.replace(char, escape)
    return text


def loads(text: str | bytes) -> JsonValue:
    """:func:`json.loads`; nesting too deep to read is a :class:`ValueError` too."""
    try:
        value: JsonValue = json.loads(text)
        return value
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


def same(expected: JsonValue, actual: JsonValue, *, partial: bool = False) -> bool:
    """JSON equality where ``true`` is not ``1``; with ``partial``, a mapping matches one that
    has at least its keys, each value matching the same way."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return False
        if not partial and expected.keys() != actual.keys():
            return False
        return all(k in actual and same(v, actual[k], partial=partial) for k, v in expected.items())
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(same(e, a, partial=partial) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    return expected == actual
