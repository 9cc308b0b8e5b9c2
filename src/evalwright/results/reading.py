"""Reading results files from Python: :func:`read_results` and :func:`results_dataframe`
(docs/python-api.md#reading-results); and, for the commands that read large files, each row
with the place of its line, each key's winning line, and rows read back from their places.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

from pydantic import ValidationError

from evalwright.errors import ConfigError
from evalwright.files.reading import UnreadableFile, open_regular
from evalwright.results.index import RowKey, row_key, supersedes
from evalwright.results.row import ResultRow, row_problem

if TYPE_CHECKING:
    import pandas

PathArg = str | os.PathLike[str]


@dataclass(frozen=True, slots=True)
class PlacedRow:
    """A row and where its line is: the byte offset it starts at, and a hash of the line (so
    that reading it back can tell the same line from a file changed since)."""

    offset: int
    digest: int
    row: ResultRow


def read_placed(path: PathArg) -> Iterator[PlacedRow]:
    """Each row of a results file with its place, in file order (streamed: the file is never
    held whole). A line that is not a row raises :class:`ConfigError` naming the file and line.
    """
    shown = os.fspath(path)
    with _open(path) as handle:
        offset = 0
        for number, line in enumerate(handle, start=1):
            start, offset = offset, offset + len(line)
            if line.strip():
                yield PlacedRow(start, hash(line), _row(line, shown, number))


def read_results(path: PathArg) -> Iterator[ResultRow]:
    """Each row of a results file, in file order (streamed: the file is never held whole).

    A line that is not a row raises :class:`ConfigError` naming the file and line.
    """
    for placed in read_placed(path):
        yield placed.row


def _open(path: PathArg) -> BinaryIO:
    try:
        return open_regular(path)
    except UnreadableFile as exc:
        raise ConfigError(f"{os.fspath(path)}: {exc}") from None


def _row(line: bytes, shown: str, number: int) -> ResultRow:
    try:
        return ResultRow.model_validate_json(line)
    except ValidationError as exc:
        problem = row_problem(exc)
        raise ConfigError(f"{shown}:{number}: not a result row: {problem}") from None


@dataclass(slots=True)
class WinningLine:
    """The line of a key's winning row so far: its place, and what decides whether a later
    row of the key replaces it (:func:`evalwright.results.index.supersedes`)."""

    offset: int
    digest: int
    ok: bool
    timestamp: str


def winning_lines(path: PathArg) -> dict[RowKey, WinningLine]:
    """Where each key's winning row is, in the order keys first appeared: the row the run
    summary counts when a resumed file holds several (docs/running.md#--resume)."""
    lines: dict[RowKey, WinningLine] = {}
    for placed in read_placed(path):
        row = placed.row
        line = WinningLine(placed.offset, placed.digest, row.status == "ok", row.timestamp)
        key = row_key(row)
        old = lines.get(key)
        if old is None or supersedes(line, old):
            lines[key] = line
    return lines


def winning_rows(path: PathArg) -> Iterator[ResultRow]:
    """Each key's winning row (see :func:`winning_lines`), in the order keys first appeared,
    read back one at a time."""
    lines = winning_lines(path)
    return read_back(path, ((line.offset, line.digest) for line in lines.values()))


def read_back(path: PathArg, places: Iterable[tuple[int, int]]) -> Iterator[ResultRow]:
    """The rows at ``places`` (each an offset and a digest, from :func:`read_placed`), in
    that order, through one open file; :class:`ConfigError` when a line is not the one read
    there before (the file changed since)."""
    shown = os.fspath(path)
    with _open(path) as handle:
        for offset, digest in places:
            handle.seek(offset)
            line = handle.readline()
            if hash(line) != digest:
                raise ConfigError(f"{shown}: changed since it was read (the row at byte {offset})")
            yield ResultRow.model_validate_json(line)  # it was a row when read before


def flat_row(row: ResultRow) -> dict[str, Any]:
    """A row as one record of a table: every top-level key, with ``usage`` and ``error``
    spread into ``input_tokens``, ``output_tokens``, ``error_type`` and ``error_message``."""
    record: dict[str, Any] = row.model_dump(mode="json", exclude={"usage", "error"})
    record.update(
        input_tokens=row.usage.input_tokens if row.usage else None,
        output_tokens=row.usage.output_tokens if row.usage else None,
        error_type=row.error.type if row.error else None,
        error_message=row.error.message if row.error else None,
    )
    return record


def results_dataframe(paths: PathArg | Sequence[PathArg]) -> pandas.DataFrame:
    """Every row of one or more results files as a pandas DataFrame, one row per line
    (needs pandas: ``pip install 'evalwright[pandas]'``)."""
    try:
        import pandas
    except ImportError:
        raise ConfigError(
            "results_dataframe needs pandas: pip install 'evalwright[pandas]'"
        ) from None
    given = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    records = [flat_row(row) for path in given for row in read_results(path)]
    return pandas.DataFrame.from_records(records)
