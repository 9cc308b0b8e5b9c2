"""The report file without a browser: what it embeds, how the data is escaped and packed,
the Content-Security-Policy, the comparison it embeds, and the commands that write it."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import JsonValue

import evalwright as ew
from evalwright.api.run import RunResult
from evalwright.report.data import ReportData
from evalwright.report.html import embedded_json, write_page
from evalwright.report.overview import percentile
from tests.conftest import ProjectDir, run_cli
from tests.report.conftest import embedded
from tests.report.runs import HOSTILE, run_suite


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunResult, RunResult]:
    root = tmp_path_factory.mktemp("page") / "project"
    (root / ".git").mkdir(parents=True)
    return run_suite(root, "old"), run_suite(root, "new", regress="capital")


def _page(results: Path, out: Path, *, compress: bool | None = None) -> str:
    data = ReportData.read([results], pass_mark=0.5)
    write_page(out, "t", data.write, compress=compress)
    return out.read_text(encoding="utf-8")


def test_the_data_cannot_end_its_element_or_become_markup() -> None:
    value: dict[str, JsonValue] = {"answer": HOSTILE, "<key>": "</SCRIPT >&"}
    text = embedded_json(value)
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(text) == value


def test_the_page_embeds_every_row_as_text(runs: tuple[RunResult, RunResult]) -> None:
    _, new = runs
    page = ew.write_report(new.results_path).read_text(encoding="utf-8")
    assert HOSTILE not in page
    assert "<img" not in page
    assert page.lower().count("</script") == 2  # the data's element and the script's
    payload = embedded(page)
    answers = {(r["eval_id"], r["target"]): r["candidate_answer"] for r in payload["rows"]}
    assert answers[("hostile", "gpt")] == f"Paris {HOSTILE}"
    assert len(payload["rows"]) == len(new.rows)


def test_a_packed_page_holds_the_same_data(
    runs: tuple[RunResult, RunResult], tmp_path: Path
) -> None:
    _, new = runs
    packed = _page(new.results_path, tmp_path / "packed.html", compress=True)
    plain = _page(new.results_path, tmp_path / "plain.html", compress=False)
    assert 'id="report-data">{"gzip":' in packed
    assert 'id="report-data">{"json":' in plain
    assert embedded(packed) == embedded(plain)


def test_the_policy_allows_only_the_pages_own_script_and_style(
    runs: tuple[RunResult, RunResult], tmp_path: Path
) -> None:
    _, new = runs
    page = _page(new.results_path, tmp_path / "r.html")
    (policy,) = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert "default-src 'none'" in policy
    assert "unsafe" not in policy
    for tag, kind in (("script", "script-src"), ("style", "style-src")):
        (body,) = re.findall(rf"<{tag}>(.*?)</{tag}>", page, re.S)
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"{kind} 'sha256-{digest}'" in policy
    assert not re.search(r"https?://", page.split('id="report-data"')[0])


def test_the_overview_counts_as_the_run_summary(
    runs: tuple[RunResult, RunResult], tmp_path: Path
) -> None:
    _, new = runs
    payload: Any = embedded(_page(new.results_path, tmp_path / "r.html"))
    columns = {c["target"]: c["stats"] for c in payload["columns"]}
    for name, stats in new.targets.items():
        mine = columns[name]
        assert (mine["cases"], mine["errors"], mine["passed"]) == (
            stats.cases,
            stats.errors,
            stats.passed,
        )
        assert mine["mean"] == stats.mean
        assert mine["lossless"] == stats.lossless


def test_the_baseline_marks_each_key(runs: tuple[RunResult, RunResult], tmp_path: Path) -> None:
    old, new = runs
    out = ew.write_report(new.results_path, tmp_path / "r.html", baseline=old.results_path)
    payload: Any = embedded(out)
    baseline = payload["baseline"]
    assert baseline["counts"] == {
        "regressed": 1,
        "improved": 0,
        "new": 0,
        "removed": 0,
        "unchanged": 11,
    }
    rows = payload["rows"]
    (regressed,) = [c for c in baseline["changes"] if c["change"] == "regressed"]
    assert rows[regressed["new"]]["eval_id"] == "capital"
    assert regressed["pass_delta"] == -1
    assert regressed["score_delta"] == -1.0


def test_percentiles_are_nearest_rank() -> None:
    assert percentile([], 0.5) is None
    assert percentile([3.0, 1.0, 2.0, 4.0], 0.5) == 2.0
    assert percentile([float(n) for n in range(1, 101)], 0.95) == 95.0


def test_the_report_command_writes_and_compares(
    runs: tuple[RunResult, RunResult], tmp_path: Path
) -> None:
    old, new = runs
    out = tmp_path / "r.html"
    result = run_cli("report", new.results_path, "-o", out, "--baseline", old.results_path)
    assert result.code == 0, result.err
    assert result.out.strip() == f"report: {out}"
    payload = embedded(out)
    assert payload["baseline"] is not None


def test_the_report_command_names_a_missing_file(tmp_path: Path) -> None:
    result = run_cli("report", tmp_path / "missing.jsonl")
    assert result.code == 2
    assert "missing.jsonl" in result.err
    assert "Traceback" not in result.err


def test_eval_report_writes_beside_the_results(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", "targets:\n  - {name: default, provider: mock}\n")
    project.write("e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    out = project.root / "runs" / "r.jsonl"
    out.parent.mkdir()
    result = run_cli("eval", project.root / "e.yaml", "--out", out, "--quiet", "--report")
    assert result.code == 0, result.err
    assert f"report: {out.with_suffix('.html')}" in result.out
    named = project.root / "named.html"
    result = run_cli("eval", project.root / "e.yaml", "--out", out, "--quiet", "--report", named)
    assert result.code == 0, result.err
    payload = embedded(named)
    assert [row["eval_id"] for row in payload["rows"]] == ["a"]
