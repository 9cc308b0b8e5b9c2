"""Comparing two sets of result rows: each ``(eval_file, eval_id, target, repeat)`` marked improved,
regressed, unchanged, new or removed (docs/running.md#evalwright-compare).

A row passes when it ran (``ok``) and scored at least the pass mark. A regression is a row
that passed before and does not now (it failed or errored); an improvement is the reverse.
A row whose verdict stayed the same is unchanged, whatever its score did: the score delta
is reported, but judges are noisy and a CI gate must not trip on noise.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from evalwright.results.index import RowKey, row_key
from evalwright.results.row import ResultRow

Change = Literal["improved", "regressed", "unchanged", "new", "removed"]
CHANGES: tuple[Change, ...] = ("regressed", "improved", "new", "removed", "unchanged")
"""Every kind of change, most urgent first (the order reports list them in)."""


def passed(row: ResultRow, pass_mark: float) -> bool:
    """Whether a row ran and scored at least ``pass_mark``."""
    return row.status == "ok" and row.score is not None and row.score >= pass_mark


@dataclass(frozen=True, slots=True)
class RowChange:
    """One key's rows before and after, and what changed."""

    key: RowKey
    change: Change
    old: ResultRow | None
    new: ResultRow | None
    pass_mark: float

    @property
    def score_delta(self) -> float | None:
        """The new score less the old one, when both rows have a score."""
        if self.old is None or self.new is None:
            return None
        if self.old.score is None or self.new.score is None:
            return None
        return self.new.score - self.old.score


@dataclass(frozen=True, slots=True)
class Comparison:
    """Every key of either side, in the new side's order, then the removed ones."""

    changes: tuple[RowChange, ...]

    def of(self, change: Change) -> list[RowChange]:
        """The keys with this change."""
        return [c for c in self.changes if c.change == change]

    @property
    def regressed(self) -> bool:
        """Whether any row regressed (``evalwright compare`` exits 1)."""
        return any(c.change == "regressed" for c in self.changes)

    def counts(self) -> dict[Change, int]:
        """How many keys have each change (every kind present, zero or not)."""
        counts: dict[Change, int] = dict.fromkeys(CHANGES, 0)
        for change in self.changes:
            counts[change.change] += 1
        return counts


def _latest(rows: Iterable[ResultRow]) -> dict[RowKey, ResultRow]:
    """One row per key: the last one, as ``--resume`` reads a file (a rerun's row wins)."""
    latest: dict[RowKey, ResultRow] = {}
    for row in rows:
        latest[row_key(row)] = row
    return latest


def _change(old: ResultRow | None, new: ResultRow | None, pass_mark: float) -> Change:
    if old is None:
        return "new"
    if new is None:
        return "removed"
    before, after = passed(old, pass_mark), passed(new, pass_mark)
    if before == after:
        return "unchanged"
    return "improved" if after else "regressed"


def compare_rows(
    old: Iterable[ResultRow], new: Iterable[ResultRow], *, pass_mark: float = 0.5
) -> Comparison:
    """Match the rows of two runs on ``(eval_file, eval_id, target, repeat)`` and classify
    each key."""
    before, after = _latest(old), _latest(new)
    changes = [
        RowChange(key, _change(before.get(key), row, pass_mark), before.get(key), row, pass_mark)
        for key, row in after.items()
    ]
    changes.extend(
        RowChange(key, "removed", row, None, pass_mark)
        for key, row in before.items()
        if key not in after
    )
    return Comparison(tuple(changes))
