"""The collections being built from YAML events, and the copies aliases make (no recursion).

Split from :mod:`.yaml_events`; see there and docs/eval-files.md.
"""

from __future__ import annotations

from typing import Any

from evalwright.evalfile.positions import PosNode

SKIP = object()  # the pending key of a mapping entry that is left out (reported already)


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

    def __init__(self, data: Any, pos: PosNode, name: str | int, anchor: str | None) -> None:
        self.data = data
        self.pos = pos
        self.is_map = type(data) is dict
        self.name = name
        self.anchor = anchor
        self.size = 1
        self.height = 0
        self.key: Any = None  # a mapping's pending key: None, a string or SKIP
        self.key_line = 0
        self.key_col = 0
        self.merge = False
        self.merges: list[tuple[Any, PosNode]] = []


def add_text(frame: Frame, text: str, mark: Any, first_line: int) -> None:
    """:func:`add` for a string scalar (the common case, kept short)."""
    line, col = mark.line + first_line, mark.column + 1
    if frame.is_map:
        key = frame.key
        frame.key = None
        frame.data[key] = text
        frame.pos.children[key] = PosNode(line, col, frame.key_line, frame.key_col)
    else:
        frame.pos.children[len(frame.data)] = PosNode(line, col, line, col)
        frame.data.append(text)
    frame.size += 1
    if not frame.height:
        frame.height = 1


def add(frame: Frame, value: Any, pos: PosNode, size: int, height: int) -> None:
    """Put a finished value into the collection being built."""
    if frame.is_map:
        key = frame.key
        frame.key = None
        if key is SKIP:
            return
        if frame.merge:
            frame.merges.append((value, pos))
        else:
            frame.data[key] = value
            frame.pos.children[key] = pos
    else:
        frame.pos.children[len(frame.data)] = pos
        frame.data.append(value)
    frame.size += size
    if frame.height <= height:
        frame.height = height + 1


def copy_tree(value: Any, pos: PosNode, top: PosNode) -> tuple[Any, PosNode]:
    """A fresh copy of an anchored value and its positions; ``top`` locates the copy itself."""
    root = empty_like(value)
    if root is None:
        return value, top
    todo: list[tuple[Any, PosNode, Any, PosNode]] = [(value, pos, root, top)]
    while todo:
        source, source_pos, target, target_pos = todo.pop()
        is_map = type(target) is dict
        pairs: Any = source.items() if is_map else enumerate(source)
        for name, item in pairs:
            item_pos = source_pos.children.get(name, source_pos)
            new_pos = PosNode(item_pos.line, item_pos.col, item_pos.key_line, item_pos.key_col)
            target_pos.children[name] = new_pos
            copied = empty_like(item)
            if copied is None:
                copied = item
            else:
                todo.append((item, item_pos, copied, new_pos))
            if is_map:
                target[name] = copied
            else:
                target.append(copied)
    return root, top


def empty_like(value: Any) -> Any:
    """A new empty dict or list for a collection, else ``None``."""
    kind = value.__class__
    if kind is dict:
        return {}
    return [] if kind is list else None
