"""A message's segments as a case holds them (docs/eval-files.md#messages-and-parts): texts tidied
once and shared, files resolved, media sniffed, and a warning for text that could be
mistaken for a transcript's structure."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from evalwright.evalfile.located import Located, report_at
from evalwright.evalfile.messages import FilePart, MediaPart, Message, TextPart
from evalwright.evalfile.references import FileResolver, ReferenceProblem
from evalwright.evalfile.resolved import (
    FileSegment,
    GuidelineSegment,
    MediaSegment,
    Segment,
    TextSegment,
)
from evalwright.files.diagnostics import Report
from evalwright.files.text import normalize_newlines, tidy

SPOOF_MARKERS = re.compile(r"@\[[A-Z][A-Za-z ]*\]:|<tool_call|<file path=|\[\[ ## ")


def _may_spoof(text: str) -> bool:
    """A cheap test before the regular expression: most texts hold none of the markers."""
    return "@[" in text or "<tool_call" in text or "<file path=" in text or "[[ ## " in text


TEXT_CACHE_SIZE = 4096
"""How many texts (and plain turns) are kept to share: a streamed file stays small."""


class SegmentBuilder:
    """Builds the segments of one file's messages, reporting problems into its report."""

    def __init__(self, resolver: FileResolver, base_dir: str, report: Report) -> None:
        self.resolver = resolver
        self.base_dir = base_dir
        self.report = report
        self.verbatim = False
        """A dataset's own messages are its data, sent as they are: not tidied
        (docs/eval-files.md#foreign-formats)."""
        self._spoof_checked: set[str] = set()
        # Texts repeat across cases (a system prompt, a shared question): each is tidied once
        # and its immutable segment shared.
        self._texts: dict[str, TextSegment] = {}

    def shared(self, raw: str, segment: Segment) -> bool:
        """Whether ``segment`` is the shared one of the text ``raw`` (it warned of nothing)."""
        return segment is self._texts.get(raw)

    def error(self, where: Located, message: str) -> None:
        """Report an error at a location."""
        report_at(self.report, where, "error", message)

    def warning(self, where: Located, message: str) -> None:
        """Report a warning at a location."""
        report_at(self.report, where, "warning", message)

    def build(
        self,
        message: Message,
        where: Located,
        classify: bool,
        displays: dict[str, str],
        *,
        bare: bool = False,
    ) -> Iterator[Segment]:
        """``message``'s segments in order; ``classify`` tells guideline files apart (input
        turns), ``displays`` maps each file read to the name it is shown by."""
        content = message.content
        if isinstance(content, str):
            # A shorthand (input, expected_output, a bare turn) is located at its own key.
            shorthand = bare or where.path[-1:] in (("input",), ("expected_output",))
            segment = self.text(content, lambda: where if shorthand else where.at("content"))
            if segment is not None:
                yield segment
            return
        for index, part in enumerate(content or ()):
            if isinstance(part, str):
                segment = self.text(part, lambda i=index: where.at("content", i))
            elif isinstance(part, TextPart):
                segment = self.text(part.value, lambda i=index: where.at("content", i, "value"))
            elif isinstance(part, MediaPart):
                segment = self._media(part, message.role, where.at("content", index), displays)
            else:
                segment = self._file(part, where.at("content", index, "value"), classify, displays)
            if segment is not None:
                yield segment

    def text(self, raw: str, where: Callable[[], Located]) -> Segment | None:
        """A tidied text segment; ``where`` is worked out only for a warning."""
        if self.verbatim:
            exact = normalize_newlines(raw)
            return TextSegment(exact) if exact.strip() else None
        segment = self._texts.get(raw)
        if segment is not None:
            return segment
        text = tidy(normalize_newlines(raw))
        if not text:
            return None
        segment = TextSegment(text)
        if _may_spoof(text):
            self._spoof_check(text, where())  # warned at each place: never cached
        else:
            if len(self._texts) >= TEXT_CACHE_SIZE:  # a streamed file stays small in memory
                self._texts.clear()
            self._texts[raw] = segment
        return segment

    def _file(
        self, part: FilePart, where: Located, classify: bool, displays: dict[str, str]
    ) -> Segment | None:
        try:
            resolved = self.resolver.resolve(part.value, self.base_dir, classify=classify)
        except ReferenceProblem as exc:
            self.error(where, str(exc))
            return None
        if not resolved.content:
            self.warning(where, f"empty file {part.value!r}: it adds nothing to the prompt")
            return None
        display = displays.setdefault(resolved.path, part.value)
        if resolved.path not in self._spoof_checked:
            self._spoof_checked.add(resolved.path)
            if _may_spoof(resolved.content):
                self._spoof_check(resolved.content, where, f"file {part.value!r}")
        if resolved.guideline:
            return GuidelineSegment(display, resolved.path, resolved.content)
        return FileSegment(display, resolved.path, resolved.content)

    def _media(
        self, part: MediaPart, role: str, where: Located, displays: dict[str, str]
    ) -> MediaSegment | None:
        """A media part, allowed in user turns only: the APIs take media from the user
        (docs/eval-files.md#media-parts)."""
        if role != "user":
            self.error(
                where.at("type"), f"a media part (type: {part.type}) may appear only in a user turn"
            )
            return None
        if part.value is None:
            return MediaSegment(part.type, part.url or "", url=part.url)
        try:
            path, media = self.resolver.media(part.value, self.base_dir, part.type)
        except ReferenceProblem as exc:
            self.error(where.at("value"), str(exc))
            return None
        display = displays.setdefault(path, part.value)
        return MediaSegment(part.type, display, path, media)

    def _spoof_check(self, text: str, where: Located, what: str = "text") -> None:
        match = SPOOF_MARKERS.search(text)
        if match:
            self.warning(
                where,
                f"{what} contains {match.group(0).strip()!r}, which could be "
                "mistaken for structure in a transcript",
            )
