"""The report's per-target numbers (docs/report.md#what-the-report-holds), counted as the rows
stream by: nothing of a row is kept but its latency (for the percentiles) and the span of
the run's times."""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import JsonValue

from evalwright.results.row import ResultRow
from evalwright.stats.compare import passed

Json = dict[str, JsonValue]


def percentile(values: Sequence[float], fraction: float) -> float | None:
    """The nearest-rank percentile of ``values`` (None when there are none)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def _seconds(timestamp: str) -> float | None:
    try:
        return datetime.fromisoformat(timestamp).timestamp()
    except ValueError:
        return None


@dataclass(slots=True)
class Overview:
    """One target's numbers, counted as the run summary counts them
    (docs/running.md#progress-and-the-summary-table)."""

    pass_mark: float
    cases: int = 0
    ok: int = 0
    score_sum: float = 0.0
    passed: int = 0
    lossless: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    priced: int = 0
    """Rows whose target cost is known (docs/running.md#cost)."""
    cost_usd: float | None = None
    """What the target's calls cost, rows of unknown cost left out (``None`` when no row's
    cost is known, as the run summary sums it)."""
    judge_cost_usd: float | None = None
    """What its rows' judge calls cost, likewise."""
    latencies: array[float] = field(default_factory=lambda: array("d"))
    start: float | None = None
    """The first row's start (its finish less its latency)."""
    end: float | None = None
    """The last row's finish."""

    def add(self, row: ResultRow) -> None:
        """Count one row."""
        self.cases += 1
        if row.status == "ok":
            self.ok += 1
            self.score_sum += row.score or 0.0
        self.passed += passed(row, self.pass_mark)
        self.lossless += not row.delivery_notes
        if row.usage is not None:
            self.input_tokens += row.usage.input_tokens or 0
            self.output_tokens += row.usage.output_tokens or 0
        if row.latency_ms is not None:
            self.latencies.append(row.latency_ms)
        self._cost(row)
        self._span(row)

    def _cost(self, row: ResultRow) -> None:
        if row.cost_usd is not None:
            self.priced += 1
            self.cost_usd = (self.cost_usd or 0.0) + row.cost_usd
        if row.judge_cost_usd is not None:
            self.judge_cost_usd = (self.judge_cost_usd or 0.0) + row.judge_cost_usd

    def _span(self, row: ResultRow) -> None:
        end = _seconds(row.timestamp)
        if end is None:
            return
        start = end - (row.latency_ms or 0.0) / 1000
        self.start = start if self.start is None else min(self.start, start)
        self.end = end if self.end is None else max(self.end, end)

    def json(self) -> Json:
        """The numbers as the page shows them."""
        count = self.cases
        wall = None
        if self.start is not None and self.end is not None:
            wall = max(0.0, self.end - self.start)
        return {
            "cases": count,
            "mean": self.score_sum / self.ok if self.ok else None,
            "passed": self.passed,
            "pass_rate": self.passed / count if count else None,
            "errors": count - self.ok,
            "lossless": self.lossless,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
            "judge_cost_usd": self.judge_cost_usd,
            "mean_cost_usd": self.cost_usd / self.priced if self.cost_usd is not None else None,
            "latency_p50": percentile(self.latencies, 0.5),
            "latency_p95": percentile(self.latencies, 0.95),
            "wall_seconds": wall,
        }


@dataclass(slots=True)
class Column:
    """One column of the report (a target of one results file): its label, its run ids, its
    first and last row's times, and its numbers."""

    label: str
    target: str
    source: int
    stats: Overview
    run_ids: dict[str, None] = field(default_factory=dict[str, None])
    first: str | None = None
    last: str | None = None

    def add(self, row: ResultRow) -> None:
        """Count one row."""
        self.stats.add(row)
        self.run_ids.setdefault(row.run_id, None)
        if self.first is None or row.timestamp < self.first:
            self.first = row.timestamp
        if self.last is None or row.timestamp > self.last:
            self.last = row.timestamp

    def json(self) -> Json:
        """The column as the page reads it."""
        return {
            "label": self.label,
            "target": self.target,
            "source": self.source,
            "run_ids": list[JsonValue](self.run_ids),
            "first": self.first,
            "last": self.last,
            "stats": self.stats.json(),
        }
