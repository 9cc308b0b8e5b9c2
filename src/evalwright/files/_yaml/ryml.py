"""The fastest path for a clean YAML file: rapidyaml (C++) turns it into JSON text, which the
standard library's C decoder reads.

This path is taken only when its result is the one the full builder (:mod:`.events`,
libyaml under the YAML 1.2 core schema) would give. libyaml's own parser, run in C alone, must
accept the text: rapidyaml accepts some text libyaml refuses. rapidyaml's JSON follows its own
reading of scalars, so anything it could read differently makes this path give up
(:class:`~.fast.Fallback`) and the libyaml paths read the file: a tag, an anchor or an
alias; a document that is not one mapping; a duplicate, merge or empty key; a string that the
core schema would read as something else had it been unquoted (``"12"``, ``"~"``, ``"True"``:
whether it was quoted is lost in JSON); a lone surrogate; a tab or a lone CR; a text not
ending in a line break; nesting deeper than rapidyaml emits.
A large file's cases are read in pieces (:mod:`.chunks`). Positions are not kept:
:class:`~.document.ComposedPositions` composes them with the full builder the first time a
diagnostic needs one (docs/eval-files.md).
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import tempfile
from collections.abc import Generator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, Literal, cast

from evalwright.files._yaml.chunks import CASES_PER_PIECE, Pieces, cut_cases
from evalwright.files._yaml.fast import Fallback
from evalwright.files._yaml.scalars import resolve
from evalwright.jsontext import JsonValue

# The string literals of rapidyaml's JSON that the core schema might read as a non-string
# when unquoted: the words, or a first character that can start a number.
_MAY_RESOLVE = re.compile(r'"(~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+.0-9][^"\\]*)"')
# An empty key: unquoted, the core schema reads it as null.
_EMPTY_KEY = re.compile(r'""\s*:')
# Where a tag, an anchor or an alias could be, the node types say so.
_PROPERTY_CHARS = (b"&", b"*", b"!")
# rapidyaml's C++ error handler writes lines like these to stderr before raising:
# "line=1 col=7 (6B): ERROR: [parse] ..." and ".../parse_engine.def.hpp:4335: (detected here)".
_RYML_NOISE = re.compile(rb"^(?:line=\d+ col=\d+ |.*\.[ch]pp:\d+: ).*\n?", re.MULTILINE)


def ryml_document(text: str, per_piece: int = CASES_PER_PIECE) -> JsonValue:
    """The text's one document as data; :class:`~.fast.Fallback` when this path cannot
    vouch for the result (or rapidyaml is not installed). Cases are read ``per_piece`` at a
    time."""
    ryml = _rapidyaml()
    if ryml is None:
        raise Fallback
    encoded, for_ryml = _vetted(text)
    pieces = cut_cases(for_ryml, per_piece)
    mappings = _Mappings()
    if pieces is None:
        data = _decoded(_json_of(ryml, for_ryml, "map"), mappings)
    else:
        data = _decoded(_json_of(ryml, pieces.rest, "map"), mappings)
        if not isinstance(data, dict) or data.get("evalcases") != []:
            raise Fallback
        data["evalcases"] = _cases(ryml, pieces, mappings)
    # libyaml's own parser is quadratic in the depth of flow collections, so it runs only on
    # text that rapidyaml found at most 64 levels deep.
    if not _libyaml_accepts(encoded):
        raise Fallback  # rapidyaml accepts some text libyaml refuses: the full builder says why
    return data


def _cases(ryml: Any, pieces: Pieces, mappings: _Mappings) -> list[JsonValue]:
    """The cases of every piece, each piece holding as many as starts were found in it."""
    cases: list[JsonValue] = []
    for piece, count in pieces.cases:
        got = _decoded(_json_of(ryml, piece, "seq"), mappings)
        if not isinstance(got, list) or len(got) != count:
            raise Fallback
        cases.extend(got)
    return cases


def _decoded(emitted: str, mappings: _Mappings) -> JsonValue:
    """rapidyaml's JSON as data, when the core schema would read it the same."""
    if _EMPTY_KEY.search(emitted) or _has_surrogate(emitted):
        raise Fallback
    for match in _MAY_RESOLVE.finditer(emitted):
        if type(resolve(match.group(1))) is not str:
            raise Fallback
    try:
        data = json.loads(emitted, object_pairs_hook=mappings, parse_constant=_constant)
    except (ValueError, RecursionError):
        raise Fallback from None
    return cast(JsonValue, data)


def _vetted(text: str) -> tuple[bytes, bytes]:
    """The text as UTF-8, and as rapidyaml reads it the way libyaml would, when nothing in it
    is read differently by the two at the level of characters."""
    # At the end of the text, a block scalar keeps a line break libyaml does not give it;
    # around a tab, rapidyaml and libyaml disagree on what is content.
    if not text.endswith("\n") or "\t" in text:
        raise Fallback
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: the full builder reports it
        raise Fallback from None
    if b"\r" not in encoded:
        return encoded, encoded
    # CRLF is a line break to both (and never content); a lone CR is one to libyaml only.
    for_ryml = encoded.replace(b"\r\n", b"\n")
    if b"\r" in for_ryml:
        raise Fallback
    return encoded, for_ryml


def _json_of(ryml: Any, encoded: bytes, kind: Literal["map", "seq"]) -> str:
    """rapidyaml's JSON for the text, if it is one mapping (or sequence) with no tag, anchor
    or alias."""
    with quiet_stderr():
        try:
            # A tree grows by doubling, which at 20,000 cases holds 170 MB of nodes; reserving
            # about the number it needs (one per key, item or flow entry) holds 90.
            tree = ryml.Tree()
            tree.reserve(_node_estimate(encoded))
            ryml.parse_in_arena(encoded, tree)
            root = tree.root_id()
            # An eval file is a mapping; anything else is left to the full builder.
            shape = tree.is_map(root) if kind == "map" else tree.is_seq(root)
            if not shape or (
                any(char in encoded for char in _PROPERTY_CHARS) and _has_properties(ryml, tree)
            ):
                raise Fallback
            # rapidyaml emits at most 64 levels (the full builder allows MAX_DEPTH), so a
            # deeper document fails here and the full builder reads it.
            emitted = ryml.emit_json_malloc(tree, root)
        except Exception:  # a syntax error: the full builder reports it, located
            raise Fallback from None
    if not isinstance(emitted, str):
        raise Fallback
    return emitted


@functools.cache
def _rapidyaml() -> ModuleType | None:
    """rapidyaml's module, imported once; ``None`` where it is not installed."""
    try:
        import ryml  # pyright: ignore[reportMissingTypeStubs]
    except ImportError:  # an optional speed-up: the libyaml paths read every file
        return None
    return ryml


def _node_estimate(encoded: bytes) -> int:
    """About as many nodes as the text makes, or a few more."""
    colons = encoded.count(b": ") + encoded.count(b":\n")
    return colons + encoded.count(b"- ") + encoded.count(b", ") + 16


def _libyaml_accepts(encoded: bytes) -> bool:
    """Whether libyaml parses the text without an error: its parser run in C alone, with no
    Python object per event (about a quarter of the time of the libyaml fast path)."""
    try:
        from yaml._yaml import CParser  # pyright: ignore[reportMissingModuleSource]
    except ImportError:  # PyYAML without libyaml: the full builder reads every file
        return False
    try:
        CParser(encoded).raw_parse()  # pyright: ignore[reportUnknownMemberType]
    except Exception:  # a syntax error, reported by the full builder
        return False
    return True


def _has_properties(ryml: Any, tree: Any) -> bool:
    """Whether any node carries a tag or an anchor, or is an alias."""
    node_type = tree.type
    flags = int(ryml.KEYANCH | ryml.VALANCH | ryml.KEYREF | ryml.VALREF | ryml.KEYTAG | ryml.VALTAG)
    return any(int(node_type(node)) & flags for node in range(int(tree.size())))


class _Mappings:
    """Builds each mapping of a document, refusing duplicate and merge keys; a string value
    met again is kept once (a large file's data is about a third smaller)."""

    def __init__(self) -> None:
        self.strings: dict[str, str] = {}

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        strings = self.strings
        mapping = {
            key: strings.setdefault(value, value) if type(value) is str else value
            for key, value in pairs
        }
        if len(mapping) != len(pairs) or "<<" in mapping:
            raise ValueError("a duplicate or merge key")  # the full builder reports or merges it
        return mapping


def _constant(name: str) -> float:
    raise ValueError(name)  # NaN and Infinity are not JSON: never emitted for plain data


def _has_surrogate(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


@contextmanager
def quiet_stderr() -> Generator[None]:
    """Keep rapidyaml's error lines off stderr; whatever else is written meanwhile (another
    thread's output) is passed on once parsing ends."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all: nothing to keep quiet
        yield
        return
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            kept = _RYML_NOISE.sub(b"", captured.read())
            while kept:
                kept = kept[os.write(2, kept) :]
