"""Credentials never reach a file: every secret is replaced by ``[REDACTED]``.

Secrets are the values (8 characters or more) of environment variables whose names end in
KEY, TOKEN, SECRET, PASSWORD or CREDENTIALS, the project's ``.env`` included (even where the
process sets the same name to another value), and every target's ``api_key``. Redaction runs
on each serialized line, so a secret is caught however it got into a row: an API echoing it
in an error, a script printing it, a tool result. It is caught in the spellings text takes on
its way: JSON- and ``repr``-escaped, percent-encoded, lowercased (as in a host name), and
base64-encoded at any position of a longer base64 text (``Basic`` and ``Bearer`` headers).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, quote_plus

from evalwright.evalfile.variables import Environment
from evalwright.secrets import MIN_API_KEY, MIN_ENV_SECRET, is_secret_name

REDACTED = "[REDACTED]"
# Up to this many spellings, looking for each with ``in`` before running the pattern is
# cheaper than the pattern alone (measured on a 3 KB row: 0.75 us a spelling, the pattern
# 21-34 us); beyond it the pattern's single pass wins.
_SCAN_LIMIT = 24
_PERCENT = re.compile(r"%[0-9A-F]{2}")


def secret_names(env: Mapping[str, str]) -> list[str]:
    """The names of the variables whose values are secrets."""
    return [name for name in env if is_secret_name(name)]


def _escaped(text: str) -> set[str]:
    """``text`` as JSON, ``repr`` and URLs write it."""
    found = {
        text,
        json.dumps(text)[1:-1],
        json.dumps(text, ensure_ascii=False)[1:-1],
        repr(text)[1:-1],
        ascii(text)[1:-1],
    }
    for encoded in (quote(text, safe=""), quote(text), quote_plus(text, safe="")):
        found.add(encoded)
        found.add(_PERCENT.sub(lambda m: m.group(0).lower(), encoded))
    return found


def _base64_cores(secret: str) -> set[str]:
    """The base64 characters fixed by ``secret`` alone, at each of the three byte offsets
    it can have inside longer data (``Bearer KEY``, ``user:KEY``), in both alphabets."""
    data = secret.encode("utf-8", "surrogatepass")
    cores: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode("ascii")
        start = -(-offset * 8 // 6)  # the first character whose 6 bits are all the secret's
        end = (offset + len(data)) * 8 // 6
        core = encoded[start:end]
        cores.update((core, core.replace("+", "-").replace("/", "_")))
    return cores


def spellings(secret: str) -> set[str]:
    """Every spelling of ``secret`` that is redacted."""
    found = _escaped(secret) | _escaped(secret.lower())
    found |= {core for core in _base64_cores(secret) if len(core) >= MIN_API_KEY}
    return found


@dataclass(slots=True)
class _Node:
    children: dict[str, _Node] = field(default_factory=dict[str, "_Node"])
    end: bool = False  # a word ends here


def _trie_pattern(words: Iterable[str]) -> str:
    """One regular expression matching any of ``words``, longest first, shaped as a trie so
    each position of a long line is tried against one branch per first character."""
    root = _Node()
    for word in words:
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


class Redactor:
    """Replaces known secrets in text, in every spelling of :func:`spellings`."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._words: tuple[str, ...] | None = None
        self.add(*secrets)

    @classmethod
    def from_environment(cls, env: Mapping[str, str], api_keys: Iterable[str] = ()) -> Redactor:
        """A redactor for the secrets of ``env`` (with an :class:`Environment`, of the
        process environment and of ``.env`` alike) and the given API keys."""
        layers = [env.process, env.dotenv] if isinstance(env, Environment) else [env]
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
        words = set[str]().union(*(spellings(secret) for secret in self._secrets))
        self._pattern = re.compile(_trie_pattern(words))
        self._words = tuple(sorted(words)) if len(words) <= _SCAN_LIMIT else None

    def __call__(self, text: str) -> str:
        """``text`` with every secret replaced."""
        if self._pattern is None:
            return text
        # The pattern matches only these words: where none occurs, nothing is replaced.
        if self._words is not None and not any(word in text for word in self._words):
            return text
        return self._pattern.sub(REDACTED, text)
