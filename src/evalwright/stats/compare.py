"""Comparing two runs: each ``(eval_file, eval_id, target, repeat)`` marked improved, regressed,
unchanged, new or removed (docs/running.md#evalwright-compare).

A row passes as it recorded under its pass rule (docs/eval-files.md#pass-rules; a row
written before pass rules: it ran and scored at least the pass mark). A regression is a row
that passed before and does not now (it failed or errored); an improvement is the reverse.
A row whose verdict stayed the same is unchanged, whatever its score did: the score delta
is reported, but judges are noisy and a CI gate must not trip on noise.

A comparison keeps of each row only its status, its score and where its line is: the rows
themselves are read back from their files when asked for, so comparing large files costs
little memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from evalwright.results.index import RowKey, row_key
from evalwright.results.parts import Status
from evalwright.results.reading import read_back, read_placed
from evalwright.results.row import ResultRow, target_label
from evalwright.results.verdict import verdict
from evalwright.stats.paired import Pair, PairedDifference, paired_difference

Change = Literal["improved", "regressed", "unchanged", "new", "removed"]
CHANGES: tuple[Change, ...] = ("regressed", "improved", "new", "removed", "unchanged")
"""Every kind of change, most urgent first (the order reports list them in)."""

PathArg = str | os.PathLike[str]


class Verdict(Protocol):
    """What deciding whether a row passed needs: its status and its score."""

    @property
    def status(self) -> Status:
        """``ok`` or ``error``."""
        ...

    @property
    def score(self) -> float | None:
        """The row's score (``None`` on an error)."""
        ...

    @property
    def passed(self) -> bool | None:
        """The row's recorded verdict (``None`` on an error and in older rows)."""
        ...


def passed(row: Verdict, pass_mark: float) -> bool:
    """Whether a row passed: its recorded verdict, or for a row written before pass rules
    its score at ``pass_mark`` (:func:`evalwright.results.verdict.verdict`)."""
    return verdict(row.status == "ok", row.score, row.passed, pass_mark)


@dataclass(frozen=True, slots=True)
class Scored:
    """What a comparison keeps of a row: its status and score, and where its line is (its
    file, the line's byte offset and a hash of the line)."""

    status: Status
    score: float | None
    path: str
    offset: int
    digest: int
    passed: bool | None = None
    """The row's recorded verdict (docs/eval-files.md#pass-rules)."""
    pass_rate: float | None = None
    """The case's pass rate over its repeats (docs/running.md#gates-over-repeats)."""

    def row(self) -> ResultRow:
        """The row, read back from its file (:class:`ConfigError` when the file changed)."""
        (row,) = read_back(self.path, [(self.offset, self.digest)])
        return row


@dataclass(frozen=True, slots=True)
class RowChange:
    """One key's rows before and after, and what changed."""

    key: RowKey
    change: Change
    before: Scored | None
    after: Scored | None
    pass_mark: float

    @property
    def old(self) -> ResultRow | None:
        """The row before (read back from its file), ``None`` for a new key."""
        return self.before.row() if self.before is not None else None

    @property
    def new(self) -> ResultRow | None:
        """The row after (read back from its file), ``None`` for a removed key."""
        return self.after.row() if self.after is not None else None

    @property
    def score_delta(self) -> float | None:
        """The new score less the old one, when both rows have a score."""
        if self.before is None or self.after is None:
            return None
        if self.before.score is None or self.after.score is None:
            return None
        return self.after.score - self.before.score


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

    def paired(self) -> dict[str, PairedDifference]:
        """Per target (``TARGET [VARIANT]``), the paired difference of the keys both sides
        scored, clustered by case over its repeats (docs/statistics.md#paired-comparison)."""
        found: dict[str, list[Pair]] = {}
        for c in self.changes:
            before, after = c.before, c.after
            if before is None or after is None or before.score is None or after.score is None:
                continue
            eval_file, eval_id, target, _, variant = c.key
            case = f"{eval_file}\0{eval_id}\0{target}\0{variant}"
            pair = Pair(
                case,
                before.score,
                after.score,
                passed(before, c.pass_mark),
                passed(after, c.pass_mark),
            )
            found.setdefault(target_label(target, variant), []).append(pair)
        return {label: paired_difference(pairs) for label, pairs in found.items()}

    def dropped(self, at_least: float) -> list[RowChange]:
        """The keys whose score fell by ``at_least`` or more, a verdict flip or not."""
        return [c for c in self.changes if c.score_delta is not None and -c.score_delta >= at_least]

    def counts(self) -> dict[Change, int]:
        """How many keys have each change (every kind present, zero or not)."""
        counts: dict[Change, int] = dict.fromkeys(CHANGES, 0)
        for change in self.changes:
            counts[change.change] += 1
        return counts


def side_by_side(
    scored: Mapping[RowKey, Scored], dimension: Literal["target", "variant"], a: str, b: str
) -> tuple[dict[RowKey, Scored], dict[RowKey, Scored]]:
    """One run's rows of target (or prompt variant) ``a`` and of ``b`` as two sides keyed
    alike, that part of the key written ``a → b``: a comparison of two targets or two
    variants of one run (docs/statistics.md#paired-comparison)."""
    sides: tuple[dict[RowKey, Scored], dict[RowKey, Scored]] = ({}, {})
    label = f"{a} \u2192 {b}"
    for key, row in scored.items():
        eval_file, eval_id, target, repeat, variant = key
        which = target if dimension == "target" else variant
        if which not in (a, b):
            continue
        if dimension == "target":
            renamed: RowKey = (eval_file, eval_id, label, repeat, variant)
        else:
            renamed = (eval_file, eval_id, target, repeat, label)
        sides[which == b][renamed] = row
    return sides


def latest_scored(paths: Iterable[PathArg]) -> dict[RowKey, Scored]:
    """One row per key over the files, streamed: the last one, as ``--resume`` reads a file
    (a rerun's row wins), in the order keys first appeared."""
    latest: dict[RowKey, Scored] = {}
    for path in paths:
        shown = os.fspath(path)
        for placed in read_placed(path):
            row = placed.row
            place = (shown, placed.offset, placed.digest)
            scored = Scored(row.status, row.score, *place, row.passed, row.pass_rate)
            latest[row_key(row)] = scored
    return latest


def _change(old: Scored | None, new: Scored | None, pass_mark: float) -> Change:
    if old is None:
        return "new"
    if new is None:
        return "removed"
    before, after = passed(old, pass_mark), passed(new, pass_mark)
    if before == after:
        return "unchanged"
    return "improved" if after else "regressed"


def compare_scored(
    before: Mapping[RowKey, Scored], after: Mapping[RowKey, Scored], *, pass_mark: float = 0.5
) -> Comparison:
    """Match two runs' rows (one per key each) on ``(eval_file, eval_id, target, repeat,
    variant)`` and classify each key."""
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
