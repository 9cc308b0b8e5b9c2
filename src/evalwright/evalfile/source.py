"""Parse YAML 1.2 and JSON text into plain data plus a tree of source positions.

YAML is composed with ruamel.yaml and constructed here under the YAML 1.2 core schema, so
``yes`` and ``2024-10-21`` stay strings and a duplicate key is an error naming both places.
JSON objects are parsed with :mod:`json` (fast); their positions are computed only when a
diagnostic needs one, by composing that one line as YAML.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from evalwright.evalfile.diagnostics import Report, format_field

DataPath = tuple[str | int, ...]

_NULL = re.compile(r"~|null|Null|NULL|")
_TRUE = re.compile(r"true|True|TRUE")
_FALSE = re.compile(r"false|False|FALSE")
_INT10 = re.compile(r"[-+]?[0-9]+")
_INT8 = re.compile(r"0o[0-7]+")
_INT16 = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INF = re.compile(r"([-+]?)\.(inf|Inf|INF)")
_NAN = re.compile(r"\.nan|\.NaN|\.NAN")
_STR_TAG = "tag:yaml.org,2002:str"
_CORE_TAGS = tuple(f"tag:yaml.org,2002:{t}" for t in ("int", "float", "bool", "null", "map", "seq"))
_MERGE = "<<"
_MAX_DEPTH = 200
# Aliases may repeat a subtree; cap the repeats so a tiny file cannot expand without bound.
_MAX_ALIAS_NODES = 10_000


@dataclass(slots=True)
class PosNode:
    """Where a value (and, for a mapping entry, its key) starts; 1-based."""

    line: int
    col: int
    key_line: int
    key_col: int
    children: dict[str | int, PosNode] = field(default_factory=dict[str | int, "PosNode"])


class Positions:
    """Answers "where in the file is this data path?" with the deepest known ancestor."""

    def __init__(self, root: PosNode | None) -> None:
        self._root = root

    def _walk(self, path: DataPath) -> tuple[PosNode | None, bool]:
        node = self._root
        exact = True
        for part in path:
            if node is None:
                break
            child = node.children.get(part)
            if child is None:
                exact = False
                break
            node = child
        return node, exact

    def value(self, path: DataPath) -> tuple[int, int]:
        """The position of the value at ``path`` (or of its nearest located ancestor)."""
        node, _ = self._walk(path)
        return (node.line, node.col) if node else (1, 1)

    def line(self, path: DataPath) -> int:
        """Only the line of ``path`` (cheap where the whole value sits on one line)."""
        return self.value(path)[0]

    def key(self, path: DataPath) -> tuple[int, int]:
        """The position of the key of the mapping entry at ``path``."""
        node, exact = self._walk(path)
        if node is None:
            return (1, 1)
        return (node.key_line, node.key_col) if exact else (node.line, node.col)


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
            scratch = Report("<line>")
            parsed = parse_yaml(self._text, scratch)
            fallback = PosNode(self._line, 1, self._line, 1)
            self._root = fallback
            if parsed is not None and parsed[1] is not None:
                self._root = _shift(parsed[1], self._line - 1)
        return super()._walk(path)


def _shift(node: PosNode, lines: int) -> PosNode:
    node.line += lines
    node.key_line += lines
    for child in node.children.values():
        _shift(child, lines)
    return node


def parse_yaml(text: str, report: Report) -> tuple[Any, PosNode | None] | None:
    """Parse one YAML document; ``None`` (with errors in ``report``) when it is not valid."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml: Any = YAML(typ="rt")
    try:
        node: Any = yaml.compose(text)
    except MarkedYAMLError as exc:
        marked: Any = exc
        mark: Any = marked.problem_mark or marked.context_mark
        line, col = (int(mark.line) + 1, int(mark.column) + 1) if mark else (1, 1)
        problem = " ".join(str(p) for p in (marked.context, marked.problem) if p)
        start: Any = marked.context_mark
        if problem and start is not None and mark is not None and start.line != mark.line:
            problem += f" (started at line {start.line + 1}, column {start.column + 1})"
        report.error(line, col, "", f"invalid YAML: {problem or exc}")
        return None
    except YAMLError as exc:
        report.error(1, 1, "", f"invalid YAML: {exc}")
        return None
    if node is None:
        return None, None
    builder = _Builder(report)
    try:
        return builder.build(node, (), 0), builder.root
    except _TooManyAliases as exc:
        report.error(exc.line, exc.col, "", "aliases expand to too many values")
        return None


class _TooManyAliases(Exception):
    def __init__(self, line: int, col: int) -> None:
        super().__init__(line, col)
        self.line = line
        self.col = col


class _Builder:
    """Turns composed ruamel nodes into plain data, recording positions as it goes."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.root: PosNode | None = None
        self._seen: set[int] = set()
        self._repeats = 0

    def build(self, node: Any, path: DataPath, depth: int, pos: PosNode | None = None) -> Any:
        if pos is None:
            line, col = _mark(node)
            pos = PosNode(line, col, line, col)
            self.root = pos
        if depth > _MAX_DEPTH:
            self.report.error(pos.line, pos.col, format_field(path), "nesting is too deep")
            return None
        if id(node) in self._seen:
            self._repeats += 1
            if self._repeats > _MAX_ALIAS_NODES:
                raise _TooManyAliases(pos.line, pos.col)
        self._seen.add(id(node))
        kind = type(node).__name__
        if kind == "MappingNode":
            return self._mapping(node, path, depth, pos)
        if kind == "SequenceNode":
            out: list[Any] = []
            for index, item in enumerate(node.value):
                line, col = _mark(item)
                child = PosNode(line, col, line, col)
                pos.children[index] = child
                out.append(self.build(item, (*path, index), depth + 1, child))
            return out
        return self._scalar(node, path, pos)

    def _mapping(self, node: Any, path: DataPath, depth: int, pos: PosNode) -> dict[str, Any]:
        out: dict[str, Any] = {}
        merges: list[Any] = []
        for key_node, value_node in node.value:
            key_line, key_col = _mark(key_node)
            if type(key_node).__name__ != "ScalarNode":
                self.report.error(
                    key_line, key_col, format_field(path), "a mapping key must be a plain string"
                )
                continue
            key = str(key_node.value)
            if key == _MERGE and key_node.style is None:
                merges.append(value_node)
                continue
            if key in out:
                first = pos.children[key]
                self.report.error(
                    key_line,
                    key_col,
                    format_field((*path, key)),
                    f"duplicate key '{key}' (first given at line {first.key_line})",
                )
                continue
            line, col = _mark(value_node)
            child = PosNode(line, col, key_line, key_col)
            pos.children[key] = child
            out[key] = self.build(value_node, (*path, key), depth + 1, child)
        for merged in merges:
            self._merge(merged, out, path, depth, pos)
        return out

    def _merge(
        self, node: Any, out: dict[str, Any], path: DataPath, depth: int, pos: PosNode
    ) -> None:
        sources = node.value if type(node).__name__ == "SequenceNode" else [node]
        for source in sources:
            scratch = PosNode(pos.line, pos.col, pos.key_line, pos.key_col)
            value = self.build(source, path, depth + 1, scratch)
            if not isinstance(value, dict):
                line, col = _mark(source)
                self.report.error(line, col, format_field(path), "'<<' must merge a mapping")
                continue
            merged: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
            for key, item in merged.items():
                if key not in out:
                    out[key] = item
                    pos.children[key] = scratch.children[key]

    def _scalar(self, node: Any, path: DataPath, pos: PosNode) -> Any:
        value: str = node.value
        if node.style is not None:
            return value
        # Only an explicit tag counts; ruamel's own implicit tags are not the core schema.
        explicit = getattr(node.ctag, "handle", None) is not None
        tag = str(node.tag)
        if explicit and tag == _STR_TAG:
            return value
        if explicit and not tag.startswith(_CORE_TAGS):
            self.report.error(
                pos.line, pos.col, format_field(path), f"unsupported YAML tag '{tag}'"
            )
        return _resolve(value)


def _mark(node: Any) -> tuple[int, int]:
    mark = node.start_mark
    return mark.line + 1, mark.column + 1


def _resolve(value: str) -> Any:
    """Resolve a plain scalar under the YAML 1.2 core schema."""
    if _NULL.fullmatch(value):
        return None
    if _TRUE.fullmatch(value):
        return True
    if _FALSE.fullmatch(value):
        return False
    if _INT10.fullmatch(value):
        return int(value)
    if _INT8.fullmatch(value):
        return int(value[2:], 8)
    if _INT16.fullmatch(value):
        return int(value[2:], 16)
    if _FLOAT.fullmatch(value):
        return float(value)
    inf = _INF.fullmatch(value)
    if inf:
        return -math.inf if inf.group(1) == "-" else math.inf
    if _NAN.fullmatch(value):
        return math.nan
    return value


class DuplicateKeyError(ValueError):
    """A JSON object repeats a key."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


def parse_json_line(text: str, line: int, report: Report) -> tuple[Any, Positions] | None:
    """Parse one JSONL line; ``None`` (with an error in ``report``) when it is not valid."""
    try:
        return json.loads(text, object_pairs_hook=_pairs), LazyPositions(text, line)
    except DuplicateKeyError as exc:
        scratch = Report(report.path)
        parse_yaml(text, scratch)
        for found in scratch.errors:
            if found.message.startswith("duplicate key "):
                report.error(line, found.col, found.field, found.message.split(" (first")[0])
                break
        else:
            col = text.find(json.dumps(exc.key), text.find(json.dumps(exc.key)) + 1) + 1
            report.error(line, max(col, 1), exc.key, f"duplicate key '{exc.key}'")
    except json.JSONDecodeError as exc:
        report.error(line, exc.colno, "", f"invalid JSON: {exc.msg}")
    return None
