"""The data an HTML report embeds (docs/report.md): the rows of one or more results files,
per-target overview numbers, the images their prompts sent (:mod:`evalwright.report.thumbnails`)
and, with a baseline, each row's change as :mod:`evalwright.stats.compare` classifies it.

The data is plain JSON (the page's script renders everything from it), written a row at a
time: each file is read once to find each key's winning line, then its winning rows are read
back one by one, written out and counted. What is kept meanwhile is a few numbers per key
(and the images, capped), so a report of a large run costs little memory
(bench/README.md#the-html-report).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import JsonValue

from evalwright import __version__
from evalwright.evalfile.evaluator_specs import TOOL_CHECK_TYPES
from evalwright.report.aggregates import Aggregates
from evalwright.report.html import DataSink, json_text
from evalwright.report.overview import Column, Overview
from evalwright.report.thumbnails import Thumbnails, project_roots
from evalwright.results.index import RowKey, row_key
from evalwright.results.judge_facts import JudgeFacts
from evalwright.results.reading import WinningLine, read_back, winning_lines
from evalwright.results.row import ResultRow, target_label
from evalwright.stats.compare import Comparison, Scored, compare_scored, passed
from evalwright.stats.judging import JudgeMetrics, JudgeTally

PathArg = str | os.PathLike[str]
Json = dict[str, JsonValue]


@dataclass(frozen=True, slots=True)
class Source:
    """One results file: its name as given, and where each key's winning row is."""

    path: str
    lines: dict[RowKey, WinningLine]

    @classmethod
    def read(cls, path: PathArg) -> Source:
        """Index the file (every line is read and checked here, before anything is written)."""
        return cls(os.fspath(path), winning_lines(path))

    def rows(self) -> Iterator[tuple[Scored, ResultRow]]:
        """Each key's winning row, in the order keys first appeared, read back one at a
        time, with what a comparison keeps of it."""
        lines = self.lines.values()
        places = ((line.offset, line.digest) for line in lines)
        for line, row in zip(lines, read_back(self.path, places), strict=True):
            yield (
                Scored(row.status, row.score, self.path, line.offset, line.digest, row.passed),
                row,
            )


def _row_json(row: ResultRow, extra: str = "") -> str:
    """The row as JSON, with ``extra`` members (JSON text) first."""
    text = row.model_dump_json()
    return "{" + extra + "," + text[1:] if extra else text


@dataclass(slots=True)
class Side:
    """One side of a comparison as its rows are written: each key's latest row (what a
    comparison keeps of it, and its place in the page's list)."""

    latest: dict[RowKey, Scored] = field(default_factory=dict[RowKey, Scored])
    at: dict[RowKey, int] = field(default_factory=dict[RowKey, int])
    count: int = 0

    def add(self, scored: Scored, row: ResultRow) -> None:
        """The next row of the page's list (a later row of a key replaces an earlier one)."""
        key = row_key(row)
        self.latest[key] = scored
        self.at[key] = self.count
        self.count += 1


@dataclass(slots=True)
class Columns:
    """Every (results file, target and variant) pair, in order of appearance, each a column."""

    several: bool
    """Whether the report has several results files (a column's label then names its file)."""
    pass_mark: float
    where: dict[tuple[int, str], int] = field(default_factory=dict[tuple[int, str], int])
    found: list[Column] = field(default_factory=list[Column])
    aggregates: Aggregates = field(init=False)
    """The columns' aggregate views (docs/report.md#aggregate-views), counted as rows come."""

    def __post_init__(self) -> None:
        self.aggregates = Aggregates(self.pass_mark)

    def of(self, source: int, path: str, row: ResultRow) -> int:
        """The column of a row of the ``source``-th file (``path``), which counts it."""
        # A prompt variant's rows are a column of their own (docs/report.md).
        target = target_label(row.target, row.variant)
        pair = (source, target)
        place = self.where.get(pair)
        if place is None:
            label = f"{target} · {Path(path).name}" if self.several else target
            place = self.where[pair] = len(self.found)
            self.found.append(Column(label, target, source, Overview(self.pass_mark)))
        self.found[place].add(row)
        self.aggregates.add(place, row)
        return place


@dataclass(slots=True)
class ReportData:
    """The results files (and baseline files) of one report, indexed, ready to be written."""

    sources: list[Source]
    baseline: list[Source]
    pass_mark: float

    @classmethod
    def read(
        cls, results: Sequence[PathArg], baseline: Sequence[PathArg] = (), *, pass_mark: float
    ) -> ReportData:
        """Index every file: a file that cannot be read, or a line that is not a row, raises
        :class:`ConfigError` before anything is written."""
        return cls(
            [Source.read(path) for path in results],
            [Source.read(path) for path in baseline],
            pass_mark,
        )

    def write(self, sink: DataSink) -> None:
        """Everything the page shows, as JSON (docs/report.md#what-the-report-holds)."""
        columns = Columns(len(self.sources) > 1, self.pass_mark)
        tallies = [JudgeTally() for _ in self.sources]
        after = Side()
        images = Thumbnails(project_roots([source.path for source in self.sources]))
        sink.write('{"version":')
        sink.value(__version__)
        sink.write(',"pass_mark":')
        sink.value(self.pass_mark)
        sink.write(',"sources":')
        sink.value([source.path for source in self.sources])
        sink.write(',"tool_checks":')
        sink.value(list(TOOL_CHECK_TYPES))
        sink.write(',"rows":')
        sink.array(self._rows(columns, tallies, after, images))
        sink.write(',"images":')
        sink.value(images.json())
        sink.write(',"columns":')
        sink.value([column.json() for column in columns.found])
        sink.write(',"judges":')
        sink.value([_judges_json(tally.metrics(self.pass_mark)) for tally in tallies])
        sink.write(',"baseline":')
        comparison = None
        if self.baseline:
            comparison = self._write_baseline(sink, after)
        else:
            sink.write("null")
        sink.write(',"aggregates":')
        paths = [source.path for source in self.sources]
        sink.value(columns.aggregates.json(columns.found, paths, comparison))
        sink.write("}")

    def _rows(
        self, columns: Columns, tallies: list[JudgeTally], after: Side, images: Thumbnails
    ) -> Iterator[str]:
        for index, source in enumerate(self.sources):
            for scored, row in source.rows():
                column = columns.of(index, source.path, row)
                facts = JudgeFacts.of(row)
                if facts is not None:
                    tallies[index].add(facts)
                after.add(scored, row)
                text = _row_json(row, f'"_source":{index},"_column":{column}')
                images.add(row.eval_file, text)
                yield text

    def _write_baseline(self, sink: DataSink, after: Side) -> Comparison:
        """The old rows, the old numbers per target, and each key's change (the comparison
        returned)."""
        before = Side()
        targets: dict[str, Overview] = {}
        sink.write('{"sources":')
        sink.value([source.path for source in self.baseline])
        sink.write(',"rows":')
        sink.array(self._old_rows(before, targets))
        sink.write(',"targets":')
        sink.value({name: overview.json() for name, overview in targets.items()})
        comparison = compare_scored(before.latest, after.latest, pass_mark=self.pass_mark)
        sink.write(',"changes":')
        sink.array(_changes(comparison, before, after))
        sink.write(',"counts":')
        sink.value(dict[str, JsonValue](comparison.counts().items()))
        sink.write("}")
        return comparison

    def _old_rows(self, before: Side, targets: dict[str, Overview]) -> Iterator[str]:
        for source in self.baseline:
            for scored, row in source.rows():
                label = target_label(row.target, row.variant)
                targets.setdefault(label, Overview(self.pass_mark)).add(row)
                before.add(scored, row)
                yield _row_json(row)


def _changes(comparison: Comparison, before: Side, after: Side) -> Iterator[str]:
    """Each key's change, naming its rows by their places in the page's two lists."""
    for change in comparison.changes:
        pass_delta = None
        if change.before is not None and change.after is not None:
            pass_delta = int(passed(change.after, change.pass_mark)) - int(
                passed(change.before, change.pass_mark)
            )
        found: Json = {
            "change": change.change,
            "new": after.at[change.key] if change.after is not None else None,
            "old": before.at[change.key] if change.before is not None else None,
            "score_delta": change.score_delta,
            "pass_delta": pass_delta,
        }
        yield json_text(found)


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
