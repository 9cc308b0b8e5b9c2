"""Credentials never reach a file: every secret is replaced by ``[REDACTED]``.

Secrets are the values (8 characters or more) of environment variables whose names end in
KEY, TOKEN, SECRET, PASSWORD or CREDENTIALS, the project's ``.env`` included (even where the
process sets the same name to another value), and every target's ``api_key``. Redaction runs
on each serialized line, so a secret is caught however it got into a row: an API echoing it
in an error, a script printing it, a tool result. It is caught in every spelling text gives
it on its way (:mod:`evalwright.spellings`): escaped at any depth, in any case, in hex
and in base64.

Text is redacted whole before it is cut (:func:`clip`): a secret straddling the cut leaves no
piece behind (docs/targets.md#credentials-and-redaction).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from evalwright.secrets import MIN_API_KEY, MIN_ENV_SECRET, is_secret_name
from evalwright.spellings import fold, unescape, widened, words

REDACTED = "[REDACTED]"
# Up to this many words, looking for each with ``in`` before running the pattern is cheaper
# than the pattern alone (measured on a 3 KB row: 0.75 us a word, the pattern 21-34 us);
# beyond it the pattern's single pass wins.
_SCAN_LIMIT = 24
# Where a text was cut inside an escape (``\\u00e9``), this many characters of it may come
# before the rest of a secret.
_CUT_ESCAPE = 16
# Past a cut escape, a secret's end this long or longer is dropped (shorter is no secret).
_CUT_PIECE = 4
# Around the cut, this much more of a long text is redacted than is kept: more than any
# spelling of a secret takes.
_CUT_MARGIN = 64 * 1024


def secret_names(env: Mapping[str, str]) -> list[str]:
    """The names of the variables whose values are secrets."""
    return [name for name in env if is_secret_name(name)]


@dataclass(slots=True)
class _Node:
    children: dict[str, _Node] = field(default_factory=dict[str, "_Node"])
    end: bool = False  # a word ends here


def _trie_pattern(found: Iterable[str]) -> str:
    """One regular expression matching any of ``found``, longest first, shaped as a trie so
    each position of a long line is tried against one branch per first character."""
    root = _Node()
    for word in found:
        node = root
        for char in word:
            node = node.children.setdefault(char, _Node())
        node.end = True
    return _render(root)


def _render(node: _Node) -> str:
    parts: list[str] = []
    for char, first in sorted(node.children.items()):
        run, child = char, first
        while len(child.children) == 1 and not child.end:  # a chain is one literal
            ((next_char, child),) = child.children.items()
            run += next_char
        parts.append(re.escape(run) + _render(child))
    if not parts:
        return ""
    if len(parts) == 1 and not node.end:
        return parts[0]
    # Where a word ends and longer ones go on, the optional group prefers the longer.
    return "(?:" + "|".join(parts) + ")" + ("?" if node.end else "")


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@runtime_checkable
class Layered(Protocol):
    """An environment read from two places, the process's and the project's ``.env``
    (files/variables.py): the secrets of both are redacted, one the other shadows too."""

    @property
    def process(self) -> Mapping[str, str]:
        """The process environment alone."""
        ...

    @property
    def dotenv(self) -> Mapping[str, str]:
        """The values of ``.env``."""
        ...


class Redactor:
    """Replaces known secrets in text, in every spelling of :mod:`~.spellings`."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._words: tuple[str, ...] = ()
        self.add(*secrets)

    @classmethod
    def from_environment(cls, env: Mapping[str, str], api_keys: Iterable[str] = ()) -> Redactor:
        """A redactor for the secrets of ``env`` (with a :class:`Layered` one, of the
        process environment and of ``.env`` alike) and the given API keys."""
        layers = [env.process, env.dotenv] if isinstance(env, Layered) else [env]
        found = [
            layer[name]
            for layer in layers
            for name in secret_names(layer)
            if len(layer[name]) >= MIN_ENV_SECRET
        ]
        found.extend(key for key in api_keys if len(key) >= MIN_API_KEY)
        return cls(found)

    def add(self, *secrets: str) -> None:
        """Also redact ``secrets`` (empty or short values are ignored)."""
        added = {secret for secret in secrets if len(secret) >= MIN_API_KEY} - self._secrets
        if not added:
            return
        self._secrets |= added
        found = set[str]().union(*(words(secret) for secret in self._secrets))
        self._pattern = re.compile(_trie_pattern(found))
        self._words = tuple(sorted(found, key=len, reverse=True))

    def __call__(self, text: str) -> str:
        """``text`` with every secret replaced."""
        spans = self._spans(text)
        if not spans:
            return text
        out: list[str] = []
        done = 0
        for start, end in spans:
            out += (text[done:start], REDACTED)
            done = end
        out.append(text[done:])
        return "".join(out)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Where ``text`` holds a secret, read as it is and with its escapes undone."""
        if self._pattern is None:
            return []
        found = list(self._found(fold(text)))
        unescaped = unescape(text)
        if unescaped is not None:
            # A word away from every escape was found in the original already.
            folded = fold(unescaped.text)
            for low, high in unescaped.near_escapes(len(self._words[0])):
                spans = self._found(folded[low:high], low)
                found += (unescaped.original(*span) for span in spans)
        return _merged(widened(text, _merged(found)))

    def _found(self, folded: str, offset: int = 0) -> Iterator[tuple[int, int]]:
        assert self._pattern is not None
        # The pattern matches only these words: where none occurs, nothing is replaced.
        if len(self._words) <= _SCAN_LIMIT and not any(w in folded for w in self._words):
            return
        for match in self._pattern.finditer(folded):
            yield match.start() + offset, match.end() + offset

    def cut_start(self, text: str) -> int:
        """How many characters at the start of ``text``, a text whose start was cut off,
        could be the end of a secret (in either reading of :meth:`_spans`)."""
        if self._pattern is None:
            return 0
        cut = self._overhang(fold(text))
        unescaped = unescape(text)
        if unescaped is not None:
            ends = self._overhang(fold(unescaped.text))
            if ends:
                cut = max(cut, unescaped.original(0, ends)[1])
        return cut

    def _overhang(self, folded: str) -> int:
        """The longest start of ``folded`` that ends a word: at once, or after a few
        characters of an escape that the cut went through."""
        best = 0
        for skip in range(min(_CUT_ESCAPE, len(folded)) + 1):
            shortest = 1 if skip == 0 else _CUT_PIECE
            for word in self._words:
                longest = min(len(word) - 1, len(folded) - skip)
                for size in range(longest, max(shortest, best - skip + 1) - 1, -1):
                    if folded.startswith(word[-size:], skip):
                        best = skip + size
                        break
        return best


_lock = threading.Lock()
_running: list[Redactor] = []  # changed and read under _lock


@contextlib.contextmanager
def redacting(redactor: Redactor) -> Generator[None]:
    """Make ``redactor`` (a run's, which knows the project's ``.env`` and the targets' API
    keys) apply to what is logged (:mod:`evalwright.logs`) and cut (:func:`clip`) while the
    block runs."""
    with _lock:
        _running.append(redactor)
    try:
        yield
    finally:
        with _lock:
            _running.remove(redactor)


def redact_running(text: str) -> str:
    """``text`` redacted by every redactor of :func:`redacting`."""
    with _lock:
        active = tuple(_running)
    for redactor in active:
        text = redactor(text)
    return text


def clip(text: str, limit: int, *, end: bool = False, marker: str = "") -> str:
    """``text`` redacted by the running redactors, then cut to its first ``limit``
    characters (its last, with ``end``). ``marker`` marks a cut, after the kept text (before
    it, with ``end``); ``{cut}`` in it counts the characters cut off. Each place that shows
    part of a text cuts it here, so that a secret straddling the cut leaves no piece behind
    (docs/targets.md#credentials-and-redaction)."""
    if len(text) <= limit and not _running:
        return text
    # Only the part near the kept text can hold a secret reaching into it.
    window = text[-(limit + _CUT_MARGIN) :] if end else text[: limit + _CUT_MARGIN]
    redacted = redact_running(window)
    cut = len(redacted) - limit + len(text) - len(window)
    if cut <= 0:
        return redacted
    mark = marker.format(cut=cut)
    return mark + redacted[-limit:] if end else redacted[:limit] + mark


def after_cut(text: str) -> str:
    """``text``, whose start was cut off elsewhere (on a Ray node, without a redactor),
    less any start that could be the end of a secret, by every running redactor."""
    with _lock:
        active = tuple(_running)
    return text[max((redactor.cut_start(text) for redactor in active), default=0) :]
