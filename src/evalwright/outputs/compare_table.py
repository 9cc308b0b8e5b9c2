"""``evalwright compare`` in the terminal (docs/running.md#evalwright-compare): the keys that
changed, then per target the mean score and pass rate before and after."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from evalwright.errors import printable
from evalwright.results.row import case_label, target_label
from evalwright.stats.compare import (
    CHANGES,
    Change,
    Comparison,
    RowChange,
    Scored,
    Verdict,
    passed,
)
from evalwright.stats.paired import PairedDifference

_SHOWN: tuple[Change, ...] = tuple(change for change in CHANGES if change != "unchanged")


@dataclass(slots=True)
class Side:
    """One target's rows on one side: rows, ``ok`` rows, their score sum, passes."""

    rows: int = 0
    ok: int = 0
    score_sum: float = 0.0
    passed: int = 0

    def add(self, row: Verdict, pass_mark: float) -> None:
        """Count one row."""
        self.rows += 1
        if row.status == "ok" and row.score is not None:
            self.ok += 1
            self.score_sum += row.score
        self.passed += passed(row, pass_mark)

    @property
    def mean(self) -> float | None:
        """The mean score of the ``ok`` rows."""
        return self.score_sum / self.ok if self.ok else None

    @property
    def pass_rate(self) -> float | None:
        """Passed rows out of all rows (an error row does not pass)."""
        return self.passed / self.rows if self.rows else None


@dataclass(slots=True)
class TargetDelta:
    """One target before and after."""

    before: Side = field(default_factory=Side)
    after: Side = field(default_factory=Side)


def target_deltas(comparison: Comparison) -> dict[str, TargetDelta]:
    """Per target (in the order targets first appear), both sides' counts."""
    deltas: dict[str, TargetDelta] = {}
    for change in comparison.changes:
        delta = deltas.setdefault(target_label(change.key[2], change.key[4]), TargetDelta())
        if change.before is not None:
            delta.before.add(change.before, change.pass_mark)
        if change.after is not None:
            delta.after.add(change.after, change.pass_mark)
    return deltas


def _score(row: Scored | None) -> str:
    if row is None:
        return "-"
    return "error" if row.score is None else f"{row.score:.3f}"


def _number(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:.1%}" if percent else f"{value:.3f}"


def _delta(before: float | None, after: float | None, percent: bool = False) -> str:
    if before is None or after is None:
        return "-"
    return f"{after - before:+.1%}" if percent else f"{after - before:+.3f}"


def _aligned(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _change_rows(changes: Iterable[RowChange]) -> list[tuple[str, ...]]:
    head = ("change", "eval file", "case", "target", "before", "after", "delta")
    rows: list[tuple[str, ...]] = [head]
    for c in changes:
        delta = "-" if c.score_delta is None else f"{c.score_delta:+.3f}"
        eval_file, eval_id, target, repeat, variant = c.key
        case = case_label(eval_id, repeat)
        rows.append(
            (
                c.change,
                eval_file,
                case,
                target_label(target, variant),
                _score(c.before),
                _score(c.after),
                delta,
            )
        )
    return rows


def _target_rows(comparison: Comparison) -> list[tuple[str, ...]]:
    head = ("target", "cases", "mean before", "mean after", "delta", "passed before")
    rows: list[tuple[str, ...]] = [(*head, "passed after", "delta")]
    for name, d in target_deltas(comparison).items():
        b, a = d.before, d.after
        rows.append(
            (
                name,
                f"{b.rows}/{a.rows}",
                _number(b.mean),
                _number(a.mean),
                _delta(b.mean, a.mean),
                _number(b.pass_rate, True),
                _number(a.pass_rate, True),
                _delta(b.pass_rate, a.pass_rate, True),
            )
        )
    return rows


def _paired_lines(
    comparison: Comparison, names: tuple[str, str], effect: float | None
) -> list[str]:
    """Per target, the paired difference, its interval and tests, then in words
    (docs/statistics.md#paired-comparison)."""
    found = comparison.paired()
    if not found:
        return []
    head = ("paired", "pairs", "cases", "difference", "95% CI", "p", "flips -/+", "p flips")
    rows: list[tuple[str, ...]] = [(*head, "detectable")]
    words: list[str] = []
    for label, d in found.items():
        i = d.interval
        rows.append(
            (
                label,
                str(d.pairs),
                str(d.cases),
                "-" if i is None else f"{i.mean:+.3f}",
                "-" if i is None else f"{i.low:+.3f} to {i.high:+.3f}",
                "-" if i is None else f"{i.p_value:.3g}",
                f"{d.regressions}/{d.improvements}",
                f"{d.flips_p_value:.3g}",
                "-" if d.mde is None else f"{d.mde:.3f}",
            )
        )
        words.append(f"{label}: {d.plain(*names)}")
        needed = d.cases_needed(effect) if effect is not None else None
        if effect is not None and needed is not None:
            words.append(
                f"{label}: to detect {effect:g} (95% confidence, 80% power) needs about "
                f"{needed} cases like these ({d.cases} now){_repeats_said(d, effect)}"
            )
    return [*_aligned(rows), *words, ""]


def _repeats_said(d: PairedDifference, effect: float) -> str:
    if d.spread is None:
        return ""
    now = f"{d.spread.repeats:.3g} now"
    repeats = d.repeats_needed(effect)
    if repeats is None:
        return f"; more repeats of these cases alone cannot ({now}): the cases differ too much"
    return f", or {repeats} repeats of each of these {d.cases} cases ({now})"


def compare_text(
    comparison: Comparison,
    names: tuple[str, str] = ("OLD", "NEW"),
    score_drop: float | None = None,
    effect: float | None = None,
) -> str:
    """The changed keys (most urgent first), the keys whose score fell by ``score_drop`` or
    more without a flip, the per-target deltas, the paired statistics, and the counts."""
    lines: list[str] = []
    changed = [c for kind in _SHOWN for c in comparison.of(kind)]
    if changed:
        lines += [*_aligned(_change_rows(changed)), ""]
    if score_drop is not None:
        quiet = [c for c in comparison.dropped(score_drop) if c.change == "unchanged"]
        if quiet:
            lines += [f"score dropped by {score_drop:g} or more, same verdict:"]
            lines += [*_aligned(_change_rows(quiet)), ""]
    if comparison.changes:
        lines += [*_aligned(_target_rows(comparison)), ""]
        lines += _paired_lines(comparison, names, effect)
    counts = comparison.counts()
    pass_mark = comparison.changes[0].pass_mark if comparison.changes else 0.5
    lines.append(
        ", ".join(f"{counts[kind]} {kind}" for kind in CHANGES) + f" (pass mark {pass_mark:g})"
    )
    return printable("\n".join(lines))
