"""Parse one line of a JSON Lines eval file (docs/eval-files.md, "JSON Lines files").

:mod:`json` does the parsing (fast); what it accepts but an eval file must not hold (nesting
deeper than YAML allows, a lone surrogate from a ``\\u`` escape) and what it fails on without a
position (very deep nesting, a huge integer) are found by cheap scans of the line, so each is
one located error. Positions are composed only when a diagnostic needs one, by reading that
one line as YAML.
"""

from __future__ import annotations

import json
import re
import sys

from evalwright.files._yaml.document import parse_yaml
from evalwright.files._yaml.events import MAX_DEPTH, TOO_DEEP
from evalwright.files._yaml.positions import DataPath, Positions, PosNode
from evalwright.files.diagnostics import Report
from evalwright.jsontext import JsonObject, JsonValue

_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
# A key (a string followed by ':') is not a value of its own; any other token is.
_DEPTH_TOKEN = re.compile(_STRING + r"(\s*:)?|([\[{])|([\]}])|[^\s,:\[\]{}\"]+")
_NUMBER = re.compile(_STRING + r"|-?(\d+)(\.\d+)?([eE][-+]?\d+)?")
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
# A valid pair, a lone surrogate (group 1), or any other escape (consumed so "\\\\" is skipped).
_ESCAPE = re.compile(
    r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|u([dD][89a-fA-F][0-9a-fA-F]{2})|.)"
)
# What JSON allows in a string but YAML does not: replaced, for positions only, by '?'.
_NOT_YAML = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class LazyPositions(Positions):
    """Positions of one JSON line, composed only when first asked for."""

    def __init__(self, text: str, line: int) -> None:
        super().__init__(None)
        self._text = text
        self._line = line
        self._ready = False

    def line(self, path: DataPath) -> int:  # noqa: ARG002 - every value is on this line
        """The JSONL line: every value of it is there, so nothing is composed."""
        return self._line

    def _walk(self, path: DataPath) -> tuple[PosNode | None, bool]:
        if not self._ready:
            self._ready = True
            parsed = parse_yaml(_as_yaml(self._text), Report("<line>"), first_line=self._line)
            self._root = PosNode(self._line, 1, self._line, 1)
            if parsed is not None and parsed[1] is not None:
                self._root = parsed[1]
        return super()._walk(path)


def _as_yaml(text: str) -> str:
    """A JSON line libyaml reads whole: same length and columns, its refused parts replaced."""
    return _NOT_YAML.sub("?", _MAYBE_SURROGATE.sub(r"\\u00", text))


class DuplicateKeyError(ValueError):
    """A JSON object repeats a key."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs(pairs: list[tuple[str, JsonValue]]) -> JsonObject:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


def parse_json_line(text: str, line: int, report: Report) -> tuple[JsonValue, Positions] | None:
    """Parse one JSONL line; ``None`` (with an error in ``report``) when it is not valid."""
    if text.count("[") + text.count("{") > MAX_DEPTH:
        deep = _too_deep(text)
        if deep is not None:
            report.error(line, deep, "", TOO_DEEP)
            return None
    try:
        data: JsonValue = json.loads(text, object_pairs_hook=_pairs)
    except DuplicateKeyError as exc:
        _duplicate(text, line, exc.key, report)
        return None
    except json.JSONDecodeError as exc:
        report.error(line, exc.colno, "", _json_message(text, exc))
        return None
    except RecursionError:  # the depth scan rules this out; kept so it can never escape
        report.error(line, 1, "", TOO_DEEP)
        return None
    except ValueError as exc:  # only a too long integer gets past the decoder's own errors
        report.error(line, *_huge_integer(text, exc))
        return None
    if "\\u" in text and _MAYBE_SURROGATE.search(text):
        lone = _lone_surrogate(text)
        if lone is not None:
            report.error(line, *lone)
            return None
    return data, LazyPositions(text, line)


def _json_message(text: str, exc: json.JSONDecodeError) -> str:
    if exc.msg.startswith("Invalid control character") and exc.pos < len(text):
        return f"invalid JSON: control character U+{ord(text[exc.pos]):04X} in a string"
    return f"invalid JSON: {exc.msg}"


def _duplicate(text: str, line: int, key: str, report: Report) -> None:
    scratch = Report(report.path)
    parse_yaml(_as_yaml(text), scratch, first_line=line)
    for found in scratch.errors:
        if found.message.startswith("duplicate key "):
            report.error(line, found.col, found.field, found.message.split(" (first")[0])
            return
    col = text.find(json.dumps(key), text.find(json.dumps(key)) + 1) + 1
    report.error(line, max(col, 1), key, f"duplicate key '{key}'")


def _too_deep(text: str) -> int | None:
    """The column of the first value nested deeper than YAML allows, if any (no recursion)."""
    depth = 0
    for match in _DEPTH_TOKEN.finditer(text):
        if match.group(3):
            depth -= 1
            continue
        if match.group(1):
            continue
        if depth > MAX_DEPTH:
            return match.start() + 1
        if match.group(2):
            depth += 1
    return None


def _huge_integer(text: str, exc: ValueError) -> tuple[int, str, str]:
    limit = sys.get_int_max_str_digits()
    for match in _NUMBER.finditer(text):
        digits = match.group(1)
        if digits and not match.group(2) and not match.group(3) and len(digits) > limit:
            message = f"integer has too many digits ({len(digits)}; at most {limit})"
            return match.start() + 1, "", message
    return 1, "", f"invalid JSON: {exc}"


def _lone_surrogate(text: str) -> tuple[int, str, str] | None:
    for match in _ESCAPE.finditer(text):
        code = match.group(1)
        if code:
            return match.start() + 1, "", f"invalid \\u escape: lone surrogate U+{code.upper()}"
    return None
