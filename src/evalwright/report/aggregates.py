"""The report's aggregate views (docs/report.md#aggregate-views), counted as the rows stream by:
per column its reliability over repeats (pass@k, pass^k, the flaky cases), each evaluator's
pass rate and the mean score with its interval; per results file its cost; every tag; and
the paired comparison of the columns, or of each target with its baseline, as
:mod:`evalwright.stats.paired` computes it for ``evalwright compare``.

Kept per row meanwhile: its case, repeat, whether it ran, its score and verdict (for pairing
and the repeats), a few numbers per evaluator name, nothing of its text.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import JsonValue

from evalwright.report.overview import Column
from evalwright.results.parts import EvaluatorResult
from evalwright.results.row import ResultRow
from evalwright.results.verdict import verdict
from evalwright.stats.compare import Comparison, passed
from evalwright.stats.paired import Pair, PairedDifference, paired_difference
from evalwright.stats.reliability import CaseTally, Reliability

Json = dict[str, JsonValue]
CaseKey = tuple[str, str]
"""A case: its eval file and eval id."""

KS = (1, 2, 3, 5, 10, 20, 50, 100)
"""The k at which pass@k and pass^k are shown (and the most repeats any case ran)."""


@dataclass(slots=True)
class EvaluatorTally:
    """One evaluator name's verdicts on one column: results, ok ones, passing ones."""

    type: str
    results: int = 0
    ok: int = 0
    passed: int = 0
    score_sum: float = 0.0

    def add(self, result: EvaluatorResult, pass_mark: float) -> None:
        """Count one verdict (an error only as a result)."""
        self.results += 1
        if result.status != "ok" or result.score is None:
            return
        self.ok += 1
        self.score_sum += result.score
        self.passed += verdict(True, result.score, result.passed, pass_mark)

    def json(self, name: str) -> Json:
        """The tally as the page shows it."""
        return {
            "name": name,
            "type": self.type,
            "results": self.results,
            "ok": self.ok,
            "passed": self.passed,
            "pass_rate": self.passed / self.ok if self.ok else None,
            "mean": self.score_sum / self.ok if self.ok else None,
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """What pairing keeps of a row: its score when it has one, and whether it passed."""

    score: float | None
    passed: bool


@dataclass(slots=True)
class ColumnTally:
    """One column's rows as they stream by."""

    pass_mark: float
    cases: dict[CaseKey, CaseTally] = field(default_factory=dict[CaseKey, CaseTally])
    evaluators: dict[str, EvaluatorTally] = field(default_factory=dict[str, EvaluatorTally])
    verdicts: dict[tuple[str, str, int], Verdict] = field(
        default_factory=dict[tuple[str, str, int], Verdict]
    )

    def add(self, row: ResultRow) -> None:
        """Count one row: its repeat, its evaluators (a live conversation's turns' too)."""
        ok = row.status == "ok" and row.score is not None
        verdict = passed(row, self.pass_mark)
        # One string per eval file, not one per row: a large run has few files.
        case = (sys.intern(row.eval_file), row.eval_id)
        self.cases.setdefault(case, CaseTally()).add(ok, row.score or 0.0, verdict)
        self.verdicts[(*case, row.repeat)] = Verdict(row.score if ok else None, verdict)
        for result in _evaluator_results(row):
            tally = self.evaluators.setdefault(result.name, EvaluatorTally(result.type))
            tally.add(result, self.pass_mark)

    @property
    def scored(self) -> bool:
        """Whether any of its rows has a score (ran, and was scored)."""
        return any(verdict.score is not None for verdict in self.verdicts.values())

    def json(self) -> Json:
        """Reliability, the score's interval and the evaluators' pass rates."""
        reliability = Reliability.of(self.cases.values())
        top = reliability.repeats
        ks = [k for k in KS if k < top] + [top] if top > 1 else []
        interval = reliability.ci95
        flaky: list[JsonValue] = [
            {"file": file, "case": case, "passed": t.c, "ok": t.n, "runs": t.rows}
            for (file, case), t in self.cases.items()
            if 0 < t.c < t.n
        ]
        return {
            "repeats": top,
            "pass_at": [
                {"k": k, "at": reliability.pass_at(k), "hat": reliability.pass_hat(k)} for k in ks
            ],
            "flaky": flaky,
            "score": {
                "mean": reliability.mean,
                "low": interval[0] if interval else None,
                "high": interval[1] if interval else None,
            },
            "evaluators": [tally.json(name) for name, tally in sorted(self.evaluators.items())],
        }


def _evaluator_results(row: ResultRow) -> Iterable[EvaluatorResult]:
    yield from row.evaluator_results or ()
    for turn in row.turns or ():
        yield from turn.evaluator_results


def _sum(values: Iterable[float | None]) -> float | None:
    """The sum of the known values, ``None`` when none is known (as the run summary sums)."""
    known = [value for value in values if value is not None]
    return sum(known) if known else None


def run_costs(columns: list[Column], sources: list[str]) -> list[JsonValue]:
    """Per results file, what its targets' and judges' calls cost: its columns' sums."""
    found: list[JsonValue] = []
    for index, source in enumerate(sources):
        mine = [column.stats for column in columns if column.source == index]
        found.append(
            {
                "source": source,
                "rows": sum(stats.cases for stats in mine),
                "priced": sum(stats.priced for stats in mine),
                "cost_usd": _sum(stats.cost_usd for stats in mine),
                "judge_cost_usd": _sum(stats.judge_cost_usd for stats in mine),
            }
        )
    return found


@dataclass(slots=True)
class Aggregates:
    """Every column's tally and every tag of one report."""

    pass_mark: float
    columns: list[ColumnTally] = field(default_factory=list[ColumnTally])
    tags: set[str] = field(default_factory=set[str])

    def add(self, column: int, row: ResultRow) -> None:
        """Count one row, shown in the ``column``-th column."""
        while len(self.columns) <= column:
            self.columns.append(ColumnTally(self.pass_mark))
        self.columns[column].add(row)
        self.tags.update(row.tags)

    def json(self, columns: list[Column], sources: list[str], baseline: Comparison | None) -> Json:
        """The aggregate views' data: ``columns`` the report's columns, ``sources`` its
        results files, ``baseline`` the comparison with the baseline run when there is one."""
        return {
            "columns": [column.json() for column in self.columns],
            "runs": run_costs(columns, sources),
            "tags": list[JsonValue](sorted(self.tags)),
            "paired": self._paired([column.label for column in columns], baseline),
        }

    def _paired(self, labels: list[str], baseline: Comparison | None) -> list[JsonValue]:
        """Each target against its baseline; each other column against the first column
        with a scored row (a column of errors only is compared with nothing)."""
        found: list[JsonValue] = []
        if baseline is not None:
            for label, difference in baseline.paired().items():
                found.append(paired_json("baseline", f"{label} (baseline)", label, difference))
        scored = [n for n, column in enumerate(self.columns) if column.scored]
        for b in scored[1:]:
            a = scored[0]
            pairs = list(_pairs(self.columns[a], self.columns[b]))
            if pairs:
                difference = paired_difference(pairs)
                found.append(paired_json("columns", labels[a], labels[b], difference))
        return found


def _pairs(a: ColumnTally, b: ColumnTally) -> Iterable[Pair]:
    """The rows both columns scored, matched on eval file, eval id and repeat, clustered by
    case (a pair with an error on either side is left out, as ``compare`` leaves it)."""
    for key, before in a.verdicts.items():
        after = b.verdicts.get(key)
        if after is None or before.score is None or after.score is None:
            continue
        case = f"{key[0]}\0{key[1]}"
        yield Pair(case, before.score, after.score, before.passed, after.passed)


def paired_json(kind: str, a: str, b: str, d: PairedDifference) -> Json:
    """A paired comparison of B with A as the page shows it
    (docs/statistics.md#paired-comparison)."""
    i = d.interval
    return {
        "kind": kind,
        "a": a,
        "b": b,
        "cases": d.cases,
        "pairs": d.pairs,
        "mean_a": d.mean_a,
        "mean_b": d.mean_b,
        "mean": i.mean if i else None,
        "low": i.low if i else None,
        "high": i.high if i else None,
        "p_value": i.p_value if i else None,
        "regressions": d.regressions,
        "improvements": d.improvements,
        "flips_p_value": d.flips_p_value,
        "mde": d.mde,
        "plain": d.plain(a, b),
    }
