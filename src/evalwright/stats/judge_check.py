"""``evalwright judge-check``: each judge of a results file against human labels
(docs/judges.md#judge-check): accuracy, Cohen's kappa on pass/fail, a confusion table and the
cases where judge and human disagree."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from evalwright.errors import Diagnostic, LoadError
from evalwright.files.project import display_path
from evalwright.results.reading import winning_rows
from evalwright.results.row import ResultRow, case_label
from evalwright.stats.labels import LabelLine, read_labels

PathArg = str | os.PathLike[str]


@dataclass(frozen=True, slots=True)
class Confusion:
    """Judge against human on pass/fail: both pass, judge only, human only, neither."""

    both_pass: int = 0
    judge_only: int = 0
    human_only: int = 0
    both_fail: int = 0

    @property
    def total(self) -> int:
        """The answers compared."""
        return self.both_pass + self.judge_only + self.human_only + self.both_fail

    @property
    def accuracy(self) -> float | None:
        """The fraction on which judge and human agree (``None`` with nothing compared)."""
        return (self.both_pass + self.both_fail) / self.total if self.total else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa: agreement beyond what chance gives the two rates of passing;
        ``None`` where it is undefined (chance alone would agree every time)."""
        n = self.total
        if not n:
            return None
        observed = (self.both_pass + self.both_fail) / n
        judge_pass = (self.both_pass + self.judge_only) / n
        human_pass = (self.both_pass + self.human_only) / n
        chance = judge_pass * human_pass + (1 - judge_pass) * (1 - human_pass)
        if chance >= 1:
            return None
        return (observed - chance) / (1 - chance)

    def plus(self, judge: bool, human: bool) -> Confusion:
        """This table with one more answer counted."""
        return Confusion(
            self.both_pass + (judge and human),
            self.judge_only + (judge and not human),
            self.human_only + (human and not judge),
            self.both_fail + (not judge and not human),
        )


@dataclass(frozen=True, slots=True)
class LabelDisagreement:
    """An answer the judge and the human see differently."""

    eval_file: str
    case: str
    target: str
    judge_score: float
    judge_pass: bool
    human_pass: bool


@dataclass(frozen=True, slots=True)
class JudgeAgreement:
    """One judge against the human labels. ``judge`` is the evaluator's name and, in
    brackets, its target (a single judge or a panel member) or its aggregate."""

    judge: str
    confusion: Confusion
    no_verdict: int
    """Labelled answers on which this judge gave no verdict (left out of the table)."""
    disagreements: tuple[LabelDisagreement, ...]

    @property
    def accuracy(self) -> float | None:
        """See :attr:`Confusion.accuracy`."""
        return self.confusion.accuracy

    @property
    def kappa(self) -> float | None:
        """See :attr:`Confusion.kappa`."""
        return self.confusion.kappa


@dataclass(frozen=True, slots=True)
class JudgeCheck:
    """Every judge of a results file against the human labels."""

    results: str
    labels: str
    pass_mark: float
    labelled: int
    judges: tuple[JudgeAgreement, ...]


@dataclass(slots=True)
class _Tally:
    confusion: Confusion = field(default_factory=Confusion)
    no_verdict: int = 0
    disagreements: list[LabelDisagreement] = field(default_factory=list[LabelDisagreement])


def judge_check(results: PathArg, labels: PathArg, *, pass_mark: float = 0.5) -> JudgeCheck:
    """Compare each judge in ``results`` (a single ``llm_judge``, each panel member and each
    panel's aggregate) with the human ``labels`` (docs/judges.md#judge-check).

    A judge passes an answer when its score reaches ``pass_mark``; so does a human's
    ``score``. A label that matches no row, or several, is a located error."""
    rows = list(winning_rows(results))
    read = read_labels(labels)
    tallies: dict[str, _Tally] = {}
    for label, row in _matched(read, rows, display_path(os.fspath(labels))):
        human = label.label.human_pass(pass_mark)
        for judge, score in _verdicts(row):
            tally = tallies.setdefault(judge, _Tally())
            if score is None:
                tally.no_verdict += 1
                continue
            verdict = score >= pass_mark
            tally.confusion = tally.confusion.plus(verdict, human)
            if verdict != human:
                case = case_label(row.eval_id, row.repeat)
                found = LabelDisagreement(row.eval_file, case, row.target, score, verdict, human)
                tally.disagreements.append(found)
    judges = tuple(
        JudgeAgreement(name, t.confusion, t.no_verdict, tuple(t.disagreements))
        for name, t in tallies.items()
    )
    return JudgeCheck(os.fspath(results), os.fspath(labels), pass_mark, len(read), judges)


def _matched(
    labels: list[LabelLine], rows: Sequence[ResultRow], shown: str
) -> list[tuple[LabelLine, ResultRow]]:
    """Each label with its row; raise :class:`LoadError` for labels matching none or several."""
    by_case: dict[tuple[str, str], list[ResultRow]] = {}
    for row in rows:
        by_case.setdefault((row.eval_id, row.target), []).append(row)
    pairs: list[tuple[LabelLine, ResultRow]] = []
    problems: list[Diagnostic] = []
    for line in labels:
        label = line.label
        found = [
            row
            for row in by_case.get((label.eval_id, label.target), [])
            if label.eval_file in (None, row.eval_file) and label.repeat in (None, row.repeat)
        ]
        if len(found) == 1:
            pairs.append((line, found[0]))
            continue
        where = f"eval_id {label.eval_id!r} on target {label.target!r}"
        message = (
            f"no row of the results has {where}"
            if not found
            else f"{len(found)} rows have {where}: add 'eval_file' or 'repeat' to pick one"
        )
        problems.append(Diagnostic(shown, line.line, 1, "error", "", message))
    if problems:
        raise LoadError(problems)
    return pairs


def _verdicts(row: ResultRow) -> Iterator[tuple[str, float | None]]:
    """Each judge's score on the row: a single judge, each panel member, each aggregate."""
    for result in row.evaluator_results or ():
        if result.type != "llm_judge":
            continue
        if result.judges is None:
            yield f"{result.name} [{result.judge_target or 'judge'}]", result.score
            continue
        for member in result.judges:
            yield f"{result.name} [{member.target}]", member.score
        yield f"{result.name} [{result.aggregate or 'mean'}]", result.score
