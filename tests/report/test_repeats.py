"""A repeated run in the report, in a real browser: each case's stability over its repeats
(how many passed, each repeat's score), permalinks per repeat, and the comparison matched
repeat by repeat (docs/report.md#repeats)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

import evalwright as ew
from evalwright.report import write_report
from tests.report.browser import Watch, open_report, show

# Answers "Paris" on the 1st, 3rd, 5th... call and "London" otherwise: a flaky target.
ALTERNATING = """import pathlib, sys
counter = pathlib.Path(sys.argv[1])
calls = len(counter.read_text()) if counter.exists() else 0
counter.write_text("x" * (calls + 1))
print("Paris" if calls % 2 == 0 else "London")
"""


def _run(root: Path, name: str, repeat: int) -> ew.RunResult:
    paris = ew.Execution(evaluators=[ew.ContainsSpec(name="paris", value="Paris")])
    cases = [
        ew.EvalCase(id="flaky", expected_outcome="Names Paris", input="Capital?", execution=paris)
    ]
    script = root / "alternate.py"
    script.write_text(ALTERNATING, encoding="utf-8")
    counter = root / f"{name}.count"
    target = ew.CliTarget(name="alt", command=[sys.executable, str(script), str(counter)])
    suite = ew.Suite(cases, name="repeats", base_dir=root)
    out = root / f"{name}.jsonl"
    return ew.run(suite, targets=[target], out=out, workers=1, repeat=repeat)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A report of 5 repeats (Paris, London, Paris, London, Paris), and the same compared
    with a baseline of 2 repeats whose answers came in the other order."""
    root = tmp_path_factory.mktemp("repeats") / "project"
    (root / ".git").mkdir(parents=True)
    (root / "old.count").write_text("x")  # the old run starts on "London"
    old = _run(root, "old", 2)
    new = _run(root, "new", 5)
    plain = write_report(new.results_path, root / "plain.html")
    compared = write_report(new.results_path, root / "compared.html", baseline=old.results_path)
    return plain, compared


def _open(browser: Browser, path: Path, watch: Watch, fragment: str = "") -> Page:
    return open_report(browser, path, watch, fragment)


def test_the_matrix_shows_how_many_repeats_passed(
    pages: tuple[Path, Path], browser: Browser, watch: Watch
) -> None:
    page = _open(browser, pages[0], watch, "#v=matrix")
    cell = page.locator('#matrix td.cell[data-case="flaky"]')
    assert cell.count() == 1, "one cell per case and target, whatever the repeats"
    assert cell.inner_text() == "3/5"
    assert cell.get_attribute("title") == "flaky on alt: 1.00 0.00 1.00 0.00 1.00"
    page.click('#matrix td.cell[data-case="flaky"] a')
    page.wait_for_selector('#detail-title[data-repeat="0"]')
    page.close()


def test_a_repeat_shows_its_cases_stability_and_links_the_other_repeats(
    pages: tuple[Path, Path], browser: Browser, watch: Watch
) -> None:
    page = _open(browser, pages[0], watch, "#c=flaky&t=alt&r=3")
    assert page.inner_text("#detail-title").startswith("flaky (repeat 3)")
    assert page.inner_text("#repeat-stability") == "3/5 passed"
    items = page.locator("ol.repeats li")
    assert items.all_inner_texts() == ["#0 1.000", "#1 0.000", "#2 1.000", "#3 0.000", "#4 1.000"]
    statuses = [items.nth(n).get_attribute("data-status") for n in range(5)]
    assert statuses == ["pass", "fail", "pass", "fail", "pass"]
    assert page.locator("ol.repeats li.current").inner_text() == "#3 0.000"
    page.click('ol.repeats li[data-repeat="4"] a')
    page.wait_for_selector('#detail-title[data-repeat="4"]')
    assert "r=4" in page.url
    assert "Paris" in page.inner_text("pre.answer")
    show(page, "#v=cases")
    repeats = page.locator("#cases tbody tr")
    assert [repeats.nth(n).get_attribute("data-repeat") for n in range(5)] == list("01234")
    page.close()


def test_compare_matches_rows_repeat_by_repeat(
    pages: tuple[Path, Path], browser: Browser, watch: Watch
) -> None:
    page = _open(browser, pages[1], watch, "#v=cases")
    page.check("#only-changed")
    rows = page.locator("#cases tbody tr")
    changed = {
        (rows.nth(n).get_attribute("data-repeat"), rows.nth(n).locator("td.change").inner_text())
        for n in range(rows.count())
    }
    # old: London, Paris; new: Paris, London, Paris, London, Paris.
    new = {(str(n), "new") for n in (2, 3, 4)}
    assert changed == {("0", "improved"), ("1", "regressed"), *new}
    page.close()
