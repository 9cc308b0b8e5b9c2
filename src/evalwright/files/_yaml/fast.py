"""The fast path for a YAML file with nothing to report: plain data, positions composed later.

Most eval files use no tags, anchors, aliases or merge keys and hold no mistake. For those,
this builder turns libyaml's events into data in one tight loop and keeps the positions of the
top two levels only (the file's keys and each case); any other position is composed by
reading the file again with the full builder (:mod:`.events`), the first time a
diagnostic asks for one. Anything the full builder treats specially or would report makes
this one give up (:class:`Fallback`), and the full builder then reads the file from the start,
so the data and every diagnostic are the full builder's (docs/eval-files.md).
"""

from __future__ import annotations

from yaml.events import (
    CollectionEndEvent,
    CollectionStartEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    Event,
    MappingStartEvent,
    ScalarEvent,
    StreamEndEvent,
)

from evalwright.files._yaml.events import MAX_DEPTH, EventSource
from evalwright.files._yaml.positions import DataPath, PosNode
from evalwright.files._yaml.scalars import MAY_RESOLVE_FIRST, MAY_RESOLVE_WORDS, resolve
from evalwright.jsontext import JsonValue

SHALLOW_DEPTH = 2
"""Values this many levels down (a case of ``evalcases``) or fewer keep their position."""
_MERGE = "<<"
_Mark = tuple[int, int]  # 1-based line and column


class Fallback(Exception):
    """The document needs the full builder: something to report or to treat specially."""


class _Level:
    """A collection being built: its data and the pending key of a mapping."""

    __slots__ = ("data", "is_map", "key", "key_mark", "name")

    def __init__(self, data: dict[str, JsonValue] | list[JsonValue], name: str | int) -> None:
        self.data = data
        self.is_map = type(data) is dict
        self.name = name
        self.key: str | None = None
        self.key_mark: object = None


def fast_document(get: EventSource, first_line: int) -> tuple[JsonValue, dict[DataPath, PosNode]]:
    """The stream's only document, and the positions of its values ``SHALLOW_DEPTH`` levels
    down or fewer; :class:`Fallback` when the full builder must read it."""
    event = get()
    while type(event) is not DocumentStartEvent:
        if type(event) is StreamEndEvent:
            return None, {}
        event = get()
    builder = _FastBuilder(first_line)
    builder.events(get)
    if type(get()) is DocumentStartEvent:
        raise Fallback  # a second document: the full builder reports it
    root = builder.holder
    return (root[0] if root else None), builder.shallow


class _FastBuilder:
    def __init__(self, first_line: int) -> None:
        self.first_line = first_line
        self.holder: list[JsonValue] = []  # the document's one value, once complete
        self.root = _Level(self.holder, 0)
        self.shallow: dict[DataPath, PosNode] = {}

    def events(self, get: EventSource) -> None:
        """Consume the document's events up to its end."""
        # One pass per event, the level being built held in locals: this loop is most of the
        # load time of a large suite. Scalars and ends, the most common events, stay inline.
        stack = [self.root]
        level = self.root
        data = level.data
        shallow = SHALLOW_DEPTH + 1  # the holder and the collections above a shallow value
        first, words = MAY_RESOLVE_FIRST, MAY_RESOLVE_WORDS
        # Keys and many values repeat in every case ("role", "user", a system prompt): each
        # is kept once, which makes a large file's data about a third smaller.
        strings: dict[str, str] = {}
        while True:
            event = get()
            if type(event) is ScalarEvent:
                if event.tag is not None or event.anchor is not None:
                    raise Fallback
                if level.is_map and level.key is None:
                    self._key(level, event, strings)
                    continue
                text = strings.setdefault(event.value, event.value)
                value: JsonValue = text
                # :func:`may_resolve` inline: most scalars are quoted or plain words.
                if not event.style and (not text or text[0] in first or text in words):
                    value = resolve(text)
                if len(stack) <= shallow:
                    self._locate(stack, level, event)
            elif isinstance(event, CollectionEndEvent):
                value = data
                stack.pop()
                level = stack[-1]
                data = level.data
            elif type(event) is DocumentEndEvent:
                return
            else:
                level = self._open(event, stack)
                data = level.data
                continue
            if isinstance(data, dict):
                key = level.key
                if key is not None:  # always: a value follows its key
                    data[key] = value
                    level.key = None
            else:
                data.append(value)

    @staticmethod
    def _key(level: _Level, event: ScalarEvent, strings: dict[str, str]) -> None:
        key = strings.setdefault(event.value, event.value)
        if key in level.data or key == _MERGE:
            raise Fallback
        level.key = key
        level.key_mark = event.start_mark

    def _open(self, event: Event | None, stack: list[_Level]) -> _Level:
        """Start a collection; anything else (an alias) is for the full builder."""
        if not isinstance(event, CollectionStartEvent):
            raise Fallback
        level = stack[-1]
        if event.tag is not None or event.anchor is not None:
            raise Fallback
        if len(stack) >= MAX_DEPTH or (level.is_map and level.key is None):
            raise Fallback
        if len(stack) <= SHALLOW_DEPTH + 1:
            self._locate(stack, level, event)
        name = level.key if level.key is not None else len(level.data)
        opened = _Level({} if type(event) is MappingStartEvent else [], name)
        stack.append(opened)
        return opened

    def _locate(self, stack: list[_Level], level: _Level, event: object) -> None:
        """Keep where a shallow value (and its key) starts, as the full builder gives it."""
        line, col = self._mark(event)
        key_line, key_col = line, col
        name: str | int = len(level.data)
        if level.is_map and level.key is not None:
            name = level.key
            key_line, key_col = self._at(level.key_mark)
        path = (*(frame.name for frame in stack[2:]), name) if len(stack) > 1 else ()
        self.shallow[path] = PosNode(line, col, key_line, key_col)

    def _mark(self, event: object) -> _Mark:
        return self._at(getattr(event, "start_mark", None))

    def _at(self, mark: object) -> _Mark:
        line = getattr(mark, "line", None)
        column = getattr(mark, "column", None)
        if not isinstance(line, int) or not isinstance(column, int):
            raise Fallback  # the parsers mark every event; the stubs allow one without
        return line + self.first_line, column + 1
