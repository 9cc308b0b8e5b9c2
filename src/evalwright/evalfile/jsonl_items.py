"""A JSONL eval file read a line at a time (docs/eval-files.md#json-lines-files): its header
and each case's data still to validate, never the whole file in memory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal, TypeAlias

from evalwright import jsontext
from evalwright.evalfile.located import Located
from evalwright.evalfile.models import JsonlHeader
from evalwright.evalfile.models import _FileHeader as FileHeader  # pyright: ignore[reportPrivateUsage]
from evalwright.files.diagnostics import Report
from evalwright.files.reading import MAX_JSONL_LINE_BYTES, UnreadableFile, open_regular
from evalwright.files.source import parse_json_line
from evalwright.files.validation import type_name, validate
from evalwright.jsontext import JsonValue

Item: TypeAlias = (
    tuple[Literal["header"], FileHeader | None, Located]
    | tuple[Literal["case"], JsonValue, Located]
)
"""The file's header (``None`` when it is invalid), or one case's data still to validate."""


def count_lines(path: Path) -> int:
    """A cheap count of a JSONL file's cases: its non-blank lines, less a header line (a
    first line holding an object without ``id``)."""
    try:
        with open_regular(path) as handle:
            lines = (line for line in handle if line.strip())
            first = next(lines, None)
            if first is None:
                return 0
            return (0 if _is_header_line(first) else 1) + sum(1 for _ in lines)
    except (OSError, UnreadableFile):
        return 0


def _is_header_line(line: bytes) -> bool:
    try:
        data = jsontext.loads(line.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and "id" not in data


def jsonl_items(path: Path, report: Report) -> Iterator[Item]:
    """A JSONL eval file's items, a line at a time: a first line without ``id`` is its
    header; every problem goes to ``report``, located at its line."""
    seen_case = False
    first = True
    try:
        for number, line in _jsonl_lines(path):
            if not line.strip():
                continue
            is_first, first = first, False
            item = _jsonl_item(line, number, report, is_first)
            if item is not None:
                seen_case = seen_case or item[0] == "case"
                yield item
    except _BadLine as exc:
        report.error(exc.line, 1, "", str(exc))
    except UnreadableFile as exc:
        report.error(1, 1, "", str(exc))
    if not seen_case and not report.errors:
        report.error(1, 1, "", "the file has no eval cases")


class _BadLine(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def _jsonl_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Numbered lines (UTF-8, without their line end), none longer than the limit."""
    with open_regular(path) as handle:
        number = 0
        while True:
            try:
                raw = handle.readline(MAX_JSONL_LINE_BYTES + 1)
            except OSError as exc:
                raise UnreadableFile(f"cannot read the file: {exc.strerror or exc}") from None
            if not raw:
                return
            number += 1
            if len(raw) > MAX_JSONL_LINE_BYTES:
                raise _BadLine(number, f"line is longer than {MAX_JSONL_LINE_BYTES} bytes")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise _BadLine(number, "the file is not valid UTF-8") from None
            if number == 1:
                line = line.removeprefix("\ufeff")
            yield number, line.rstrip("\n").removesuffix("\r")


def _jsonl_item(line: str, number: int, report: Report, is_first: bool) -> Item | None:
    parsed = parse_json_line(line, number, report)
    if parsed is None:
        return None
    data, positions = parsed
    where = Located((), positions)
    if not isinstance(data, dict):
        report.error(number, 1, "", f"expected a JSON object, got {type_name(data)}")
        return None
    if is_first and "id" not in data:
        return "header", validate(JsonlHeader, data, positions, report), where
    return "case", data, where
