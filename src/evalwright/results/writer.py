"""Write result rows as JSON Lines, each flushed as soon as it is written.

A resumed run writes into a temporary file beside the old one and renames it over the old
one at the end (also when interrupted), so the results file is never half rewritten.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import IO, Any

from evalwright.results.redact import Redactor


class ResultsWriter:
    """Writes rows to a results file; nothing is held back in a buffer."""

    def __init__(self, path: Path, redact: Redactor, *, keep: list[str] | None = None) -> None:
        self.path = path
        self.redact = redact
        self.rows_written = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._final: Path | None = None
        if keep is None:
            # A run's file holds that run only (--resume is how a run continues a file).
            self._file: IO[str] = open(path, "w", encoding="utf-8")  # noqa: SIM115
        else:
            handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            self._file = os.fdopen(handle, "w", encoding="utf-8")
            self._final, self.path = path, Path(temporary)
            for line in keep:
                self._file.write(line + "\n")
            self._file.flush()

    def write(self, row: dict[str, Any]) -> None:
        """Write one row and flush it."""
        self.write_line(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
        self.rows_written += 1

    def write_line(self, line: str) -> None:
        """Write one already serialized row (redacted here, like every other)."""
        self._file.write(self.redact(line) + "\n")
        self._file.flush()

    def close(self, leftover: list[str] | None = None) -> Path:
        """Close the file; a resumed run adds ``leftover`` rows and replaces the old file."""
        for line in leftover or ():
            self._file.write(line + "\n")
        self._file.close()
        if self._final is not None:
            os.replace(self.path, self._final)
            self.path, self._final = self._final, None
        return self.path
