"""The matrix sorted and filtered, and the tag filter, in a real browser
(docs/report.md#aggregate-views): sorted by case or by a column's score in a total order,
filtered by text, status and tag, each kept in the URL fragment."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from evalwright.report import write_report
from tests.report.browser import Watch, listed, open_report, show
from tests.report.priced_runs import REPEATS, run_priced


@pytest.fixture(scope="module")
def page_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of the priced run: cases capital, louvre, greeting and sum on cheap and dear."""
    root = tmp_path_factory.mktemp("matrix") / "project"
    return write_report(run_priced(root, "new"), root / "report.html")


def _cases(page: Page) -> list[str]:
    rows = page.locator("#matrix tbody tr")
    return [rows.nth(n).get_attribute("data-case") or "" for n in range(rows.count())]


def _column(page: Page, label: str) -> int:
    heads = page.locator("#matrix thead th").all_inner_texts()
    return heads.index(label) - 1


def test_the_matrix_sorts_by_case_and_by_a_columns_score(
    page_path: Path, browser: Browser, watch: Watch
) -> None:
    page = open_report(browser, page_path, watch, "#v=matrix")
    assert _cases(page) == ["capital", "louvre", "greeting", "sum"], "as the run wrote them"
    page.click('#matrix thead a[data-sort="case"]')
    page.wait_for_function("() => document.body.dataset.shown === location.hash")
    assert _cases(page) == ["capital", "greeting", "louvre", "sum"]
    page.click('#matrix thead a[data-sort="case"]')
    page.wait_for_function("() => location.hash.includes('desc=1')")
    page.wait_for_function("() => document.body.dataset.shown === location.hash")
    assert _cases(page) == ["sum", "louvre", "greeting", "capital"]
    # cheap: capital 4/4, louvre 0/4, greeting 2/4, sum 4/4; ties by eval file, then id.
    cheap = _column(page, "cheap")
    show(page, f"#v=matrix&sort=col{cheap}")
    assert _cases(page) == ["louvre", "greeting", "capital", "sum"]
    show(page, f"#v=matrix&sort=col{cheap}&desc=1")
    assert _cases(page) == ["capital", "sum", "greeting", "louvre"]
    assert "▼" in page.inner_text(f'#matrix thead a[data-sort="col{cheap}"]')
    dear = _column(page, "dear")
    show(page, f"#v=matrix&sort=col{dear}")
    assert _cases(page) == ["sum", "capital", "greeting", "louvre"]
    page.close()


def test_the_matrix_filters_by_text_status_and_tag(
    page_path: Path, browser: Browser, watch: Watch
) -> None:
    page = open_report(browser, page_path, watch, "#v=matrix")
    page.fill("#matrix-search", "two plus")  # the sum case's question
    page.wait_for_function("() => location.hash.includes('q=two')")
    assert _cases(page) == ["sum"]
    page.fill("#matrix-search", "")
    page.select_option("#matrix-status", "flaky")
    page.wait_for_function("() => location.hash.includes('st=flaky')")
    assert _cases(page) == ["greeting"]
    page.select_option("#matrix-status", "passed")
    page.wait_for_function("() => location.hash.includes('st=passed')")
    assert _cases(page) == ["capital"]
    page.select_option("#matrix-status", "failed")
    page.wait_for_function("() => location.hash.includes('st=failed')")
    assert _cases(page) == ["louvre", "greeting", "sum"]
    page.select_option("#matrix-status", "")
    page.select_option("#tag", "geo")
    page.wait_for_function("() => location.hash.includes('tag=geo')")
    assert _cases(page) == ["capital", "louvre"]
    assert page.locator("#tag option").all_inner_texts() == [
        "any tag",
        "demo",
        "easy",
        "geo",
        "manners",
        "math",
    ]
    # The fragment holds the filters: the same link opens the same matrix.
    show(page, "#v=matrix&tag=geo&st=failed")
    assert _cases(page) == ["louvre"]
    assert page.input_value("#tag") == "geo"
    page.close()


def test_the_case_list_filters_by_tag(page_path: Path, browser: Browser, watch: Watch) -> None:
    page = open_report(browser, page_path, watch, "#v=cases")
    assert len(listed(page)) == 8 * REPEATS
    page.select_option("#tag", "math")
    page.wait_for_function("() => location.hash.includes('tag=math')")
    assert {case for case, _ in listed(page)} == {"sum"}
    assert len(listed(page)) == 2 * REPEATS
    page.check("#only-failed")
    page.wait_for_function("() => location.hash.includes('only=failed')")
    assert set(listed(page)) == {("sum", "dear")}
    page.close()
