"""``--only-failed``: which (eval file, case, target, repeat, variant) runs an earlier results file
holds as failed or errored (docs/running.md#--only-failed).

The file is read as ``--resume`` reads it (:class:`RowReader`, the same rule for which row of
a key stands), and a row fails as the exit status decides: an error row, or a score below the
pass mark (a failed required evaluator scores the case 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evalwright.errors import ConfigError
from evalwright.files.project import display_path
from evalwright.results.index import RowFacts, RowKey, row_key, supersedes
from evalwright.results.resume import RowReader

OPTION = "--only-failed"


@dataclass(frozen=True, slots=True)
class FailedRow:
    """A pair to rerun, and the line of the row that failed."""

    key: RowKey
    line: int


@dataclass(slots=True)
class FailedRows:
    """The failed pairs of a results file, by eval file and case id."""

    path: Path
    by_case: dict[tuple[str, str], list[FailedRow]] = field(
        default_factory=dict[tuple[str, str], list[FailedRow]]
    )

    def targets(self, eval_file: str, case_id: str) -> list[str]:
        """The targets the case failed or errored on, in the file's order."""
        return list(dict.fromkeys(target for target, _ in self.runs(eval_file, case_id)))

    def runs(self, eval_file: str, case_id: str) -> list[tuple[str, int]]:
        """The (target, repeat) runs of the case that failed or errored, in the file's order."""
        return [
            (failed.key[2], failed.key[3]) for failed in self.by_case.get((eval_file, case_id), ())
        ]

    @property
    def shown(self) -> str:
        """The results file as messages name it."""
        return display_path(self.path)


def read_failed(path: Path, pass_mark: float) -> FailedRows:
    """The pairs whose standing row in ``path`` failed or errored; :class:`ConfigError` when
    the file cannot be read or a line is not a row."""
    standing: dict[RowKey, tuple[RowFacts, int]] = {}
    try:
        for line in RowReader(path):
            key, facts = row_key(line.row), RowFacts.of(line.row)
            kept = standing.get(key)
            if kept is None or supersedes(facts, kept[0]):
                standing[key] = (facts, line.number)
    except OSError as exc:
        problem = exc.strerror or exc
        raise ConfigError(f"cannot read {display_path(path)} for {OPTION}: {problem}") from None
    failed = FailedRows(path)
    for key, (facts, number) in standing.items():
        if not facts.verdict(pass_mark):
            failed.by_case.setdefault(key[:2], []).append(FailedRow(key, number))
    return failed
