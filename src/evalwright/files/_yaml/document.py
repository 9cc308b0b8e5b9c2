"""Parse YAML 1.2 text with libyaml into plain data plus a tree of source positions.

libyaml (through PyYAML's event parser) does the scanning; :mod:`.events` builds the data
under the YAML 1.2 core schema. Two YAML 1.1 habits of libyaml are undone here: NEL, LS and PS
(U+0085, U+2028, U+2029) are ordinary characters in YAML 1.2, not line breaks, so they are
swapped for unused characters while parsing; and every error becomes one located diagnostic.
See docs/eval-files.md.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from evalwright.files._yaml.collector import without_collector
from evalwright.files._yaml.events import (
    TOO_DEEP,
    EventBuilder,
    EventSource,
    Problem,
    YamlAbort,
)
from evalwright.files._yaml.fast import Fallback, fast_document
from evalwright.files._yaml.positions import DataPath, Positions, PosNode
from evalwright.files._yaml.ryml import ryml_document
from evalwright.files.diagnostics import Report
from evalwright.jsontext import JsonValue

if TYPE_CHECKING:
    from yaml import MarkedYAMLError
    from yaml.reader import ReaderError

_UNNAMED_CHAR = "found character that"  # libyaml: "found character that cannot start any token"
_TAB_INDENT = "found a tab character where an indentation space is expected"
# libyaml 0.2.5 as bundled since PyYAML 6.0.3 stops at 1,000 levels with a message of its own,
# sometimes before our own limit is reached (its scanner reads flow collections ahead).
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"
_TAB_HINT = " (when a block scalar's first line starts with a tab, give its indentation: '|2')"
_BREAKS_1_1 = ("\x85", "\u2028", "\u2029")
_ESCAPED = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))")
_PRIVATE_USE = (range(0xE000, 0xF900), range(0xF0000, 0xFFFFE))
RAPID_FROM = 100_000
"""The size (in characters) from which rapidyaml's speed repays its import (about 20 ms)."""


def parse_yaml(
    text: str, report: Report, first_line: int = 1
) -> tuple[JsonValue, PosNode | None] | None:
    """Parse one YAML document; ``None`` (with errors in ``report``) when it is not valid.

    ``first_line`` is the file line the text starts on (positions are shifted by it).
    """
    import yaml

    swapped, back = _swap_breaks(text)
    builder = EventBuilder(first_line, back, check_escapes=not yaml.__with_libyaml__)
    problems = builder.problems
    result: tuple[JsonValue, PosNode | None] | None = None
    # Problems found while building are reported with the data; any other failure ends it.
    try:
        # Only the event parser of either loader is used; data and schema are built here.
        if yaml.__with_libyaml__:
            get: EventSource = yaml.CSafeLoader(swapped).get_event
        else:
            get = yaml.parse(swapped, Loader=yaml.SafeLoader).__next__
        result = without_collector(lambda: builder.document(get))
    except YamlAbort as exc:
        if exc.problem is not None:
            # Like a syntax error, this ends the document: it is the one thing to report.
            problems[:] = [exc.problem]
    except yaml.MarkedYAMLError as exc:
        problems[:] = [_marked(exc, swapped, first_line)]
    except yaml.reader.ReaderError as exc:
        problems[:] = [_unreadable(swapped, exc, yaml.__with_libyaml__, first_line)]
    except yaml.YAMLError as exc:
        problems[:] = [(first_line, 1, "", f"invalid YAML: {exc}")]
    except UnicodeEncodeError as exc:  # a lone surrogate in the text itself
        where = _position(swapped, exc.start, first_line)
        problems[:] = [(*where, "", _char(swapped[exc.start]))]
    for line, col, field, message in problems:
        report.error(line, col, field, message if back is None else message.translate(back))
    return result


def parse_yaml_lazy(
    text: str, report: Report, first_line: int = 1, *, rapid_from: int | None = RAPID_FROM
) -> tuple[JsonValue, Positions] | None:
    """:func:`parse_yaml` for a large file: most positions are composed only when a diagnostic
    needs one (the data, and every diagnostic, are the same).

    A text of ``rapid_from`` characters or more is first offered to rapidyaml
    (:mod:`.ryml`; ``None``: never), then to libyaml's fast path (:mod:`.fast`)."""
    import yaml

    clean = not any(char in text for char in _BREAKS_1_1)
    if clean and rapid_from is not None and len(text) >= rapid_from:
        try:
            data = without_collector(lambda: ryml_document(text))
        except Fallback:
            pass
        else:
            return data, ComposedPositions(text, first_line, {})
    if yaml.__with_libyaml__ and clean:
        try:
            get = yaml.CSafeLoader(text).get_event
            data, shallow = without_collector(lambda: fast_document(get, first_line))
        except (Fallback, ValueError, yaml.YAMLError):
            pass  # the full builder reads it again and reports what there is to report
        else:
            return data, ComposedPositions(text, first_line, shallow)
    parsed = parse_yaml(text, report, first_line)
    return None if parsed is None else (parsed[0], Positions(parsed[1]))


def _marked(exc: MarkedYAMLError, text: str, first_line: int) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + first_line, mark.column + 1) if mark else (first_line, 1)
    problem = " ".join(str(p) for p in (exc.context, exc.problem) if p)
    if _LIBYAML_TOO_DEEP in problem:
        return line, col, "", TOO_DEEP
    if mark is not None and _UNNAMED_CHAR in problem and 0 <= mark.index < len(text):
        # libyaml does not say which character; a tab is the usual surprise.
        problem = problem.replace(_UNNAMED_CHAR, f"found character {text[mark.index]!r} that")
    start = exc.context_mark
    if problem and start is not None and mark is not None and start.line != mark.line:
        problem += f" (started at line {start.line + first_line}, column {start.column + 1})"
    if _TAB_INDENT in problem:
        # YAML 1.2 allows it; libyaml does not when it has to detect the indentation itself.
        problem += _TAB_HINT
    return line, col, "", f"invalid YAML: {problem or exc}"


def _unreadable(text: str, exc: ReaderError, libyaml: bool, first_line: int) -> Problem:
    """A character YAML does not allow, located by the offset the reader gives."""
    offset = int(exc.position)
    if libyaml:  # libyaml counts bytes of the UTF-8 text
        offset = len(text.encode("utf-8", "surrogatepass")[:offset].decode("utf-8", "ignore"))
    code = int(exc.character) if isinstance(exc.character, int) else ord(str(exc.character))
    return (*_position(text, offset, first_line), "", _char(chr(code)))


def _char(char: str) -> str:
    code = f"U+{ord(char):04X}"
    if "\ud800" <= char <= "\udfff":
        return f"invalid YAML: lone surrogate {code}"
    return f"invalid YAML: {'control ' if ord(char) < 0xA0 else ''}character {code} is not allowed"


def _position(text: str, offset: int, first_line: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + first_line, offset - line_start + 1


def _swap_breaks(text: str) -> tuple[str, dict[int, int] | None]:
    """The text with NEL, LS and PS replaced by unused characters, and the table to undo it."""
    present = [c for c in _BREAKS_1_1 if c in text]
    if not present:
        return text, None
    # Neither in the text nor producible by an escape, so every placeholder found is a swap.
    escaped = {int(next(g for g in m.groups() if g), 16) for m in _ESCAPED.finditer(text)}
    free = (c for c in itertools.chain(*_PRIVATE_USE) if c not in escaped and chr(c) not in text)
    forward: dict[int, int] = {}
    for char in present:
        forward[ord(char)] = next(free)
    back = {placeholder: original for original, placeholder in forward.items()}
    return text.translate(forward), back


class ComposedPositions(Positions):
    """A YAML file's positions: the shallow ones kept while parsing, the rest composed by
    reading the file again with the full builder, once, when first asked for."""

    def __init__(self, text: str, first_line: int, shallow: dict[DataPath, PosNode]) -> None:
        super().__init__(None)
        self._text: str | None = text
        self._first_line = first_line
        self._shallow = shallow

    def _walk(self, path: DataPath) -> tuple[PosNode | None, bool]:
        node = self._shallow.get(path)
        if node is not None:
            return node, True
        if self._text is not None:
            parsed = parse_yaml(self._text, Report("<positions>"), self._first_line)
            self._root = parsed[1] if parsed is not None else None
            self._text = None
        return super()._walk(path)
