"""What the judge metrics count of one row (docs/judges.md#run-metrics): each judge's
requests and each panel's verdicts, kept in the row index so that a resumed run counts them
over every row it kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalwright.results.parts import EvaluatorResult, JudgeTry
from evalwright.results.row import ResultRow, case_label


@dataclass(frozen=True, slots=True)
class JudgeUse:
    """One judge's requests on one row: how many, how many replies were no verdict, and how
    many requests were sent again (a second try, and transport retries)."""

    target: str
    calls: int
    parse_failures: int
    retries: int

    @classmethod
    def of(cls, target: str, tries: Sequence[JudgeTry]) -> JudgeUse:
        """Counted from the judge's recorded tries."""
        retries = max(len(tries) - 1, 0) + sum(max(t.attempts - 1, 0) for t in tries)
        failures = sum(t.outcome == "no_verdict" for t in tries)
        return cls(target, len(tries), failures, retries)


@dataclass(frozen=True, slots=True)
class PanelUnit:
    """One panel's verdicts on one row: the judges in order, and each one's score (``None``
    for a judge that gave no verdict)."""

    case: str
    target: str
    evaluator: str
    judges: tuple[str, ...]
    scores: tuple[float | None, ...]


@dataclass(frozen=True, slots=True)
class JudgeFacts:
    """What the judge metrics count of one row."""

    uses: tuple[JudgeUse, ...] = ()
    panels: tuple[PanelUnit, ...] = ()

    @classmethod
    def of(cls, row: ResultRow) -> JudgeFacts | None:
        """The row's judge facts, ``None`` when no judge ran on it: its own evaluators' and
        each turn's of a live conversation (docs/conversations.md#the-row)."""
        uses: list[JudgeUse] = []
        panels: list[PanelUnit] = []
        label = case_label(row.eval_id, row.repeat)
        groups = [(label, row.evaluator_results or ())]
        groups += [(f"{label} turn {t.turn}", t.evaluator_results) for t in row.turns or ()]
        for unit_label, results in groups:
            for result in results:
                if result.judge_target is not None and result.tries is not None:
                    uses.append(JudgeUse.of(result.judge_target, result.tries))
                if result.judges:
                    uses.extend(JudgeUse.of(j.target, j.tries) for j in result.judges)
                    panels.append(_unit(row, result, unit_label))
        if not uses:
            return None
        return cls(tuple(uses), tuple(panels))


def _unit(row: ResultRow, result: EvaluatorResult, label: str) -> PanelUnit:
    judges = result.judges or ()
    return PanelUnit(
        case=label,
        target=row.target,
        evaluator=result.name,
        judges=tuple(j.target for j in judges),
        scores=tuple(j.score for j in judges),
    )
