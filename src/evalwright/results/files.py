"""Open a results file for a run, under its lock (docs/running.md#the-results-file).

A new file is created exclusively; a file named by ``--out`` is emptied only once the lock
is held; a file named by ``--resume`` is indexed, cut back to its last complete line, and
given the rows of temporary files an interrupted run left beside it, before rows are
appended to it.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from evalwright.errors import ConfigError
from evalwright.files.project import display_path
from evalwright.redact import Redactor
from evalwright.results.index import RowFacts, RowIndex, row_key
from evalwright.results.lock import OPEN_FLAGS, ResultsLock
from evalwright.results.resume import RowReader, first_run_id, leftovers, read_previous
from evalwright.results.writer import ResultsWriter

_APPEND = os.O_WRONLY | os.O_APPEND | OPEN_FLAGS


@dataclass(slots=True)
class OpenResults:
    """A results file being written by a run: its writer, its lock and the run id.

    ``previous`` is the index of the rows a resumed file already held (``None`` for a new
    file); :meth:`close` compacts a resumed file and releases the lock.
    """

    path: Path
    writer: ResultsWriter
    lock: ResultsLock
    run_id: str
    previous: RowIndex | None = None

    def close(self) -> None:
        """Close (and compact) the file, then let another run have it."""
        try:
            self.writer.close()
        finally:
            self.lock.release()


def create_new(path: Path, run_id: str, redact: Redactor) -> OpenResults:
    """A file that must not exist yet (a default results path holds the run id)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, _APPEND | os.O_CREAT | os.O_EXCL, 0o644)
    return _locked(path, fd, run_id, redact)


def replace(path: Path, run_id: str, redact: Redactor) -> OpenResults:
    """``--out``: the file (created when missing) is emptied once this run holds its lock,
    and temporary files of the run it held before are removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _open(path, _APPEND | os.O_CREAT)
    results = _locked(path, fd, run_id, redact)
    os.ftruncate(fd, 0)
    for leftover in leftovers(path):
        with contextlib.suppress(OSError):
            leftover.unlink()
    return results


def _open(path: Path, flags: int) -> int:
    try:
        return os.open(path, flags, 0o644)
    except OSError as exc:
        raise ConfigError(f"cannot write {display_path(path)}: {exc.strerror or exc}") from None


def _locked(path: Path, fd: int, run_id: str, redact: Redactor) -> OpenResults:
    try:
        lock = ResultsLock.acquire(path, run_id)
    except BaseException:
        os.close(fd)
        raise
    writer = ResultsWriter(path, os.fdopen(fd, "ab"), redact)
    return OpenResults(path, writer, lock, run_id)


def resume(path: Path, new_run_id: str, redact: Redactor) -> OpenResults:
    """``--resume``: the file's rows indexed by key, those of temporary files left beside it
    appended (then the temporary files removed), and the file opened to append.

    The run keeps the file's ``run_id``; ``new_run_id`` is for a file without rows.
    """
    run_id = first_run_id(path) or new_run_id
    lock = ResultsLock.acquire(path, run_id)
    try:
        previous = read_previous(path)
        os.truncate(path, previous.end)  # a last line cut off mid-write is dropped
        handle: IO[bytes] = os.fdopen(_open(path, _APPEND), "ab")
        writer = ResultsWriter(path, handle, redact, offset=previous.end, index=previous.index)
        found = _merge_leftovers(path, writer, previous.index)
        final = previous.run_id or found or run_id
        if final != run_id:
            lock.describe(final)
    except BaseException:
        lock.release()
        raise
    return OpenResults(path, writer, lock, final, previous.index)


def _merge_leftovers(path: Path, writer: ResultsWriter, index: RowIndex) -> str | None:
    """Append the rows of leftover temporary files that win over the file's own (an
    identical row is not appended twice), then remove them; the first run id seen."""
    run_id: str | None = None
    for leftover in leftovers(path):
        try:
            for line in RowReader(leftover):
                run_id = run_id or line.row.run_id
                key, facts = row_key(line.row), RowFacts.of(line.row)
                if index.get(key) != facts and index.wins(key, facts):
                    writer.append_line(line.text, line.row)
            leftover.unlink()
        except OSError as exc:
            raise ConfigError(
                f"cannot read {display_path(leftover)} (left by an interrupted run): "
                f"{exc.strerror or exc}"
            ) from None
    return run_id
