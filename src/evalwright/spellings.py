"""What redaction looks for, and where (docs/targets.md#credentials-and-redaction).

A secret is looked for as its *words*: the secret, case-folded (its upper- and lower-case
forms too, where a letter changes length); its UTF-8 bytes in hex; and the base64 characters
it fixes. They are looked for in two readings of a text, both case-folded: the text as it is,
and the text with every escape undone (:func:`unescape`): backslash escapes at any depth of
nesting (JSON in JSON, ``repr`` of JSON, Markdown's ``\\_``), ``\\uXXXX``, ``\\xXX`` and
``\\UXXXXXXXX`` code points, percent-encoding and HTML character references. So a secret is
caught however many times it was escaped, in any case, and whichever of its characters an
encoder chose to escape.
"""

from __future__ import annotations

import base64
import bisect
import heapq
import io
import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass

# Shorter base64 runs are too common to replace (a secret fixes at least this many).
MIN_BASE64 = 6
DEPTH = 4
"""How many times over escapes of different kinds are undone (:func:`unescape`)."""
_SHORT_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_HEX = "[0-9a-fA-F]"
# Each branch starts with its own character, so the search skips plain text fast. Letters are
# either case, an escaped text may have been upper-cased whole; so "\u" takes eight digits when
# they name a code point past U+FFFF (only U+0000 to U+0010 then read otherwise).
_ESCAPE = re.compile(
    rf"\\\\*(?:[xX](?P<bytes>{_HEX}{{2}}(?:\\+[xX]{_HEX}{{2}})*)"
    rf"|[uU](?P<wide>000{_HEX}{{5}}|0010{_HEX}{{4}})"
    rf"|[uU](?P<high>[dD][89abAB]{_HEX}{{2}})\\+[uU](?P<low>[dD][c-fC-F]{_HEX}{{2}})"
    rf"|[uU](?P<u>{_HEX}{{4}})|(?P<char>.)|\Z)"
    rf"|%(?P<percent>{_HEX}{{2}}(?:%{_HEX}{{2}})*)"
    rf"|&(?:#(?P<dec>[0-9]{{1,7}})|#[xX](?P<hex>{_HEX}{{1,6}})"
    rf"|(?P<name>(?i:amp|lt|gt|quot|apos)));",
    re.DOTALL,
)


# The characters whose upper-case form lowers to another character than they do (U+0131,
# dotless i: "I": "i"; tests/test_spellings.py checks this list against Unicode), and
# the two that str.lower() does not lower to one character alone: U+0130 (to two) and capital
# sigma (to the final form at the end of a word).
_FOLD = str.maketrans(
    "\u00b5\u0131\u017f\u0345\u03c2\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f5\u1c80\u1c81"
    "\u1c82\u1c83\u1c84\u1c85\u1c86\u1c87\u1c88\u1e9b\u1fbe\u0130\u03a3",
    "\u03bc\u0069\u0073\u03b9\u03c3\u03b2\u03b8\u03c6\u03c0\u03ba\u03c1\u03b5\u0432\u0434"
    "\u043e\u0441\u0442\u0442\u044a\u0463\ua64b\u1e61\u03b9\u0069\u03c3",
)


# One escaped byte of a run of them.
_BYTE = re.compile(rf"(?:\\+[xX]|%)({_HEX}{{2}})")
# One backslash escape as JSON and ``repr`` read it, left to right (:func:`widened`); a
# backslash before any other character stands for itself.
_PAIR = re.compile(rf"\\(?:u{_HEX}{{4}}|U{_HEX}{{8}}|x{_HEX}{{2}}|[\\\"'/bfnrt])")


def fold(text: str) -> str:
    """``text`` case-folded, one character for each of its characters."""
    return (text if text.isascii() else text.translate(_FOLD)).lower()


def words(secret: str) -> set[str]:
    """The folded forms of ``secret`` that are replaced wherever they occur."""
    found: set[str] = set()
    cases = _cases(secret)
    for form in cases | {case.replace(" ", "+") for case in cases}:  # a query string's space
        # A secret holding a backslash or a "%41" is read like the text it is looked for in.
        unescaped = unescape(form)
        found |= {fold(form), fold(form if unescaped is None else unescaped.text)}
    data = secret.encode("utf-8", "surrogatepass")
    found.add(data.hex())
    found |= {fold(core) for core in _base64_cores(data) if len(core) >= MIN_BASE64}
    return found


def _cases(secret: str) -> set[str]:
    """``secret`` upper-cased, lower-cased and case-swapped, again and again. Folding matches
    any mix of cases, but for letters that change length with their case (U+00DF: "SS",
    U+0130: "i" and a combining dot), which match in these whole-text forms."""
    found = {secret}
    for _ in range(3):
        found |= {change(form) for form in found for change in (str.upper, str.lower, str.swapcase)}
    return found


def _base64_cores(data: bytes) -> set[str]:
    """The base64 characters fixed by ``data`` alone, at each of the three byte offsets it
    can have inside longer data (``Bearer KEY``, ``user:KEY``), in both alphabets."""
    cores: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode("ascii")
        start = -(-offset * 8 // 6)  # the first character whose 6 bits are all the secret's
        end = (offset + len(data)) * 8 // 6
        core = encoded[start:end]
        cores.update((core, core.replace("+", "-").replace("/", "_")))
    return cores


def _utf8_size(lead: int) -> int:
    """How many bytes the UTF-8 character that starts with byte ``lead`` takes."""
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def _byte_escapes(match: re.Match[str]) -> Iterator[tuple[int, int, str]]:
    """A run of escaped bytes (``%E2%82%AC``, ``\\xe2\\x82\\xac``), one character at a time:
    UTF-8 where it is, else one byte a character; so that a redaction takes whole the
    escapes of the characters it covers, and no more."""
    found = [
        (match.start() + one.start(), match.start() + one.end(), int(one[1], 16))
        for one in _BYTE.finditer(match[0])
    ]
    at = 0
    while at < len(found):
        chunk = found[at : at + _utf8_size(found[at][2])]
        try:
            char = bytes(value for *_, value in chunk).decode("utf-8")
        except UnicodeDecodeError:
            chunk, char = chunk[:1], chr(chunk[0][2])
        yield chunk[0][0], chunk[-1][1], char
        at += len(chunk)


def _code_point(value: int) -> str:
    return chr(value) if value <= 0x10FFFF else ""


def _decoded(match: re.Match[str]) -> str:
    """What one escape stands for."""
    kind = match.lastgroup
    if kind is None:  # backslashes ending the text
        return ""
    value = match[kind]
    if kind == "char":
        return _SHORT_ESCAPES.get(value, value)
    if kind == "low":
        high, low = int(match["high"], 16), int(value, 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    if kind == "name":
        return _ENTITIES[value.lower()]
    return _code_point(int(value, 10 if kind == "dec" else 16))


@dataclass(frozen=True, slots=True)
class Unescaped:
    """A text with its escapes undone, and where each of its characters came from.

    The places are arrays of machine integers, not lists: a 5 MB row of JSON-escaped text
    has hundreds of thousands of escapes, and a list of them cost over a hundred megabytes.
    """

    text: str
    starts: array[int]
    """Where each escape's decoding starts in :attr:`text`, in order."""
    widths: array[int]
    """How many characters of :attr:`text` each escape gave."""
    raw_starts: array[int]
    """Where each escape starts in the text undone."""
    raw_ends: array[int]
    """Where each escape ends in the text undone."""
    inner: Unescaped | None = None
    """The reading whose escapes these were undone from (None: the original text's)."""

    def _source(self, index: int) -> tuple[int, int]:
        """The span, in the text undone, of the character at ``index`` of :attr:`text`."""
        at = bisect.bisect_right(self.starts, index) - 1
        if at < 0:
            return index, index + 1
        start, raw_start, raw_end = self.starts[at], self.raw_starts[at], self.raw_ends[at]
        if index < start + self.widths[at]:
            return raw_start, raw_end
        raw = raw_end + index - start - self.widths[at]
        return raw, raw + 1

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The span of ``text[start:end]`` in the original text (escapes taken whole)."""
        span = self._source(start)[0], self._source(end - 1)[1]
        return span if self.inner is None else self.inner.original(*span)

    def near_escapes(self, reach: int) -> list[tuple[int, int]]:
        """The stretches of :attr:`text` within ``reach`` characters of an escape's decoding:
        the only places a word of that length can read differently than in the original."""
        if self.inner is not None:  # escapes of escapes: rare, so read it all
            return [(0, len(self.text))]
        stretches: list[tuple[int, int]] = []
        for start, width in zip(self.starts, self.widths, strict=True):
            low, high = max(0, start - reach), min(len(self.text), start + width + reach)
            if stretches and low <= stretches[-1][1]:
                stretches[-1] = (stretches[-1][0], high)
            else:
                stretches.append((low, high))
        return stretches


def widened(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` of ``text`` widened to take whole each backslash escape they cut through
    (paired left to right, as JSON and ``repr`` read them), so that replacing them leaves a
    JSON line well formed: a secret ending in a backslash must not take half of ``\\``."""
    if not spans or "\\" not in text:
        return spans
    pairs = [match.span() for match in _PAIR.finditer(text)]
    starts = [start for start, _ in pairs]

    def widen(at: int, end: bool) -> int:
        found = bisect.bisect_right(starts, at) - 1
        if found >= 0 and pairs[found][0] < at < pairs[found][1]:
            return pairs[found][1] if end else pairs[found][0]
        return at

    return [(widen(start, False), widen(stop, True)) for start, stop in spans]


def _escapes(text: str) -> Iterator[re.Match[str]]:
    """The escapes of ``text`` in order. ``str.find`` skips plain text many times faster
    than a pattern's search (a 3 KB row: 0.2 against 20 us), and most text has few escapes."""
    done = 0
    for at in heapq.merge(*(_found(text, char) for char in "\\%&")):
        if at >= done and (match := _ESCAPE.match(text, at)):
            done = match.end()
            yield match


def _found(text: str, char: str) -> Iterator[int]:
    at = text.find(char)
    while at >= 0:
        yield at
        at = text.find(char, at + 1)


def _decodings(text: str) -> Iterator[tuple[int, int, str]]:
    """Each escape of ``text``: where it is and what it stands for."""
    for match in _escapes(text):
        if match.lastgroup in ("bytes", "percent"):
            yield from _byte_escapes(match)
        else:
            yield match.start(), match.end(), _decoded(match)


def _unescape_once(text: str, inner: Unescaped | None) -> Unescaped | None:
    pieces = io.StringIO()
    starts, widths, raw_starts, raw_ends = array("q"), array("q"), array("q"), array("q")
    done = length = 0
    for start, end, decoded in _decodings(text):
        length += pieces.write(text[done:start])
        starts.append(length)
        widths.append(len(decoded))
        raw_starts.append(start)
        raw_ends.append(end)
        length += pieces.write(decoded)
        done = end
    if not raw_starts:
        return None
    pieces.write(text[done:])
    return Unescaped(pieces.getvalue(), starts, widths, raw_starts, raw_ends, inner)


def unescape(text: str) -> Unescaped | None:
    """``text`` with its escapes undone, and undone again while what that gives has escapes
    (a percent-encoded JSON escape, an HTML-escaped one), up to :data:`DEPTH` times; None when
    ``text`` has none. A run of backslashes is one escape, so JSON in JSON takes one pass."""
    reading = _unescape_once(text, None)
    for _ in range(DEPTH - 1):
        deeper = None if reading is None else _unescape_once(reading.text, reading)
        if deeper is None:
            break
        reading = deeper
    return reading
