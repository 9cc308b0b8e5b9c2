"""Run metrics of the judges (docs/judges.md#run-metrics), counted from the rows so that a
resumed run reports them over every row it kept: per judge target its calls, the replies
that were no verdict and the retries; per panel the judges' agreement, Krippendorff's alpha
on their scores and the cases they disagree on most."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from evalwright.results.judge_facts import JudgeFacts, PanelUnit
from evalwright.results.row import ResultRow
from evalwright.stats.alpha import krippendorff_alpha

TOP_DISAGREEMENTS = 5
"""How many of the cases with the largest score spread a panel's metrics list."""


@dataclass(frozen=True, slots=True)
class JudgeTargetStats:
    """One judge target over the run: requests, replies that were no verdict, retries."""

    calls: int = 0
    parse_failures: int = 0
    retries: int = 0


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A case a panel's judges disagree on: the spread of their scores (largest minus
    smallest) and each judge's score."""

    case: str
    target: str
    evaluator: str
    spread: float
    scores: dict[str, float | None]


@dataclass(frozen=True, slots=True)
class PanelAgreement:
    """How far a panel's judges agree over the cases they all judged (docs/judges.md#run-metrics).

    ``agreement`` is the fraction of cases on which every judge that answered gave the same
    pass/fail at the pass mark; ``alpha`` is Krippendorff's alpha on the scores (interval
    metric), ``None`` when it is undefined (no case with two scores)."""

    judges: tuple[str, ...]
    cases: int
    agreement: float | None
    alpha: float | None
    disagreements: tuple[Disagreement, ...]


@dataclass(frozen=True, slots=True)
class JudgeMetrics:
    """The judges of a run: per judge target, and per panel."""

    targets: dict[str, JudgeTargetStats]
    panels: tuple[PanelAgreement, ...] = ()


@dataclass(slots=True)
class JudgeTally:
    """Judge facts as rows are counted."""

    uses: dict[str, JudgeTargetStats] = field(default_factory=dict[str, JudgeTargetStats])
    units: list[PanelUnit] = field(default_factory=list[PanelUnit])

    def add(self, facts: JudgeFacts) -> None:
        """Count one row's facts."""
        for use in facts.uses:
            old = self.uses.get(use.target, JudgeTargetStats())
            self.uses[use.target] = JudgeTargetStats(
                old.calls + use.calls,
                old.parse_failures + use.parse_failures,
                old.retries + use.retries,
            )
        self.units.extend(facts.panels)

    def metrics(self, pass_mark: float) -> JudgeMetrics | None:
        """The metrics, ``None`` when no judge ran."""
        if not self.uses:
            return None
        panels: dict[tuple[str, ...], list[PanelUnit]] = {}
        for unit in self.units:
            panels.setdefault(unit.judges, []).append(unit)
        agreements = tuple(panel_agreement(units, pass_mark) for units in panels.values())
        return JudgeMetrics(dict(sorted(self.uses.items())), agreements)


def judge_metrics(rows: Iterable[ResultRow], pass_mark: float = 0.5) -> JudgeMetrics | None:
    """The judge metrics of rows (each key's winning row only, as a results file's reader
    gives them); ``None`` when no judge ran on any."""
    tally = JudgeTally()
    for row in rows:
        facts = JudgeFacts.of(row)
        if facts is not None:
            tally.add(facts)
    return tally.metrics(pass_mark)


def panel_agreement(units: Sequence[PanelUnit], pass_mark: float) -> PanelAgreement:
    """One panel's agreement over its cases (every unit has the same judges)."""
    judges = units[0].judges
    judged = [[s for s in unit.scores if s is not None] for unit in units]
    verdicts = [{s >= pass_mark for s in scores} for scores in judged if len(scores) > 1]
    agreement = sum(len(v) == 1 for v in verdicts) / len(verdicts) if verdicts else None
    spread = [
        Disagreement(
            unit.case,
            unit.target,
            unit.evaluator,
            max(scores) - min(scores),
            dict(zip(judges, unit.scores, strict=True)),
        )
        for unit, scores in zip(units, judged, strict=True)
        if len(scores) > 1 and max(scores) > min(scores)
    ]
    # Rounded so that float noise does not order equal spreads; ties in case order.
    spread.sort(key=lambda d: (-round(d.spread, 9), d.case, d.target, d.evaluator))
    return PanelAgreement(
        judges,
        len(units),
        agreement,
        krippendorff_alpha(judges, [unit.scores for unit in units]),
        tuple(spread[:TOP_DISAGREEMENTS]),
    )
