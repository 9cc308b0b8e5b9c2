"""Read a results file for ``--resume``, line by line: which row stands for each key, and the
temporary files an interrupted run left beside it (docs/running.md#--resume).

Nothing but keys, offsets and the summary's numbers is kept, so a large file costs little
memory. A last line without a newline was cut off mid-write and does not count; any other
line that is not a row (``ResultRow.model_validate_json`` refuses it) stops the resume with a
located error, the file left as it was.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from evalwright.errors import ConfigError
from evalwright.files.project import display_path
from evalwright.files.reading import UnreadableFile, open_regular
from evalwright.results.index import RowFacts, RowIndex, row_key
from evalwright.results.row import ResultRow, row_problem

TEMPORARY_SUFFIX = r"\.[a-z0-9_]{8}"
"""After ``.NAME``: the random part ``tempfile.mkstemp`` gives the files a resumed run (and
compaction) write beside a results file."""


@dataclass(slots=True)
class Line:
    """A complete line of a results file and where it starts."""

    offset: int
    number: int
    text: str
    row: ResultRow


@dataclass(slots=True)
class PreviousRun:
    """An earlier results file: its run id, its index, and where its complete lines end."""

    run_id: str | None = None
    index: RowIndex = field(default_factory=RowIndex)
    end: int = 0


class RowReader:
    """Iterates over the rows of a results file's complete lines; ConfigError for a line
    that is not a row. Once iterated, :attr:`end` is where the complete lines end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.end = 0

    def __iter__(self) -> Generator[Line]:
        offset = 0
        try:
            handle = open_regular(self.path)
        except UnreadableFile as exc:  # a FIFO or a device would block or never end
            raise OSError(errno.EINVAL, exc.reason) from None
        with handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.endswith(b"\n"):
                    return  # cut off mid-write
                if raw.strip():
                    text, row = _parse(raw, self.path, number)
                    yield Line(offset, number, text, row)
                offset += len(raw)
                self.end = offset


def _parse(raw: bytes, path: Path, number: int) -> tuple[str, ResultRow]:
    try:
        text = raw.decode("utf-8").rstrip("\n")
        return text, ResultRow.model_validate_json(text)
    except UnicodeDecodeError:
        problem = "invalid JSON"
    except ValidationError as exc:
        problem = row_problem(exc)
    raise ConfigError(f"{display_path(path)}:{number}: not a results row ({problem})")


def read_previous(path: Path) -> PreviousRun:
    """Index a results file by key (see :mod:`evalwright.results.index`)."""
    previous = PreviousRun()
    reader = RowReader(path)
    try:
        for line in reader:
            if previous.run_id is None:
                previous.run_id = line.row.run_id
            previous.index.offer(row_key(line.row), RowFacts.of(line.row), line.offset)
    except OSError as exc:
        problem = exc.strerror or exc
        raise ConfigError(f"cannot read {display_path(path)} for --resume: {problem}") from None
    previous.end = reader.end
    return previous


def first_run_id(path: Path) -> str | None:
    """The ``run_id`` of a results file's first row, if it has one."""
    rows = iter(RowReader(path))
    try:
        line = next(rows, None)
    except (OSError, ConfigError):
        return None
    finally:
        rows.close()
    return line.row.run_id if line else None


def leftovers(path: Path) -> list[Path]:
    """Temporary files an interrupted resume or compaction left beside ``path``, oldest first."""
    pattern = re.compile(re.escape(f".{path.name}") + TEMPORARY_SUFFIX)
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    found = [path.parent / n for n in names if pattern.fullmatch(n)]
    found = [p for p in found if p.is_file() and not p.is_symlink()]
    return sorted(found, key=lambda p: (p.stat().st_mtime_ns, p.name))
