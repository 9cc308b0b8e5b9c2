"""What a run's outputs for CI are built from (docs/running.md#ci-outputs): the rows of its
results file, one per case and target, each passed, failed or errored."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from evalwright.errors import ConfigError
from evalwright.results.index import RowKey, row_key
from evalwright.results.reading import read_results
from evalwright.results.row import ResultRow
from evalwright.results.verdict import CaseGate, case_gates, row_passed

Outcome = Literal["passed", "failed", "error"]


def outcome(row: ResultRow, pass_mark: float) -> Outcome:
    """``error`` for an error row, else ``passed`` or ``failed`` as :func:`row_passed`
    decides (docs/eval-files.md#pass-rules)."""
    if row.status == "error" or row.score is None:
        return "error"
    return "passed" if row_passed(row, pass_mark) else "failed"


class Outcomes:
    """Each row's outcome among ``rows``: :func:`outcome`, but a failed repeat of a case
    that met its gate over its repeats counts as passed (docs/running.md#gates-over-repeats)."""

    def __init__(self, rows: Sequence[ResultRow], pass_mark: float) -> None:
        self.pass_mark = pass_mark
        self.gates = case_gates(rows, pass_mark)

    def gate(self, row: ResultRow) -> CaseGate:
        """The gate of the row's case over its repeats."""
        return self.gates[(row.eval_file, row.eval_id, row.target, row.variant)]

    def __call__(self, row: ResultRow) -> Outcome:
        """The row's outcome, its case's gate considered."""
        verdict = outcome(row, self.pass_mark)
        return "passed" if verdict == "failed" and self.gate(row).passed else verdict

    def failure(self, row: ResultRow) -> str:
        """Why a row failed: its score and rule, and its case's gate when repeated."""
        rule = f"pass rule {row.pass_rule}" if row.pass_rule else f"pass mark {self.pass_mark:g}"
        gate = self.gate(row)
        repeats = f"; the case {gate.describe()}" if gate.runs > 1 else ""
        return f"score {row.score:.3f} does not pass ({rule}){repeats}"


def final_rows(rows: Iterable[ResultRow]) -> list[ResultRow]:
    """One row per case and target, the last one (a resumed run's rerun wins), in the order
    the keys first appear."""
    latest: dict[RowKey, ResultRow] = {}
    for row in rows:
        latest[row_key(row)] = row
    return list(latest.values())


def results_rows(path: str | os.PathLike[str]) -> list[ResultRow]:
    """The final rows of a results file: those of a resumed run's earlier part included."""
    return final_rows(read_results(path))


def check_output_path(path: str | os.PathLike[str], what: str) -> Path:
    """``path`` when a file can be written there; raise :class:`ConfigError` before a run
    starts when it cannot (no such directory, or a directory)."""
    target = Path(path)
    if target.is_dir():
        raise ConfigError(f"{what} {os.fspath(path)}: is a directory")
    if not target.parent.is_dir():
        raise ConfigError(f"{what} {os.fspath(path)}: no such directory {target.parent}")
    return target


def write_text(path: str | os.PathLike[str], text: str, what: str, *, append: bool = False) -> None:
    """Write (or append) UTF-8 text; a failure is a :class:`ConfigError` naming the file."""
    try:
        with open(path, "a" if append else "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        raise ConfigError(f"{what} {os.fspath(path)}: {exc.strerror or exc}") from None
