"""The data an HTML report embeds (docs/report.md): the rows of one or more results files,
per-target overview numbers, and, with a baseline, each row's change from
:func:`evalwright.results.compare.compare_rows`.

The payload is plain JSON: the page's script renders everything from it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pydantic import JsonValue

from evalwright import __version__
from evalwright.results.compare import Comparison, compare_rows, passed
from evalwright.results.index import RowFacts, RowKey, row_key, supersedes
from evalwright.results.judging import JudgeMetrics, judge_metrics
from evalwright.results.reading import read_results
from evalwright.results.row import ResultRow

PathArg = str | os.PathLike[str]
Json = dict[str, JsonValue]


@dataclass(frozen=True, slots=True)
class Source:
    """One results file: its name as given and the rows that stand for each key."""

    path: str
    rows: tuple[ResultRow, ...]


def read_source(path: PathArg) -> Source:
    """The rows of a results file, one per key, in the order keys first appeared.

    A resumed file may hold several rows of a key; the one the run summary counts wins
    (docs/running.md#--resume)."""
    winners: dict[RowKey, ResultRow] = {}
    for row in read_results(path):
        key = row_key(row)
        old = winners.get(key)
        if old is None or supersedes(RowFacts.of(row), RowFacts.of(old)):
            winners[key] = row
    return Source(os.fspath(path), tuple(winners.values()))


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


def _wall(rows: Sequence[ResultRow]) -> float | None:
    """From the first row's start (its finish less its latency) to the last row's finish."""
    spans: list[tuple[float, float]] = []
    for row in rows:
        end = _seconds(row.timestamp)
        if end is not None:
            spans.append((end - (row.latency_ms or 0.0) / 1000, end))
    if not spans:
        return None
    return max(0.0, max(e for _, e in spans) - min(s for s, _ in spans))


def overview(rows: Sequence[ResultRow], pass_mark: float) -> Json:
    """One target's numbers, counted as the run summary counts them
    (docs/running.md#progress-and-the-summary-table)."""
    ok = [row for row in rows if row.status == "ok"]
    scores = [row.score or 0.0 for row in ok]
    latencies = [row.latency_ms for row in rows if row.latency_ms is not None]
    usages = [row.usage for row in rows if row.usage is not None]
    count = len(rows)
    passes = sum(passed(row, pass_mark) for row in rows)
    return {
        "cases": count,
        "mean": sum(scores) / len(scores) if scores else None,
        "passed": passes,
        "pass_rate": passes / count if count else None,
        "errors": count - len(ok),
        "lossless": sum(not row.delivery_notes for row in rows),
        "input_tokens": sum(u.input_tokens or 0 for u in usages),
        "output_tokens": sum(u.output_tokens or 0 for u in usages),
        "latency_p50": percentile(latencies, 0.5),
        "latency_p95": percentile(latencies, 0.95),
        "wall_seconds": _wall(rows),
    }


def _dumped(row: ResultRow) -> JsonValue:
    data: Json = row.model_dump(mode="json")
    return data


def _row_json(row: ResultRow, source: int, column: int) -> Json:
    data: Json = row.model_dump(mode="json")
    data["_source"] = source
    data["_column"] = column
    return data


def _columns(sources: Sequence[Source]) -> list[tuple[int, str]]:
    """Every (source, target) pair, in order of appearance."""
    pairs: dict[tuple[int, str], None] = {}
    for index, source in enumerate(sources):
        for row in source.rows:
            pairs[(index, row.target)] = None
    return list(pairs)


def _column_label(source: Source, target: str, several: bool) -> str:
    return f"{target} · {Path(source.path).name}" if several else target


def _column_json(sources: Sequence[Source], column: tuple[int, str], pass_mark: float) -> Json:
    index, target = column
    source = sources[index]
    rows = [row for row in source.rows if row.target == target]
    timestamps = sorted(row.timestamp for row in rows)
    return {
        "label": _column_label(source, target, len(sources) > 1),
        "target": target,
        "source": index,
        "run_ids": list(dict.fromkeys(row.run_id for row in rows)),
        "first": timestamps[0] if timestamps else None,
        "last": timestamps[-1] if timestamps else None,
        "stats": overview(rows, pass_mark),
    }


def build_payload(
    results: Sequence[PathArg], baseline: Sequence[PathArg] = (), *, pass_mark: float = 0.5
) -> Json:
    """Everything the page shows, as JSON (docs/report.md#what-the-report-holds)."""
    sources = [read_source(path) for path in results]
    columns = _columns(sources)
    where = {pair: n for n, pair in enumerate(columns)}
    rows: list[JsonValue] = [
        _row_json(row, s, where[(s, row.target)])
        for s, source in enumerate(sources)
        for row in source.rows
    ]
    column_data: list[JsonValue] = [_column_json(sources, c, pass_mark) for c in columns]
    payload: Json = {
        "version": __version__,
        "pass_mark": pass_mark,
        "sources": [source.path for source in sources],
        "columns": column_data,
        "rows": rows,
        "judges": [_judges_json(judge_metrics(s.rows, pass_mark)) for s in sources],
        "baseline": None,
    }
    if baseline:
        new_rows = [row for source in sources for row in source.rows]
        payload["baseline"] = _baseline(new_rows, baseline, pass_mark)
    return payload


def _judges_json(metrics: JudgeMetrics | None) -> JsonValue:
    """A results file's judge metrics (docs/judges.md#run-metrics), ``null`` without a judge."""
    if metrics is None:
        return None
    targets: Json = {
        name: {"calls": s.calls, "parse_failures": s.parse_failures, "retries": s.retries}
        for name, s in metrics.targets.items()
    }
    panels: list[JsonValue] = []
    for panel in metrics.panels:
        cases: list[JsonValue] = [
            {
                "case": d.case,
                "target": d.target,
                "evaluator": d.evaluator,
                "spread": d.spread,
                "scores": dict[str, JsonValue](d.scores),
            }
            for d in panel.disagreements
        ]
        panels.append(
            {
                "judges": list(panel.judges),
                "cases": panel.cases,
                "agreement": panel.agreement,
                "alpha": panel.alpha,
                "disagreements": cases,
            }
        )
    return {"targets": targets, "panels": panels}


def _baseline(new_rows: Sequence[ResultRow], paths: Sequence[PathArg], pass_mark: float) -> Json:
    """The old rows, each key's change, and the old numbers per target."""
    old_sources = [read_source(path) for path in paths]
    old_rows = [row for source in old_sources for row in source.rows]
    comparison = compare_rows(old_rows, new_rows, pass_mark=pass_mark)
    return {
        "sources": [source.path for source in old_sources],
        "rows": [_dumped(row) for row in old_rows],
        "changes": _changes(comparison, new_rows, old_rows),
        "counts": _counts(comparison),
        "targets": _old_targets(old_rows, pass_mark),
    }


def _counts(comparison: Comparison) -> Json:
    counts: Json = {}
    for change, count in comparison.counts().items():
        counts[change] = count
    return counts


def _changes(
    comparison: Comparison, new_rows: Sequence[ResultRow], old_rows: Sequence[ResultRow]
) -> list[JsonValue]:
    """Each key's change, naming its rows by their index in ``rows`` and the old rows."""
    new_at = {id(row): n for n, row in enumerate(new_rows)}
    old_at = {id(row): n for n, row in enumerate(old_rows)}
    found: list[JsonValue] = []
    for change in comparison.changes:
        pass_delta = None
        if change.old is not None and change.new is not None:
            pass_delta = int(passed(change.new, change.pass_mark)) - int(
                passed(change.old, change.pass_mark)
            )
        found.append(
            {
                "change": change.change,
                "new": new_at[id(change.new)] if change.new is not None else None,
                "old": old_at[id(change.old)] if change.old is not None else None,
                "score_delta": change.score_delta,
                "pass_delta": pass_delta,
            }
        )
    return found


def _old_targets(rows: Iterable[ResultRow], pass_mark: float) -> Json:
    by_target: dict[str, list[ResultRow]] = {}
    for row in rows:
        by_target.setdefault(row.target, []).append(row)
    return {target: overview(group, pass_mark) for target, group in by_target.items()}
