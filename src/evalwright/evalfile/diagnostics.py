"""Diagnostics: one problem in a user's file, as ``path:line:col: error: FIELD: MESSAGE``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from evalwright.errors import LoadError, printable

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One error or warning, located by file, 1-based line and column, and field path."""

    path: str
    line: int
    col: int
    severity: Severity
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.col}: {self.severity}: "
        text = where + (f"{self.field}: {self.message}" if self.field else self.message)
        return printable(text, one_line=True)


@dataclass(slots=True)
class Report:
    """Collects the diagnostics of one load, so every problem is reported in one run."""

    path: str
    items: list[Diagnostic] = field(default_factory=list[Diagnostic])

    def error(self, line: int, col: int, field_path: str, message: str) -> None:
        """Record an error at ``line``:``col`` (1-based)."""
        self.items.append(Diagnostic(self.path, line, col, "error", field_path, message))

    def warning(self, line: int, col: int, field_path: str, message: str) -> None:
        """Record a warning at ``line``:``col`` (1-based)."""
        self.items.append(Diagnostic(self.path, line, col, "warning", field_path, message))

    @property
    def errors(self) -> list[Diagnostic]:
        """The errors recorded so far."""
        return [d for d in self.items if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        """The warnings recorded so far."""
        return [d for d in self.items if d.severity == "warning"]

    def raise_if_errors(self) -> None:
        """Raise :class:`LoadError` with every error, sorted by position, if there is any."""
        errors = self.errors
        if errors:
            raise LoadError(sorted(errors, key=lambda d: (d.line, d.col)))


def format_field(path: tuple[str | int, ...]) -> str:
    """Render a data path as ``evalcases[2].input_messages[0].role``."""
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        else:
            out.append(f".{part}" if out else part)
    return "".join(out)
