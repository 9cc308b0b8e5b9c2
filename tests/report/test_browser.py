"""The report in a real browser (system Chromium): the overview's numbers, filters and
search, permalinks, comparison with a baseline, hostile text, and no network request."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

import evalwright as ew
from evalwright.api.run import RunResult
from evalwright.report import write_report
from evalwright.report.data import ReportData
from evalwright.report.html import write_page
from evalwright.results.index import row_key
from tests.report.browser import Watch, listed, open_report, show, sorted_listing
from tests.report.runs import GOOD, HOSTILE, run_suite


@dataclass(frozen=True)
class Reports:
    """Two real runs (the second regresses ``capital`` on ``gpt``) and their reports."""

    old: RunResult
    new: RunResult
    plain: Path
    packed: Path
    compared: Path
    reversed: Path
    """The new run's rows in the reverse of their keys' order."""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Reports:
    root = tmp_path_factory.mktemp("report") / "project"
    (root / ".git").mkdir(parents=True)
    old = run_suite(root, "old")
    new = run_suite(root, "new", regress="capital")
    plain = write_report(new.results_path, root / "plain.html")
    packed = root / "packed.html"
    data = ReportData.read([new.results_path], pass_mark=0.5)
    write_page(packed, "packed", data.write, compress=True)
    compared = write_report(new.results_path, root / "compared.html", baseline=old.results_path)
    backwards = sorted(new.rows, key=row_key, reverse=True)
    rows = root / "reversed.jsonl"
    rows.write_text("".join(r.model_dump_json() + "\n" for r in backwards), encoding="utf-8")
    reversed_page = write_report(rows, root / "reversed.html")
    return Reports(old, new, plain, packed, compared, reversed_page)


def _open(browser: Browser, path: Path, watch: Watch, fragment: str = "") -> Page:
    return open_report(browser, path, watch, fragment)


def _stat(page: Page, column: str, stat: str) -> str:
    cell = page.locator(f'tr[data-column="{column}"] td[data-stat="{stat}"]')
    value = cell.get_attribute("data-value")
    assert value is not None
    return value


@pytest.mark.parametrize("which", ["plain", "packed"])
def test_the_overview_shows_the_run_summarys_numbers(
    reports: Reports, browser: Browser, watch: Watch, which: str
) -> None:
    page = _open(browser, getattr(reports, which), watch)
    for name, stats in reports.new.targets.items():
        assert int(_stat(page, name, "cases")) == stats.cases
        assert int(_stat(page, name, "errors")) == stats.errors
        assert int(_stat(page, name, "lossless")) == stats.lossless
        assert int(_stat(page, name, "tokens")) == stats.input_tokens + stats.output_tokens
        mean = _stat(page, name, "mean")
        assert (float(mean) if mean else None) == stats.mean
        rate = float(_stat(page, name, "pass_rate"))
        assert rate == pytest.approx(stats.passed / stats.cases)
    assert reports.new.rows[0].run_id in page.inner_text("#overview")
    page.close()


@pytest.mark.parametrize("late_ms", [0, 250])
def test_the_case_list_filters_and_searches(
    reports: Reports, browser: Browser, watch: Watch, late_ms: int
) -> None:
    """Each step waits for what it asked for to be drawn, so the test holds however late the
    page draws (``late_ms``, as on a loaded machine)."""
    page = open_report(browser, reports.plain, watch, "#v=cases", late_ms=late_ms)
    assert len(listed(page)) == 12
    page.check("#only-errored")
    assert {target for _, target in listed(page)} == {"broken"}
    assert len(listed(page)) == 4
    page.uncheck("#only-errored")
    page.check("#only-lossy")
    assert {case for case, _ in listed(page)} == {"lossy"}
    page.uncheck("#only-lossy")
    page.check("#only-failed")
    failed = listed(page)
    assert ("capital", "gpt") in failed  # the planted regression fails in this run
    assert ("review-loop-bug", "gpt") not in failed
    page.uncheck("#only-failed")
    page.fill("#search", "geography")  # metadata
    assert {case for case, _ in listed(page)} == {"capital"}
    page.fill("#search", "calculateTotal")  # the question
    assert {case for case, _ in listed(page)} == {"review-loop-bug"}
    page.fill("#search", "i do not know")  # the answer
    assert listed(page) == [("capital", "gpt")]
    page.fill("#search", "")
    # A sort is a navigation: its list is drawn once the hash has changed, so each click
    # waits for the list it asked for before the next.
    sort = page.locator('a[data-sort="score"]')
    sort.click()
    expect(sort).to_have_text("score ▲")
    sort.click()  # descending
    expect(sort).to_have_text("score ▼")
    assert listed(page) == sorted_listing(reports.new.rows, "score", desc=True)
    assert listed(page)[0][1] == "gpt"
    assert "sort=score" in page.url
    page.close()


@pytest.mark.parametrize(
    ("column", "field"), [("score", "score"), ("target", "target"), ("latency", "latency_ms")]
)
@pytest.mark.parametrize("desc", [False, True])
def test_a_sorted_list_breaks_ties_by_file_case_target_and_repeat(
    reports: Reports, browser: Browser, watch: Watch, column: str, field: str, desc: bool
) -> None:
    """Whatever order the file holds its rows in (here the reverse of their keys' order),
    rows of equal value are listed in one order: a sort is total."""
    fragment = f"#v=cases&sort={column}" + ("&desc=1" if desc else "")
    page = _open(browser, reports.reversed, watch, fragment)
    assert listed(page) == sorted_listing(reports.new.rows, field, desc)
    page.close()


def test_a_permalink_opens_its_row(reports: Reports, browser: Browser, watch: Watch) -> None:
    page = _open(browser, reports.plain, watch, "#c=review-loop-bug&t=gpt")
    title = page.locator("#detail-title")
    assert title.get_attribute("data-case") == "review-loop-bug"
    assert title.get_attribute("data-target") == "gpt"
    detail = page.inner_text("main")
    assert "What does calculateTotal return?" in detail  # the conversation
    assert "Says the function returns 0" in detail  # the expected outcome
    show(page, "#v=cases&q=lossy")
    page.click('#cases tr[data-target="broken"] a.open')
    page.wait_for_selector('#detail-title[data-case="lossy"]')
    assert "c=lossy&t=broken" in page.url
    text = page.inner_text("main")
    assert "command exited with status 3" in text  # the error
    assert "system_mid_conversation" in text  # the delivery note beside the request
    page.close()


def test_the_matrix_opens_a_cell(reports: Reports, browser: Browser, watch: Watch) -> None:
    page = _open(browser, reports.plain, watch, "#v=matrix")
    cells = page.locator("#matrix td.cell")
    assert cells.count() == 12
    page.click('#matrix td.cell[data-case="capital"] >> nth=0')
    page.wait_for_selector('#detail-title[data-case="capital"]')
    page.close()


def test_compare_marks_the_planted_regression(
    reports: Reports, browser: Browser, watch: Watch
) -> None:
    page = _open(browser, reports.compared, watch)
    assert page.inner_text('#change-counts a[data-change="regressed"]') == "regressed 1"
    delta = page.locator('tr[data-column="gpt"] td[data-stat="pass_rate"] .delta')
    assert delta.get_attribute("data-delta") == "-0.25"
    show(page, "#v=cases")
    page.check("#only-changed")
    assert listed(page) == [("capital", "gpt")]
    assert page.inner_text("#cases tbody td.change") == "regressed"
    page.click("#cases a.open")
    page.wait_for_selector("pre.diff")
    assert page.locator("pre.diff del").all_inner_texts() == [GOOD]
    assert page.locator("pre.diff ins").all_inner_texts() == ["I do not know."]
    page.close()


def test_hostile_text_is_shown_as_text_and_runs_nothing(
    reports: Reports, browser: Browser, watch: Watch
) -> None:
    page = _open(browser, reports.compared, watch, "#c=hostile&t=gpt")
    answer = page.inner_text("pre.answer")
    assert HOSTILE.strip() in answer
    assert page.locator("main img").count() == 0
    assert page.locator("main script").count() == 0
    assert "></script><script>alert(2)</script>&amp;" in page.inner_text('[data-part="metadata"]')
    assert page.evaluate("document.scripts.length") == 2  # the data and the report's own
    show(page, "#v=cases&q=%3Cimg")
    assert {case for case, _ in listed(page)} == {"hostile"}
    page.close()


IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
FIXED = {"run_id": "20260101T120000Z-0a1b2c3d", "timestamp": "2026-01-01T12:00:00.000Z"}


def _steady_copy(results: Path, out: Path) -> Path:
    """The rows with a fixed run id, time and latency, so the screenshots change only when
    the report does."""
    lines = [
        row.model_copy(update={**FIXED, "latency_ms": 12.0}).model_dump_json()
        for row in ew.read_results(results)
    ]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_the_docs_screenshots_are_current(
    reports: Reports, browser: Browser, watch: Watch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refreshes docs/images/report-*.png (docs/report.md shows them)."""
    root = reports.plain.parent / "docs-run"
    root.mkdir()
    monkeypatch.chdir(root)  # the report names its files as given: relative names, no tmp path
    new = _steady_copy(reports.new.results_path, root / "new.jsonl")
    old = _steady_copy(reports.old.results_path, root / "baseline.jsonl")
    page_path = write_report([new.name], "report.html", baseline=[old.name])
    IMAGES.mkdir(exist_ok=True)
    shots = {
        "report-overview.png": "",
        "report-matrix.png": "#v=matrix",
        "report-case.png": "#c=lossy&t=gpt",
        "report-compare.png": "#c=capital&t=gpt",
    }
    for name, fragment in shots.items():
        page = _open(browser, root / page_path, watch, fragment)
        page.screenshot(path=IMAGES / name)
        page.close()
        assert (IMAGES / name).stat().st_size > 10_000
