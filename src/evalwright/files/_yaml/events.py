"""Build plain data and its positions from YAML parser events, with an explicit stack.

The events come from libyaml (through PyYAML); nothing here recurses, so a deeply nested file
gives one located error instead of exhausting a stack. Aliases are copied, but only after their
size is known to fit the budget, so a small file cannot expand without bound.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    Event,
    MappingStartEvent,
    ScalarEvent,
    StreamEndEvent,
)

from evalwright.files._yaml.frames import SKIP, Frame, add, add_text, copy_tree
from evalwright.files._yaml.positions import DataPath, PosNode
from evalwright.files._yaml.scalars import (
    MAP_TAG,
    NON_SPECIFIC,
    SEQ_TAG,
    STR_TAG,
    Scalar,
    ScalarProblem,
    may_resolve,
    resolve,
    short_tag,
    tagged,
)
from evalwright.files.diagnostics import format_field
from evalwright.jsontext import JsonValue

MAX_DEPTH = 200
TOO_DEEP = f"nesting is too deep (more than {MAX_DEPTH} levels)"
"""The one message for a value nested past :data:`MAX_DEPTH`, whichever reader finds it."""
# Aliases may repeat a subtree; cap the repeated values so a tiny file cannot expand without bound.
MAX_ALIAS_NODES = 10_000
_MERGE = "<<"
_SHOWN_LEVELS = 6
_SURROGATES = re.compile("[\ud800-\udfff]")
Problem = tuple[int, int, str, str]  # line, col, field, message
EventSource: TypeAlias = Callable[[], Event | None]
"""The parser's ``get_event``: the next event of the stream."""


class YamlAbort(Exception):
    """Stop building: the problem (already recorded unless ``syntax``) ends the document."""

    def __init__(self, problem: Problem | None = None) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(slots=True)
class _Anchor:
    value: JsonValue
    pos: PosNode
    size: int  # values in the subtree, aliases counted as what they expand to
    height: int  # how far the deepest value lies below this one
    key: str | None  # the scalar's text, when it is used as a mapping key


class EventBuilder:
    """Consumes the events of one document; :meth:`document` returns its data and positions."""

    def __init__(self, first_line: int, back: dict[int, int] | None, check_escapes: bool) -> None:
        self.first_line = first_line
        self.back = back  # placeholder -> original line-break-like character
        self.check_escapes = check_escapes  # the pure-Python parser lets lone surrogates through
        self.problems: list[Problem] = []
        self.anchors: dict[str, _Anchor] = {}
        self.expanded = 0

    def document(self, get: EventSource) -> tuple[JsonValue, PosNode | None]:
        """Build the stream's only document (``None, None`` for an empty stream)."""
        event = get()
        while type(event) is not DocumentStartEvent:
            if type(event) is StreamEndEvent:
                return None, None
            event = get()
        root: list[JsonValue] = []
        holder = Frame(root, PosNode(1, 1, 1, 1), 0, None)
        stack = [holder]
        self._events(get, stack)
        following = get()
        if type(following) is DocumentStartEvent:
            line, col = self._mark(following)
            message = "expected a single document in the stream but found another document"
            message = f"invalid YAML: {message}"
            raise YamlAbort((line, col, "", message))
        return (root[0], holder.pos.children[0]) if root else (None, None)

    def _events(self, get: EventSource, stack: list[Frame]) -> None:
        # The two most common events (a new plain key, an untagged scalar) take a short path:
        # this loop runs once per event and dominates the load time of a large suite.
        first_line = self.first_line
        simple = self.back is None and not self.check_escapes
        frame = stack[-1]
        while True:
            event = get()
            if type(event) is ScalarEvent:
                mark = event.start_mark  # always set by the parsers, though the stubs allow None
                if frame.is_map and frame.key is None:
                    key = event.value
                    if (
                        simple
                        and event.tag is None
                        and not event.anchor
                        and key not in frame.data
                        and key != _MERGE
                        and mark is not None
                    ):
                        frame.key = key
                        frame.key_line, frame.key_col = mark.line + first_line, mark.column + 1
                        frame.merge = False
                    else:
                        self._key(frame, event, stack)
                elif (
                    simple
                    and event.tag is None
                    and not event.anchor
                    and (event.style or not may_resolve(event.value))
                    and frame.key is not SKIP
                    and not frame.merge
                    and len(stack) <= MAX_DEPTH + 1
                    and mark is not None
                ):
                    add_text(frame, event.value, mark, first_line)
                else:
                    self._scalar(frame, event, stack)
            elif type(event) is DocumentEndEvent:
                return
            else:
                frame = self._structure(frame, event, get, stack)

    def _structure(
        self, frame: Frame, event: Event | None, get: EventSource, stack: list[Frame]
    ) -> Frame:
        """Handle a collection's start or end, or an alias; the innermost collection after it."""
        if isinstance(event, CollectionStartEvent):
            if frame.is_map and frame.key is None:
                self._collection_key(frame, event, get, stack)
            elif frame.key is SKIP:
                self._skip(get, stack)
                frame.key = None
            else:
                self._open(frame, event, type(event) is MappingStartEvent, stack)
        elif isinstance(event, CollectionEndEvent):
            self._close(stack)
        elif type(event) is AliasEvent:
            self._alias(frame, event, stack, frame.is_map and frame.key is None)
        return stack[-1]

    # --- values ---------------------------------------------------------------------------

    def _scalar(self, frame: Frame, event: ScalarEvent, stack: list[Frame]) -> None:
        line, col = self._mark(event)
        if len(stack) > MAX_DEPTH + 1:
            self._too_deep(line, col, stack)
        text = event.value
        if self.back is not None:
            text = text.translate(self.back)
        tag = event.tag
        value: Scalar
        try:
            if tag is not None:
                value = tagged(text, tag)
            elif event.style:
                value = text
                if self.check_escapes and event.style == '"':
                    _check_surrogates(text)
            else:
                value = resolve(text)
        except ScalarProblem as exc:
            self.problems.append((line, col, self._field(stack), str(exc)))
            value = _SURROGATES.sub("\ufffd", text)
        if frame.is_map:
            pos = PosNode(line, col, frame.key_line, frame.key_col)
        else:
            pos = PosNode(line, col, line, col)
        if event.anchor:
            self.anchors[event.anchor] = _Anchor(value, pos, 1, 0, text)
        add(frame, value, pos, 1, 0)

    def _open(
        self, frame: Frame, event: CollectionStartEvent, is_map: bool, stack: list[Frame]
    ) -> None:
        line, col = self._mark(event)
        if len(stack) > MAX_DEPTH + 1:
            self._too_deep(line, col, stack)
        tag = event.tag
        if tag is not None and tag not in (NON_SPECIFIC, MAP_TAG if is_map else SEQ_TAG):
            message = f"unsupported YAML tag '{short_tag(tag)}'"
            self.problems.append((line, col, self._field(stack), message))
        key = frame.key
        if isinstance(key, str):  # a mapping's entry (no key is pending in a sequence)
            pos = PosNode(line, col, frame.key_line, frame.key_col)
            name: str | int = key
        else:
            pos = PosNode(line, col, line, col)
            name = len(frame.data)
        anchor = event.anchor
        if anchor:
            # Until this node is complete its anchor is undefined: an alias inside is an error.
            self.anchors.pop(anchor, None)
        stack.append(Frame({} if is_map else [], pos, name, anchor))

    def _close(self, stack: list[Frame]) -> None:
        frame = stack.pop()
        if frame.merges:
            self._merge(frame, stack)
        if frame.anchor:
            self.anchors[frame.anchor] = _Anchor(
                frame.data, frame.pos, frame.size, frame.height, None
            )
        add(stack[-1], frame.data, frame.pos, frame.size, frame.height)

    def _alias(self, frame: Frame, event: AliasEvent, stack: list[Frame], as_key: bool) -> None:
        line, col = self._mark(event)
        name = event.anchor or ""
        anchor = self.anchors.get(name)
        if anchor is None:
            raise YamlAbort((line, col, "", f"invalid YAML: found undefined alias '{name}'"))
        if as_key:
            self._alias_key(frame, anchor, line, col, stack)
            return
        if len(stack) - 1 + anchor.height > MAX_DEPTH:
            self._too_deep(line, col, stack)
        self.expanded += anchor.size
        if self.expanded > MAX_ALIAS_NODES:
            message = "aliases expand to too many values"
            self.problems.append((line, col, self._field(stack), message))
            raise YamlAbort()
        if frame.is_map:
            key_line, key_col = frame.key_line, frame.key_col
        else:
            key_line, key_col = line, col
        value, pos = copy_tree(anchor.value, anchor.pos, PosNode(line, col, key_line, key_col))
        add(frame, value, pos, anchor.size, anchor.height)

    # --- mapping keys -----------------------------------------------------------------------

    def _key(self, frame: Frame, event: ScalarEvent, stack: list[Frame]) -> None:
        line, col = self._mark(event)
        key = event.value
        if self.back is not None:
            key = key.translate(self.back)
        tag = event.tag
        if tag is not None and tag not in (NON_SPECIFIC, STR_TAG):
            message = f"unsupported YAML tag '{short_tag(tag)}'"
            self.problems.append((line, col, format_field(self._path(stack)), message))
        plain = not event.style and tag is None
        if event.anchor:
            value: Scalar = key
            if plain:
                with contextlib.suppress(ScalarProblem):
                    value = resolve(key)
            self.anchors[event.anchor] = _Anchor(value, PosNode(line, col, line, col), 1, 0, key)
        self._take_key(frame, key, line, col, stack, merge=plain)

    def _alias_key(
        self, frame: Frame, anchor: _Anchor, line: int, col: int, stack: list[Frame]
    ) -> None:
        if anchor.key is None:
            self._bad_key(frame, line, col, stack)
            return
        self._take_key(frame, anchor.key, line, col, stack, merge=False)

    def _take_key(
        self, frame: Frame, key: str, line: int, col: int, stack: list[Frame], merge: bool
    ) -> None:
        frame.key_line, frame.key_col = line, col
        frame.merge = merge and key == _MERGE
        if not frame.merge and key in frame.data:
            first = frame.pos.children[key].key_line
            field = format_field((*self._path(stack), key))
            message = f"duplicate key '{key}' (first given at line {first})"
            self.problems.append((line, col, field, message))
            frame.key = SKIP
            return
        frame.key = key

    def _collection_key(
        self, frame: Frame, event: Event, get: EventSource, stack: list[Frame]
    ) -> None:
        line, col = self._mark(event)
        self._skip(get, stack)
        self._bad_key(frame, line, col, stack)

    def _bad_key(self, frame: Frame, line: int, col: int, stack: list[Frame]) -> None:
        message = "a mapping key must be a plain string"
        self.problems.append((line, col, format_field(self._path(stack)), message))
        frame.key = SKIP

    # --- merge keys -------------------------------------------------------------------------

    def _merge(self, frame: Frame, stack: list[Frame]) -> None:
        """Copy merged entries the mapping does not give itself; earlier merges win."""
        data = frame.data
        if type(data) is not dict:  # only a mapping has merge keys
            return
        children = frame.pos.children
        for value, where in frame.merges:
            sources: list[tuple[JsonValue, PosNode]] = [(value, where)]
            if type(value) is list:
                sources = [(item, where.children.get(i, where)) for i, item in enumerate(value)]
            for source, pos in sources:
                if type(source) is not dict:
                    path = (*self._path(stack), frame.name) if len(stack) > 1 else ()
                    field = format_field(path)
                    message = "'<<' must merge a mapping"
                    self.problems.append((pos.line, pos.col, field, message))
                    continue
                for key, item in source.items():
                    if key not in data:
                        data[key] = item
                        children[key] = pos.children.get(key, pos)

    # --- helpers ----------------------------------------------------------------------------

    def _mark(self, event: Event) -> tuple[int, int]:
        mark = event.start_mark
        if mark is None:  # the parsers mark every event; the stubs allow one without
            return self.first_line, 1
        return mark.line + self.first_line, mark.column + 1

    def _path(self, stack: list[Frame]) -> DataPath:
        """The data path of the innermost collection being built (``stack[1]`` is the root)."""
        return tuple(frame.name for frame in stack[2:])

    def _field(self, stack: list[Frame]) -> str:
        """The field of the value about to be added to the innermost collection."""
        frame = stack[-1]
        if len(stack) == 1:
            return ""
        name = frame.key if frame.is_map else len(frame.data)
        if not isinstance(name, str | int):
            return format_field(self._path(stack))
        return format_field((*self._path(stack), name))

    def _skip(self, get: EventSource, stack: list[Frame]) -> None:
        """Consume the rest of a collection whose start event was just read, within the
        depth limit like any other (libyaml slows down quadratically with depth)."""
        open_ = 1
        while open_:
            event = get()
            if isinstance(event, CollectionStartEvent):
                open_ += 1
                if len(stack) + open_ > MAX_DEPTH + 1:
                    self._too_deep(*self._mark(event), stack)
            elif isinstance(event, CollectionEndEvent):
                open_ -= 1

    def _too_deep(self, line: int, col: int, stack: list[Frame]) -> None:
        # The first levels say where it starts; all 200 of them would bury the message.
        field = format_field(self._path(stack)[:_SHOWN_LEVELS]) + "..."
        self.problems.append((line, col, field, TOO_DEEP))
        raise YamlAbort()


def _check_surrogates(text: str) -> None:
    found = _SURROGATES.search(text)
    if found:
        raise ScalarProblem(f"invalid \\u escape: lone surrogate U+{ord(found.group()):04X}")
