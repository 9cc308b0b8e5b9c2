"""Collecting diagnostics (:class:`evalwright.errors.Diagnostic`) while a file loads."""

from __future__ import annotations

from dataclasses import dataclass, field

from evalwright.errors import Diagnostic, LoadError


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
