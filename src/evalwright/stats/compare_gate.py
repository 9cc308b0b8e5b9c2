"""``compare --fail-on``: what the chosen gate judges and which of it fails
(docs/statistics.md#gating-on-a-comparison). One decision read by the exit status, the terminal
text, the JUnit file and the Markdown summary, so they cannot disagree.

- ``regression`` judges each key both sides hold: it fails when it passed before and not now;
  a case with a ``pass_rate`` is judged whole, over its repeats: it fails when it met its
  gate before and does not now (docs/running.md#gates-over-repeats).
- ``score-drop`` judges each key both sides scored: it fails when its score fell by the drop
  or more, whether its verdict flipped or not.
- ``significant-regression`` judges each target: it fails when the 95% interval of the
  paired difference lies below zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evalwright.results.row import case_label, target_label
from evalwright.results.verdict import CaseGate
from evalwright.stats.compare import Comparison, RowChange, passed

FailOn = Literal["regression", "significant-regression", "score-drop"]
FAIL_ON: tuple[FailOn, ...] = ("regression", "significant-regression", "score-drop")
DEFAULT_SCORE_DROP = 0.2
"""The drop ``--fail-on score-drop`` gates on when ``--score-drop`` is not given."""


@dataclass(frozen=True, slots=True)
class Judged:
    """One thing the gate judged: a key (``group`` its eval file, ``name`` its case and
    target) or a target (``group`` ``paired``), and why it failed (``None``: it passed)."""

    group: str
    name: str
    failure: str | None
    key: RowChange | None = None
    """The key's change, for a key (``None`` for a target)."""


@dataclass(frozen=True, slots=True)
class CompareGate:
    """The verdict of ``--fail-on`` on a comparison."""

    rule: FailOn
    score_drop: float | None
    judged: tuple[Judged, ...]

    @property
    def failures(self) -> list[Judged]:
        """What failed the gate, in the comparison's order."""
        return [j for j in self.judged if j.failure is not None]

    @property
    def tripped(self) -> bool:
        """Whether the gate fails (``compare`` exits 1)."""
        return any(j.failure is not None for j in self.judged)

    @property
    def described(self) -> str:
        """The gate in words: ``--fail-on score-drop 0.2``."""
        drop = f" {self.score_drop:g}" if self.rule == "score-drop" else ""
        return f"--fail-on {self.rule}{drop}"


def _key_name(change: RowChange) -> str:
    _, eval_id, target, repeat, variant = change.key
    return f"{case_label(eval_id, repeat)} [{target_label(target, variant)}]"


def _shown(score: float | None) -> str:
    return "error" if score is None else f"{score:.3f}"


def _scores(change: RowChange) -> str:
    """``0.900 → 0.600``: a key's score before and after (both sides hold it)."""
    before = change.before.score if change.before is not None else None
    after = change.after.score if change.after is not None else None
    return f"{_shown(before)} \u2192 {_shown(after)}"


def _regression(change: RowChange) -> str | None:
    if change.change != "regressed":
        return None
    return f"regressed: passed before, not now (score {_scores(change)})"


def _drop(change: RowChange, at_least: float) -> str | None:
    delta = change.score_delta
    if delta is None or -delta < at_least:
        return None
    return f"score fell by {-delta:.3f} ({_scores(change)}), {at_least:g} or more"


def _gated(change: RowChange) -> bool:
    """Whether the key's case has a pass rate on either side (then judged over its repeats)."""
    return any(s is not None and s.pass_rate is not None for s in (change.before, change.after))


def _keys(comparison: Comparison, rule: FailOn, drop: float) -> list[Judged]:
    judged: list[Judged] = []
    for change in comparison.changes:
        if change.before is None or change.after is None:
            continue  # a new or removed key has nothing to be judged against
        if rule == "regression" and _gated(change):
            continue  # its case is judged whole, by _cases
        failure = _regression(change) if rule == "regression" else _drop(change, drop)
        judged.append(Judged(change.key[0], _key_name(change), failure, change))
    return judged


def _cases(comparison: Comparison) -> list[Judged]:
    """Each case with a pass rate, judged over the repeats both sides hold: a regression when
    it met its gate before and does not now."""
    sides: dict[tuple[str, str, str, str | None], tuple[CaseGate, CaseGate]] = {}
    for change in comparison.changes:
        before, after = change.before, change.after
        if before is None or after is None or not _gated(change):
            continue
        eval_file, eval_id, target, repeat, variant = change.key
        old, new = sides.setdefault((eval_file, eval_id, target, variant), (CaseGate(), CaseGate()))
        old.add(repeat, passed(before, change.pass_mark), before.pass_rate)
        new.add(repeat, passed(after, change.pass_mark), after.pass_rate)
    judged: list[Judged] = []
    for (eval_file, eval_id, target, variant), (old, new) in sides.items():
        failure = None
        if old.passed and not new.passed:
            failure = f"regressed: {old.describe()} before, {new.describe()} now"
        judged.append(Judged(eval_file, f"{eval_id} [{target_label(target, variant)}]", failure))
    return judged


def _targets(comparison: Comparison, names: tuple[str, str]) -> list[Judged]:
    judged: list[Judged] = []
    for label, difference in comparison.paired().items():
        interval = difference.interval
        below = interval is not None and interval.high < 0
        judged.append(Judged("paired", label, difference.plain(*names) if below else None))
    return judged


def compare_gate(
    comparison: Comparison,
    rule: FailOn = "regression",
    score_drop: float | None = None,
    names: tuple[str, str] = ("OLD", "NEW"),
) -> CompareGate:
    """Judge ``comparison`` by ``rule`` (``score_drop``: the drop ``score-drop`` gates on,
    :data:`DEFAULT_SCORE_DROP` when ``None``); ``names`` name the two sides in a target's
    finding (docs/statistics.md#gating-on-a-comparison)."""
    drop = DEFAULT_SCORE_DROP if score_drop is None else score_drop
    if rule == "significant-regression":
        return CompareGate(rule, score_drop, tuple(_targets(comparison, names)))
    shown = drop if rule == "score-drop" else score_drop
    cases = _cases(comparison) if rule == "regression" else []
    return CompareGate(rule, shown, (*_keys(comparison, rule, drop), *cases))
