"""Write result rows as JSON Lines, each flushed as soon as it is written (running.md,
"The results file").

A resumed run appends to the results file itself, so a row is kept the moment it is
written, however the run ends; at the end the file is compacted (one row per key) into a
temporary file beside it that is renamed over it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import IO

from evalwright import jsontext
from evalwright.redact import Redactor
from evalwright.results.index import RowFacts, RowIndex, row_key
from evalwright.results.row import ResultRow
from evalwright.results.rows import unwritable_row


def _dumps(row: ResultRow, *, ascii_only: bool = False) -> str:
    """The row's one line: serialized here and nowhere else (JSON Lines escaping included).

    pydantic's own JSON serializer writes it (twice as fast as ``json.dumps`` of a dump);
    ``ascii_only`` (for text that is not valid Unicode) takes the slower path that escapes."""
    if ascii_only:
        return jsontext.dumps_line(row.model_dump(mode="json"), ensure_ascii=True)
    return jsontext.one_line(row.model_dump_json())


def _why_unwritable(row: ResultRow) -> Exception:
    """The error the standard encoder gives for a row pydantic could not write (pydantic
    wraps it, and the message the row gets names the real cause)."""
    try:
        jsontext.dumps_line(row.model_dump(mode="json")).encode("utf-8")
    except (TypeError, ValueError) as exc:
        return exc
    return ValueError("the row cannot be serialized")


class ResultsWriter:
    """Appends rows to an open results file; nothing is held back in a buffer.

    With an ``index`` (a resumed run) every row written is offered to it, and :meth:`close`
    compacts the file.
    """

    def __init__(
        self,
        path: Path,
        file: IO[bytes],
        redact: Redactor,
        *,
        offset: int = 0,
        index: RowIndex | None = None,
    ) -> None:
        self.path = path
        self.redact = redact
        self.index = index
        self._file = file
        self._offset = offset

    def write(self, row: ResultRow) -> ResultRow:
        """Write one row and flush it; return the row as written, secrets redacted (what
        the console and the Python API show is what the file holds).

        A row that cannot be serialized (text that is not valid Unicode, say) is replaced by
        an error row of the same key, never dropped.
        """
        try:
            line = _dumps(row)
            written = self.redact(line)
            data = (written + "\n").encode("utf-8")
        except ValueError:  # a lone surrogate, most likely
            row = unwritable_row(row, _why_unwritable(row))
            line = _dumps(row, ascii_only=True)
            written = self.redact(line)
            data = (written + "\n").encode("utf-8")
        if written != line:  # a secret was redacted: hand on the row as the file has it
            with contextlib.suppress(ValueError):
                row = ResultRow.model_validate_json(written)
        self._append(data, row)
        return row

    def append_line(self, line: str, row: ResultRow) -> None:
        """Append an already serialized ``row`` (redacted here, like every other line)."""
        self._append(self._encode(line), row)

    def _encode(self, line: str) -> bytes:
        return (self.redact(line) + "\n").encode("utf-8")

    def _append(self, data: bytes, row: ResultRow) -> None:
        self._file.write(data)
        self._file.flush()
        if self.index is not None:
            self.index.offer(row_key(row), RowFacts.of(row), self._offset)
        self._offset += len(data)

    def close(self) -> None:
        """Close the file; compact it when it was resumed."""
        self._file.close()
        if self.index is not None:
            compact(self.path, self.index, self.redact)


def compact(path: Path, index: RowIndex, redact: Redactor) -> None:
    """Rewrite ``path`` with only the winning row of each key, in the order keys first
    appeared: written beside it, then renamed over it, so the file is never half written."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out, open(path, "rb") as source:
            for entry in index.entries.values():
                source.seek(entry.offset)
                line = source.readline().decode("utf-8").rstrip("\n")
                out.write((redact(line) + "\n").encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
            os.chmod(temporary, stat.S_IMODE(os.fstat(source.fileno()).st_mode))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
