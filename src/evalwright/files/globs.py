"""The guideline pattern dialect (docs/eval-files.md#guideline-patterns).

Case-sensitive; ``*`` and ``?`` never match ``/``; ``**`` as a whole segment matches zero or
more segments, dot-directories included; ``[...]`` (``[!...]`` negates) and ``{a,b}``; the
whole path must match.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable


def expand_braces(pattern: str) -> list[str]:
    """Expand ``{a,b}`` alternatives (nested ones too) into plain patterns."""
    start = _find_brace(pattern)
    if start < 0:
        return [pattern]
    depth, end = 0, -1
    commas: list[int] = []
    for index in range(start, len(pattern)):
        char = pattern[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                end = index
                break
        elif char == "," and depth == 1:
            commas.append(index)
    if end < 0 or not commas:
        head = pattern[: start + 1]
        return [head + rest for rest in expand_braces(pattern[start + 1 :])]
    bounds = [start, *commas, end]
    options = [pattern[a + 1 : b] for a, b in itertools.pairwise(bounds)]
    tail = pattern[end + 1 :]
    return [
        head + rest
        for option in options
        for head in expand_braces(pattern[:start] + option)
        for rest in expand_braces(tail)
    ]


def _find_brace(pattern: str) -> int:
    in_class = False
    for index, char in enumerate(pattern):
        if char == "[" and not in_class:
            in_class = pattern.find("]", index + 2) >= 0
        elif char == "]" and in_class:
            in_class = False
        elif char == "{" and not in_class:
            return index
    return -1


def _segment(segment: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            while index + 1 < len(segment) and segment[index + 1] == "*":
                index += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            index = _bracket(segment, index, out)
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _bracket(segment: str, index: int, out: list[str]) -> int:
    """Translate ``[...]`` at ``index``; a ``]`` first in the set is literal. Returns its end."""
    start = index + 1
    negate = start < len(segment) and segment[start] in "!^"
    if negate:
        start += 1
    end = segment.find("]", start + 1)
    if end < 0:
        out.append(re.escape("["))
        return index
    body = "".join("\\" + c if c in "\\^[]" else c for c in segment[start:end])
    out.append("(?!/)[" + ("^" if negate else "") + body + "]")
    return end


def translate(pattern: str) -> str:
    """A regular expression (without anchors) for one brace-free pattern."""
    parts: list[str] = []
    segments = pattern.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment != "**":
            parts.append(_segment(segment) + ("" if last else "/"))
        elif not last:
            parts.append("(?:[^/]+/)*")
        elif parts:  # "a/**": everything below a, and a itself
            parts[-1] = parts[-1].removesuffix("/")
            parts.append("(?:/[^/]+)*")
        else:
            parts.append("[^/]+(?:/[^/]+)*")
    return "".join(parts)


class GlobSet:
    """A compiled set of patterns; :meth:`match` tests a root-relative ``/``-separated path."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        alternatives = [translate(p) for pattern in self.patterns for p in expand_braces(pattern)]
        self._regex = (
            re.compile("|".join(f"(?:{a})" for a in alternatives)) if alternatives else None
        )

    def match(self, path: str) -> bool:
        """Whether the whole ``path`` matches one of the patterns."""
        return bool(self._regex and self._regex.fullmatch(path))
