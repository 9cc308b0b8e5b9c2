"""Resolve and read the files an eval case references (docs/eval-files.md#file-references).

A resolver lives for a whole run: each reference is resolved once per directory and each
file read once, however many cases use it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from evalwright.files.media import MAX_MEDIA_BYTES, Media, MediaKind, check_kind
from evalwright.files.project import Project, display_path
from evalwright.files.reading import UnreadableFile, read_limited
from evalwright.files.text import normalize_newlines, tidy

_BINARY = (
    "binary file: a file part takes text; attach an image, PDF or audio clip as a media part "
    "(docs/eval-files.md#media-parts)"
)
# Problems of a file's content (not of one reference to it) are cached by real path.


class ReferenceProblem(Exception):
    """A reference that cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class ResolvedFile:
    """A referenced file: its real path, tidied content, and whether it is a guideline."""

    path: str
    content: str
    guideline: bool


class FileResolver:
    """Resolves references against an eval file's directory and its parents, up to the root."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.root = os.path.abspath(project.root)
        self.real_root = os.path.realpath(self.root)
        self._resolved: dict[tuple[str, str, bool], ResolvedFile | ReferenceProblem] = {}
        self._contents: dict[str, str | ReferenceProblem] = {}
        self._media: dict[str, bytes | ReferenceProblem] = {}
        self._checked: dict[tuple[str, MediaKind], Media] = {}
        self._protected: set[str] = set()
        self._missing: set[str] = set()

    def files_read(self) -> frozenset[str]:
        """The real paths of the files this resolver has read (or tried to) so far."""
        return frozenset(self._contents) | frozenset(self._media)

    def files_looked_for(self) -> frozenset[str]:
        """:meth:`files_read`, and every path where a file not found was looked for: where
        writing it would change what a reference resolves to (``eval --watch``)."""
        return frozenset(self._contents) | frozenset(self._media) | self._missing

    def protect(self, path: str | os.PathLike[str]) -> None:
        """Make any later reference to ``path`` a problem (a run's results file, which the
        run is writing, must not be read as a case's file)."""
        self._protected.add(os.path.realpath(path))

    def resolve(self, reference: str, base_dir: str, *, classify: bool = True) -> ResolvedFile:
        """Resolve ``reference`` written in a file in ``base_dir``; raise ReferenceProblem.

        With ``classify=False`` no file is a guideline (expected messages, judge templates).
        """
        key = (reference, base_dir, classify)
        return _memo(self._resolved, key, lambda: self._resolve(reference, base_dir, classify))

    def media(self, reference: str, base_dir: str, kind: MediaKind) -> tuple[str, Media]:
        """The real path and bytes of a media part's file, found as :meth:`resolve` finds
        one and read once per run; its format is sniffed and must be one ``kind`` takes
        (docs/eval-files.md#media-parts)."""
        real = self.locate(reference, base_dir)
        if real in self._protected:
            raise ReferenceProblem(f"{reference!r} is the results file this run is writing")
        # Hashed once per file and kind: every case that attaches it shares the one Media.
        found = self._checked.get((real, kind))
        if found is None:
            data = _memo(self._media, real, lambda: self._read_bytes(real))
            try:
                found = Media(check_kind(kind, data), data)
            except ValueError as exc:
                raise ReferenceProblem(f"{exc} ({reference})") from None
            self._checked[(real, kind)] = found
        return real, found

    def _read_bytes(self, real: str) -> bytes:
        try:
            return read_limited(real, MAX_MEDIA_BYTES)
        except UnreadableFile as exc:
            raise ReferenceProblem(str(exc)) from None

    def locate(self, reference: str, base_dir: str, *, want_dir: bool = False) -> str:
        """The real path of a file (or directory) reference, found and confined as
        :meth:`resolve` finds one, but not read: a dataset streams
        (docs/eval-files.md#datasets-and-variables)."""
        return self._confine(reference, self._find(reference, base_dir, want_dir=want_dir))

    def resolve_dir(self, reference: str, base_dir: str) -> str:
        """Resolve a directory reference (a code evaluator's ``cwd``) the same way."""
        candidate = self._find(reference, base_dir, want_dir=True)
        return self._confine(reference, candidate)

    def _resolve(self, reference: str, base_dir: str, classify: bool) -> ResolvedFile:
        if '"' in reference or "\n" in reference:
            raise ReferenceProblem(
                f"a file reference must not contain '\"' or a line break: {reference!r}"
            )
        candidate = self._find(reference, base_dir, want_dir=False)
        real = self._confine(reference, candidate)
        if real in self._protected:
            raise ReferenceProblem(f"{reference!r} is the results file this run is writing")
        relative = os.path.relpath(candidate, self.root).replace(os.sep, "/")
        guideline = classify and self.project.guidelines.match(relative)
        try:
            content = self._content(real)
        except ReferenceProblem as exc:
            raise ReferenceProblem(f"{exc} ({reference})") from None
        return ResolvedFile(real, content, guideline)

    def _find(self, reference: str, base_dir: str, *, want_dir: bool) -> str:
        if not reference.strip():
            raise ReferenceProblem("empty file reference")
        if "\\" in reference:
            raise ReferenceProblem(f"use / in file references: {reference!r}")
        relative = reference.lstrip("/")
        bases = [self.root] if reference.startswith("/") else self._bases(base_dir)
        candidates = [os.path.normpath(os.path.join(base, relative)) for base in bases]
        for candidate in candidates:
            # Anything but a directory is taken as the file: a FIFO or a device is then
            # reported as "not a regular file", not as missing.
            if os.path.isdir(candidate) if want_dir else _exists_not_dir(candidate):
                return candidate
        if not want_dir:
            self._missing.update(candidates)
        tried = ", ".join(display_path(candidate) for candidate in candidates)
        kind = "directory" if want_dir else "file"
        raise ReferenceProblem(f"{kind} not found: {reference!r} (tried: {tried})")

    def _bases(self, base_dir: str) -> list[str]:
        current = os.path.abspath(base_dir)
        bases = [current]
        while current != self.root and _inside(current, self.root):
            current = os.path.dirname(current)
            bases.append(current)
        return bases

    def _confine(self, reference: str, candidate: str) -> str:
        real = os.path.realpath(candidate)
        if not _inside(real, self.real_root):
            raise ReferenceProblem(
                f"file reference escapes the project root: {reference!r} resolves to {real}, "
                f"outside {self.real_root}"
            )
        return real

    def _content(self, real: str) -> str:
        return _memo(self._contents, real, lambda: self._read(real))

    def _read(self, real: str) -> str:
        limit = self.project.config.max_file_bytes
        try:
            data = read_limited(real, limit, "max_file_bytes")
        except UnreadableFile as exc:
            raise ReferenceProblem(str(exc)) from None
        if b"\x00" in data:
            raise ReferenceProblem(_BINARY)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ReferenceProblem(_BINARY) from None
        return tidy(normalize_newlines(text.removeprefix("\ufeff")))


def _exists_not_dir(path: str) -> bool:
    return os.path.exists(path) and not os.path.isdir(path)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


K = TypeVar("K")
V = TypeVar("V")


def _memo(cache: dict[K, V | ReferenceProblem], key: K, compute: Callable[[], V]) -> V:
    """``compute()`` once per key; a problem is remembered and raised again like a result."""
    result = cache.get(key)
    if result is None:
        try:
            result = compute()
        except ReferenceProblem as exc:
            result = exc
        cache[key] = result
    if isinstance(result, ReferenceProblem):
        raise result
    return result
