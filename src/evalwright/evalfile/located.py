"""Where a spec sits in its file, and reporting a problem there (docs/eval-files.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evalwright.files.diagnostics import Report, format_field
from evalwright.files.source import DataPath, Positions


@dataclass(slots=True)
class Located:
    """Where the current spec sits: its data path and the positions of its file (or line)."""

    path: DataPath
    positions: Positions

    def at(self, *parts: str | int) -> Located:
        """The location of a child."""
        return Located((*self.path, *parts), self.positions)

    def line(self) -> int:
        """The line this spec starts on."""
        return self.positions.line(self.path)


def report_at(
    report: Report,
    where: Located,
    severity: Literal["error", "warning"],
    message: str,
    *,
    key: bool = False,
) -> None:
    """Record a problem at a location: its value, or its key with ``key=True``."""
    line, col = (where.positions.key if key else where.positions.value)(where.path)
    record = report.error if severity == "error" else report.warning
    record(line, col, format_field(where.path), message)
