"""The collections being built from YAML events, and the copies aliases make (no recursion).

Split from :mod:`.events`; see there and docs/eval-files.md.
"""

from __future__ import annotations

import enum
from typing import Protocol, TypeAlias

from evalwright.files._yaml.positions import PosNode
from evalwright.jsontext import JsonObject, JsonValue

Collection: TypeAlias = JsonObject | list[JsonValue]
"""A mapping or sequence of the document: YAML's core schema builds nothing but JSON data."""


class _Skip(enum.Enum):
    SKIP = enum.auto()


SKIP = _Skip.SKIP  # the pending key of a mapping entry that is left out (reported already)


class Mark(Protocol):
    """Where a parser event starts (0-based), as both libyaml and PyYAML give it."""

    @property
    def line(self) -> int:
        """The line, from 0."""
        ...

    @property
    def column(self) -> int:
        """The column, from 0."""
        ...


class Frame:
    """A mapping or sequence being built."""

    __slots__ = (
        "anchor",
        "data",
        "height",
        "is_map",
        "key",
        "key_col",
        "key_line",
        "merge",
        "merges",
        "name",
        "pos",
        "size",
    )

    def __init__(self, data: Collection, pos: PosNode, name: str | int, anchor: str | None) -> None:
        self.data = data
        self.pos = pos
        self.is_map = type(data) is dict
        self.name = name
        self.anchor = anchor
        self.size = 1
        self.height = 0
        self.key: str | _Skip | None = None  # a mapping's pending key
        self.key_line = 0
        self.key_col = 0
        self.merge = False
        self.merges: list[tuple[JsonValue, PosNode]] = []


def add_text(frame: Frame, text: str, mark: Mark, first_line: int) -> None:
    """:func:`add` for a string scalar (the common case, kept short)."""
    line, col = mark.line + first_line, mark.column + 1
    data = frame.data
    if isinstance(data, dict):
        key = frame.key
        frame.key = None
        if key is not None and key is not SKIP:  # always: the builder checked the key
            data[key] = text
            frame.pos.children[key] = PosNode(line, col, frame.key_line, frame.key_col)
    else:
        frame.pos.children[len(data)] = PosNode(line, col, line, col)
        data.append(text)
    frame.size += 1
    if not frame.height:
        frame.height = 1


def add(frame: Frame, value: JsonValue, pos: PosNode, size: int, height: int) -> None:
    """Put a finished value into the collection being built."""
    data = frame.data
    if isinstance(data, dict):
        key = frame.key
        frame.key = None
        if key is None or key is SKIP:  # SKIP: the entry is left out
            return
        if frame.merge:
            frame.merges.append((value, pos))
        else:
            data[key] = value
            frame.pos.children[key] = pos
    else:
        frame.pos.children[len(data)] = pos
        data.append(value)
    frame.size += size
    if frame.height <= height:
        frame.height = height + 1


def copy_tree(value: JsonValue, pos: PosNode, top: PosNode) -> tuple[JsonValue, PosNode]:
    """A fresh copy of an anchored value and its positions; ``top`` locates the copy itself."""
    root = empty_like(value)
    if root is None:
        return value, top
    todo: list[tuple[JsonValue, PosNode, Collection, PosNode]] = [(value, pos, root, top)]
    while todo:
        source, source_pos, target, target_pos = todo.pop()
        if isinstance(source, dict) and isinstance(target, dict):
            for name, item in source.items():
                target[name] = _copy_item(item, name, source_pos, target_pos, todo)
        elif isinstance(source, list) and isinstance(target, list):
            for index, item in enumerate(source):
                target.append(_copy_item(item, index, source_pos, target_pos, todo))
    return root, top


def _copy_item(
    item: JsonValue,
    name: str | int,
    source_pos: PosNode,
    target_pos: PosNode,
    todo: list[tuple[JsonValue, PosNode, Collection, PosNode]],
) -> JsonValue:
    """The copy of one entry (a new empty collection queued for filling, or the scalar)."""
    item_pos = source_pos.children.get(name, source_pos)
    new_pos = PosNode(item_pos.line, item_pos.col, item_pos.key_line, item_pos.key_col)
    target_pos.children[name] = new_pos
    copied = empty_like(item)
    if copied is None:
        return item
    todo.append((item, item_pos, copied, new_pos))
    return copied


def empty_like(value: JsonValue) -> Collection | None:
    """A new empty dict or list for a collection, else ``None``."""
    kind = value.__class__
    if kind is dict:
        return {}
    return [] if kind is list else None
