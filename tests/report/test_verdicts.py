"""The report reads each row's recorded verdict (docs/eval-files.md#pass-rules), as the
summary and ``compare`` do, rather than judging the score against the pass mark again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalwright.report.data import ReportData
from evalwright.report.html import write_page
from evalwright.results.row import ResultRow
from tests.report.conftest import embedded
from tests.results.samples import sample_row


def _file(path: Path, rows: list[ResultRow]) -> Path:
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
    return path


def _payload(results: Path, out: Path, baseline: Path | None = None) -> Any:
    data = ReportData.read([results], [baseline] if baseline else [], pass_mark=0.5)
    write_page(out, "t", data.write)
    return embedded(out)


def test_the_overview_and_the_baseline_count_recorded_verdicts(tmp_path: Path) -> None:
    """``failed-check`` scores 0.5 but failed its rule; ``own-threshold`` scores 0.4 and
    passed (its evaluator's threshold is lower): judged by score alone, both would flip."""
    rows = [
        sample_row(eval_id="failed-check", score=0.5, passed=False, pass_rule="all"),
        sample_row(eval_id="own-threshold", score=0.4, passed=True, pass_rule="all"),
    ]
    results = _file(tmp_path / "new.jsonl", rows)
    payload = _payload(results, tmp_path / "r.html")
    (stats,) = [c["stats"] for c in payload["columns"]]
    assert stats["passed"] == 1

    before = _file(
        tmp_path / "old.jsonl", [r.model_copy(update={"passed": not r.passed}) for r in rows]
    )
    baseline = _payload(results, tmp_path / "b.html", before)["baseline"]
    assert baseline["counts"]["regressed"] == baseline["counts"]["improved"] == 1
    deltas = {payload["rows"][c["new"]]["eval_id"]: c["pass_delta"] for c in baseline["changes"]}
    assert deltas == {"failed-check": -1, "own-threshold": 1}
