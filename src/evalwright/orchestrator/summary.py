"""Counting a run as rows finish: per target, and whether the run passed."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evalwright.evalfile.models import PassRule
from evalwright.results.index import RowFacts
from evalwright.results.row import ResultRow, case_label
from evalwright.results.verdict import CaseGate
from evalwright.stats.judging import JudgeMetrics, JudgeTally
from evalwright.stats.reliability import CaseTally, Reliability

NAMED_CASES = 5
"""How many failed (and errored) cases the summary names before it counts the rest."""


@dataclass(slots=True)
class TargetStats:
    """One target's rows so far."""

    cases: int = 0
    errors: int = 0
    passed: int = 0
    score_sum: float = 0.0
    lossless: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    """What the target's calls cost, summed over the rows whose cost is known (``None``
    when no row's is; docs/running.md#cost)."""
    judge_cost_usd: float | None = None
    """What the judge calls of its rows cost, summed likewise."""
    last_row_at: float = 0.0
    """``time.monotonic()`` when this target's last row was written."""
    by_case: dict[tuple[str, str], CaseTally] = field(
        default_factory=dict[tuple[str, str], CaseTally], repr=False
    )
    """Each case's repeats so far, by ``(eval_file, eval_id)``."""
    gates: dict[tuple[str, str], CaseGate] = field(
        default_factory=dict[tuple[str, str], CaseGate], repr=False
    )
    """Each case's verdicts over its repeats, by ``(eval_file, eval_id)``
    (docs/running.md#gates-over-repeats)."""

    @property
    def reliability(self) -> Reliability:
        """pass@k, pass^k, the mean with its confidence interval, the spread across repeats
        and the flaky cases (docs/running.md#repeats-and-reliability)."""
        return Reliability.of(self.by_case.values())

    @property
    def ok(self) -> int:
        """Rows that ran and were scored."""
        return self.cases - self.errors

    @property
    def mean(self) -> float | None:
        """The mean score of ``ok`` rows."""
        return self.score_sum / self.ok if self.ok else None


@dataclass(slots=True)
class RunSummary:
    """The whole run: per-target stats, timing, and the verdict against the threshold."""

    results_path: Path
    total: int
    pass_mark: float = 0.5
    threshold: float | None = None
    pass_rule: PassRule = "all"
    """The run's pass rule (docs/eval-files.md#pass-rules)."""
    rules: dict[str, int] = field(default_factory=dict[str, int])
    """How many rows each pass rule decided (a file's or case's ``pass`` may differ from the
    run's; rows written before pass rules are not counted)."""
    targets: dict[str, TargetStats] = field(default_factory=dict[str, TargetStats])
    wall_seconds: float = 0.0
    started_at: float = field(default_factory=time.monotonic)
    interrupted: bool = False
    exact_total: bool = True
    """False while ``total`` is only an estimate (a streamed suite with ``--eval-id``)."""
    unreachable: dict[str, str] = field(default_factory=dict[str, str])
    """The targets the run gave up on, each with its last connection failure."""
    rate_limited: dict[str, int] = field(default_factory=dict[str, int])
    """The attempts answered 429 by a rate limit, per endpoint named by its targets
    (docs/targets.md#rate-limits)."""
    spent_usd: float = 0.0
    """What this run's calls cost, target and judge, cache hits left out (rows kept from a
    resumed file cost nothing this run)."""
    max_cost: float | None = None
    """``--max-cost``: the budget no call may cross (docs/running.md#--max-cost)."""
    not_run: int = 0
    """Cases not started, or refused by the budget before any of their calls was answered
    (docs/running.md#--max-cost)."""
    budget_stop: str | None = None
    """Why ``--max-cost`` refused the first call it refused (no new case started after)."""
    uncertain_usd: float = 0.0
    """The worst cases ``--max-cost`` kept for calls whose cost is unknown (a timeout, an
    answer without usage): not in ``spent_usd``, but counted against the budget."""
    batch_discounted: dict[str, int] = field(default_factory=dict[str, int])
    """Per target, the batch answers priced at the live price less the documented batch
    discount, the price data having no batch price (docs/batch.md#cost)."""
    cache_warnings: list[str] = field(default_factory=list[str])
    """What went wrong with the response cache, one line each: a damaged or read-only file,
    damaged entries asked again (docs/running.md#when-the-cache-is-damaged-or-read-only)."""
    judge_tally: JudgeTally = field(default_factory=JudgeTally, repr=False)
    """The judge facts of the rows counted (docs/judges.md#run-metrics)."""
    errored_cases: list[str] = field(default_factory=list[str])
    """The first few error rows, likewise (``errors`` counts them all)."""

    def add(self, row: ResultRow) -> None:
        """Count one finished row."""
        self.count(RowFacts.of(row))

    def count(self, row: RowFacts) -> None:
        """Count a row from its facts (a row a resumed file already holds, or a new one)."""
        # A prompt variant's rows count apart: ``TARGET [VARIANT]`` (docs/eval-files.md).
        stats = self.targets.setdefault(row.label, TargetStats())
        stats.cases += 1
        passed = row.verdict(self.pass_mark)
        if not row.ok:
            stats.errors += 1
            if len(self.errored_cases) < NAMED_CASES:
                self.errored_cases.append(f"{case_label(row.eval_id, row.repeat)} on {row.label}")
        else:
            stats.score_sum += row.score
            stats.passed += passed
        if row.pass_rule is not None:
            self.rules[row.pass_rule] = self.rules.get(row.pass_rule, 0) + 1
        case = (row.eval_file, row.eval_id)
        stats.by_case.setdefault(case, CaseTally()).add(row.ok, row.score, passed)
        stats.gates.setdefault(case, CaseGate()).add(row.repeat, passed, row.pass_rate)
        stats.lossless += row.lossless
        stats.cached += row.cached
        stats.input_tokens += row.input_tokens
        stats.output_tokens += row.output_tokens
        stats.cost_usd = _plus(stats.cost_usd, row.cost_usd)
        stats.judge_cost_usd = _plus(stats.judge_cost_usd, row.judge_cost_usd)
        if row.judges is not None:
            self.judge_tally.add(row.judges)
        stats.last_row_at = time.monotonic()

    def target_wall(self, name: str) -> float:
        """Seconds from the start of the run to the target's last row."""
        return max(0.0, self.targets[name].last_row_at - self.started_at)

    @property
    def done(self) -> int:
        """Rows finished so far."""
        return sum(s.cases for s in self.targets.values())

    @property
    def errors(self) -> int:
        """Rows that errored."""
        return sum(s.errors for s in self.targets.values())

    @property
    def mean(self) -> float | None:
        """The mean score of every ``ok`` row."""
        ok = sum(s.ok for s in self.targets.values())
        return sum(s.score_sum for s in self.targets.values()) / ok if ok else None

    @property
    def repeated(self) -> bool:
        """Whether some case ran more than once on a target (the summary then reports
        reliability, docs/running.md#repeats-and-reliability)."""
        return any(s.reliability.repeats > 1 for s in self.targets.values())

    @property
    def failed(self) -> int:
        """``ok`` rows that did not pass (docs/eval-files.md#pass-rules)."""
        return sum(s.ok - s.passed for s in self.targets.values())

    def failed_gates(self) -> list[str]:
        """The cases that did not pass their gate over their repeats, as ``CASE on TARGET``
        (with ``passed C of K repeats`` when repeated), errors left out: they are counted
        apart (docs/running.md#gates-over-repeats)."""
        return [
            f"{case[1]} on {name}" + (f" ({gate.describe()})" if gate.runs > 1 else "")
            for name, stats in self.targets.items()
            for case, gate in stats.gates.items()
            if not gate.passed and stats.by_case[case].n > gate.passes
        ]

    def flaky_passing(self) -> list[str]:
        """The cases that passed their gate although some repeat failed: the flaky ones a
        ``pass_rate`` lets through, named as a warning (docs/running.md#gates-over-repeats)."""
        return [
            f"{case[1]} on {name} ({gate.describe()})"
            for name, stats in self.targets.items()
            for case, gate in stats.gates.items()
            if gate.passed and gate.passes < gate.runs
        ]

    @property
    def rule_text(self) -> str:
        """The pass rule as the summary prints it: the run's, and how many rows a file's or
        case's own rule decided (docs/eval-files.md#pass-rules)."""
        others = {rule: n for rule, n in self.rules.items() if rule != self.pass_rule}
        text = f"pass rule {self.pass_rule}"
        if others:
            text += " (" + ", ".join(f"{n} row(s) {rule}" for rule, n in others.items()) + ")"
        return f"{text}, pass mark {self.pass_mark:g}"

    @property
    def cost_usd(self) -> float | None:
        """What every target's calls cost (rows of unknown cost left out; ``None`` when no
        row's cost is known)."""
        return _sum(s.cost_usd for s in self.targets.values())

    @property
    def judge_cost_usd(self) -> float | None:
        """What every judge call cost, likewise."""
        return _sum(s.judge_cost_usd for s in self.targets.values())

    @property
    def total_cost_usd(self) -> float | None:
        """Target and judge calls together, likewise."""
        return _sum((self.cost_usd, self.judge_cost_usd))

    @property
    def judges(self) -> JudgeMetrics | None:
        """The judges' run metrics, ``None`` when no judge ran (docs/judges.md#run-metrics)."""
        return self.judge_tally.metrics(self.pass_mark)

    @property
    def over_budget(self) -> bool:
        """Whether ``--max-cost`` refused a call (and so started no case after it)."""
        return self.budget_stop is not None

    def below_threshold(self) -> list[str]:
        """The targets whose mean score is below ``--threshold`` (or that have no scored row);
        none when no threshold was given (docs/running.md#exit-status)."""
        if self.threshold is None:
            return []
        return [
            name
            for name, stats in self.targets.items()
            if stats.mean is None or stats.mean < self.threshold
        ]

    def exit_code(self) -> int:
        """1 when a row errored or did not run, or the gate fails: without ``--threshold`` a
        case that did not pass its gate over its repeats, with it a target's mean below the
        threshold; else 0 (docs/running.md#exit-status)."""
        if self.errors or self.interrupted or self.over_budget or self.done < self.total:
            return 1
        if self.threshold is not None:
            return 1 if self.below_threshold() else 0
        return 1 if self.failed_gates() else 0


def _plus(total: float | None, cost: float | None) -> float | None:
    """``total`` with ``cost`` added; an unknown cost adds nothing."""
    if cost is None:
        return total
    return cost if total is None else total + cost


def _sum(costs: Iterable[float | None]) -> float | None:
    """The sum of the known costs, ``None`` when none is known."""
    total: float | None = None
    for cost in costs:
        total = _plus(total, cost)
    return total
