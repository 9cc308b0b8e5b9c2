"""Which row of a results file stands for each ``(eval_file, eval_id, target, repeat,
variant)``, without holding the rows: a resumed file may hold several rows of one key (a
rerun appends its row), and the index keeps, per key, the winner's few numbers and where its
line starts.

The last row of a key wins, except that an ``ok`` row is never replaced by an error row
older than it (docs/running.md#--resume).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Protocol

from evalwright.results.judge_facts import JudgeFacts
from evalwright.results.row import ResultRow, target_label
from evalwright.results.verdict import verdict

RowKey = tuple[str, str, str, int, str | None]


def row_key(row: ResultRow) -> RowKey:
    """``(eval_file, eval_id, target, repeat, variant)``: what identifies a row across runs
    (``variant`` is ``None`` without prompt variants)."""
    # A file's rows share a few eval files and targets: one string each, however many keys
    # an index or a comparison keeps.
    variant = sys.intern(row.variant) if row.variant is not None else None
    return (sys.intern(row.eval_file), row.eval_id, sys.intern(row.target), row.repeat, variant)


@dataclass(frozen=True, slots=True)
class RowFacts:
    """What the summary counts of a row, and what decides which row of a key wins."""

    target: str
    eval_file: str
    eval_id: str
    repeat: int
    ok: bool
    score: float
    lossless: bool
    cached: bool
    input_tokens: int
    output_tokens: int
    timestamp: str
    cost_usd: float | None = None
    judge_cost_usd: float | None = None
    judges: JudgeFacts | None = None
    """What the judge metrics count of the row (docs/judges.md#run-metrics)."""
    variant: str | None = None
    """The row's prompt variant (docs/eval-files.md#prompt-variants)."""
    passed: bool | None = None
    """The row's recorded verdict (``None`` on an error and in rows written before them)."""
    pass_rate: float | None = None
    """The share of the case's repeats that must pass (docs/running.md#gates-over-repeats)."""
    pass_rule: str | None = None
    """The rule that decided ``passed`` (docs/eval-files.md#pass-rules)."""

    def verdict(self, pass_mark: float) -> bool:
        """Whether the row passed (:func:`evalwright.results.verdict.verdict`)."""
        return verdict(self.ok, self.score, self.passed, pass_mark)

    @property
    def label(self) -> str:
        """The target as the summary names it: with the variant, when the row has one."""
        return target_label(self.target, self.variant)

    @classmethod
    def of(cls, row: ResultRow) -> RowFacts:
        """The facts of a row (what it does not report counts as 0)."""
        usage = row.usage
        return cls(
            target=row.target,
            eval_file=row.eval_file,
            eval_id=row.eval_id,
            repeat=row.repeat,
            ok=row.status == "ok",
            score=row.score or 0.0,
            lossless=not row.delivery_notes,
            cached=row.cache == "hit",
            input_tokens=(usage.input_tokens or 0) if usage else 0,
            output_tokens=(usage.output_tokens or 0) if usage else 0,
            timestamp=row.timestamp,
            cost_usd=row.cost_usd,
            judge_cost_usd=row.judge_cost_usd,
            judges=JudgeFacts.of(row),
            variant=row.variant,
            passed=row.passed,
            pass_rate=row.pass_rate,
            pass_rule=row.pass_rule,
        )


class Standing(Protocol):
    """What decides which of two rows of a key wins: whether it ran, and when it was written."""

    @property
    def ok(self) -> bool:
        """Whether the row ran (``status`` ``ok``)."""
        ...

    @property
    def timestamp(self) -> str:
        """When the row was written."""
        ...


def supersedes(new: Standing, old: Standing) -> bool:
    """Whether a row read (or written) after another row of its key replaces it."""
    return new.ok or not old.ok or new.timestamp > old.timestamp


@dataclass(slots=True)
class IndexEntry:
    """A key's winning row: its facts and the byte offset of its line."""

    facts: RowFacts
    offset: int


class RowIndex:
    """One entry per key, in the order keys first appeared."""

    def __init__(self) -> None:
        self.entries: dict[RowKey, IndexEntry] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: RowKey) -> RowFacts | None:
        """The facts of the row that stands for ``key``, if any."""
        entry = self.entries.get(key)
        return entry.facts if entry else None

    def wins(self, key: RowKey, facts: RowFacts) -> bool:
        """Whether a row with ``facts``, coming after the current winner, would replace it."""
        entry = self.entries.get(key)
        return entry is None or supersedes(facts, entry.facts)

    def offer(self, key: RowKey, facts: RowFacts, offset: int) -> None:
        """A row of ``key`` whose line starts at ``offset``; it becomes the winner if it wins."""
        entry = self.entries.get(key)
        if entry is None:
            self.entries[key] = IndexEntry(facts, offset)
        elif supersedes(facts, entry.facts):
            entry.facts, entry.offset = facts, offset
