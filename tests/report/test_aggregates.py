"""The report's aggregate views in a real browser (docs/report.md#aggregate-views): costs per
row, target and run; pass@k, pass^k and the flaky cases; each evaluator's pass rate; the paired
comparison as ``evalwright compare`` computes it; the cost / score / latency chart."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

import evalwright as ew
from evalwright.report import write_report
from evalwright.results.row import ResultRow
from evalwright.stats.reliability import CaseTally, Reliability
from tests.conftest import run_cli
from tests.report.browser import Watch, open_report, show
from tests.report.conftest import embedded
from tests.report.priced_runs import REPEATS, run_priced
from tests.report.runs import run_suite


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, Path]:
    """The new run, its report, the baseline run (``dear`` worse on one case) and the report
    compared with it."""
    root = tmp_path_factory.mktemp("aggregates") / "project"
    new = run_priced(root, "new")
    old = run_priced(root, "old", worse=True)
    plain = write_report(new, root / "plain.html")
    compared = write_report(new, root / "compared.html", baseline=old)
    return new, plain, old, compared


def _rows(path: Path) -> list[ResultRow]:
    return list(ew.read_results(path))


def _float(page: Page, selector: str, attribute: str = "data-value") -> float:
    value = page.get_attribute(selector, attribute)
    assert value, f"{selector} has no {attribute}"
    return float(value)


def test_costs_per_row_target_and_run(
    runs: tuple[Path, Path, Path, Path], browser: Browser, watch: Watch
) -> None:
    rows = _rows(runs[0])
    by_target: dict[str, float] = defaultdict(float)
    for row in rows:
        assert row.cost_usd is not None
        assert row.cost_usd > 0
        by_target[row.target] += row.cost_usd
    page = open_report(browser, runs[1], watch)
    for target, total in by_target.items():
        cell = f'#overview tr[data-column="{target}"] td[data-stat="cost_usd"]'
        assert math.isclose(_float(page, cell), total)
        assert page.inner_text(cell) == f"${total:.6f}"
    run = _float(page, "#run-costs li")
    assert math.isclose(run, sum(by_target.values()))
    assert f"{len(rows)} of {len(rows)} rows priced" in page.inner_text("#run-costs li")
    show(page, "#v=cases&sort=cost&desc=1")
    dearest = max(rows, key=lambda r: r.cost_usd or 0)
    first = page.locator("#cases tbody tr").first
    assert first.locator('td[data-stat="cost"]').inner_text() == f"${dearest.cost_usd:.6f}"
    assert first.get_attribute("data-target") == dearest.target
    show(page, f"#c=capital&t=cheap&r={REPEATS - 1}")
    cheap = next(r for r in rows if r.eval_id == "capital" and r.target == "cheap")
    assert f"${cheap.cost_usd:.6f}" in page.inner_text('section[data-part="summary"]')
    page.close()


def _reliability(rows: list[ResultRow], target: str) -> Reliability:
    cases: dict[str, CaseTally] = {}
    for row in rows:
        if row.target == target:
            ok = row.status == "ok"
            passed = ok and (row.score or 0) >= 0.5
            cases.setdefault(row.eval_id, CaseTally()).add(ok, row.score or 0.0, passed)
    return Reliability.of(cases.values())


def test_pass_at_k_pass_hat_k_and_the_flaky_cases(
    runs: tuple[Path, Path, Path, Path], browser: Browser, watch: Watch
) -> None:
    rows = _rows(runs[0])
    page = open_report(browser, runs[1], watch)
    for target in ("cheap", "dear"):
        expected = _reliability(rows, target)
        line = f'#reliability tr[data-column="{target}"]'
        for k in (1, 2, 3, REPEATS):
            at = _float(page, f'{line} td[data-k="{k}"][data-stat="at"]')
            hat = _float(page, f'{line} td[data-k="{k}"][data-stat="hat"]')
            assert math.isclose(at, expected.pass_at(k) or -1)
            assert math.isclose(hat, expected.pass_hat(k) or -1)
        assert page.inner_text(f'{line} td[data-stat="flaky"]') == str(expected.flaky)
    # cheap answers the greeting with "please" every other time: pass@4 1, pass^4 0.
    cheap = '#reliability tr[data-column="cheap"]'
    assert page.inner_text(f'{cheap} td[data-k="1"][data-stat="at"]') == "0.625"
    assert page.inner_text(f'{cheap} td[data-k="4"][data-stat="hat"]') == "0.500"
    flaky = page.locator("#flaky li")
    assert flaky.all_inner_texts() == ["greeting on cheap: 2/4 passed"]
    flaky.locator("a").click()
    page.wait_for_selector('#detail-title[data-case="greeting"][data-target="cheap"]')
    page.close()


def test_each_evaluators_pass_rate_per_target(
    runs: tuple[Path, Path, Path, Path], browser: Browser, watch: Watch
) -> None:
    rows = _rows(runs[0])
    page = open_report(browser, runs[1], watch)
    names = page.locator("#evaluator-rates tbody tr")
    assert [names.nth(n).get_attribute("data-evaluator") for n in range(3)] == [
        "four",
        "names-paris",
        "polite",
    ]
    for target in ("cheap", "dear"):
        for name in ("four", "names-paris", "polite"):
            results = [
                r
                for row in rows
                if row.target == target
                for r in row.evaluator_results or ()
                if r.name == name
            ]
            passed = sum(r.score is not None and r.score >= 0.5 for r in results)
            cell = f'#evaluator-rates tr[data-evaluator="{name}"] td[data-column="{target}"]'
            assert math.isclose(_float(page, cell), passed / len(results))
            assert f"({passed}/{len(results)})" in page.inner_text(cell)
    cell = '#evaluator-rates tr[data-evaluator="names-paris"] td[data-column="cheap"]'
    assert page.inner_text(cell) == "50.0% (4/8)"
    page.close()


def test_the_paired_comparison_of_two_targets_is_what_compare_prints(
    runs: tuple[Path, Path, Path, Path], browser: Browser, watch: Watch
) -> None:
    page = open_report(browser, runs[1], watch)
    line = page.locator('#paired tr[data-kind="columns"]')
    a, b = line.get_attribute("data-a") or "", line.get_attribute("data-b") or ""
    assert {a, b} == {"cheap", "dear"}
    printed = run_cli("compare", runs[0], "--targets", a, b)
    plain = page.locator(f'#paired ul.plain li[data-b="{b}"]').inner_text()
    assert f"{a} \u2192 {b}: {plain}" in printed.out.splitlines()
    expected = ew.compare(runs[0], targets=(a, b)).paired()[f"{a} \u2192 {b}"]
    assert expected.interval is not None
    assert math.isclose(_float(page, f'{line_sel(b)} td[data-stat="mean"]'), expected.interval.mean)
    low = _float(page, f'{line_sel(b)} td[data-stat="ci"]', "data-low")
    high = _float(page, f'{line_sel(b)} td[data-stat="ci"]', "data-high")
    assert (low, high) == pytest.approx((expected.interval.low, expected.interval.high))
    page.close()


def line_sel(b: str) -> str:
    """A line of the paired table, by its B side."""
    return f'#paired tr[data-b="{b}"]'


def test_the_paired_comparison_with_the_baseline(
    runs: tuple[Path, Path, Path, Path], browser: Browser, watch: Watch
) -> None:
    new, _, old, compared = runs
    found = ew.compare(old, new).paired()
    page = open_report(browser, compared, watch)
    for target, difference in found.items():
        plain = page.locator(f'#paired tr[data-kind="baseline"][data-b="{target}"]')
        assert plain.count() == 1
        words = page.locator(f'#paired ul.plain li[data-b="{target}"]').first.inner_text()
        assert words == difference.plain(f"{target} (baseline)", target)
    # The baseline's dear missed the Louvre: four flips to pass, none the other way.
    dear = '#paired tr[data-kind="baseline"][data-b="dear"]'
    assert math.isclose(_float(page, f'{dear} td[data-stat="mean"]'), 0.25)
    assert page.inner_text(f'{dear} td[data-stat="flips"]') == "4 improved, 0 regressed (p 0.125)"
    page.close()


def test_the_chart_places_each_target_by_cost_latency_and_score(
    runs: tuple[Path, Path, Path, Path], browser: Browser, watch: Watch
) -> None:
    rows = _rows(runs[0])
    page = open_report(browser, runs[1], watch)
    cost = page.locator('#chart svg[data-chart="cost"] g.point')
    assert cost.count() == 2
    heights: dict[str, float] = {}
    for n in range(2):
        point = cost.nth(n)
        target = point.get_attribute("data-column") or ""
        mine = [r for r in rows if r.target == target]
        reliability = _reliability(rows, target)
        assert math.isclose(
            float(point.get_attribute("data-x") or "nan"),
            sum(r.cost_usd or 0 for r in mine) / len(mine),
        )
        assert math.isclose(float(point.get_attribute("data-y") or "nan"), reliability.mean or -1)
        assert reliability.ci95 is not None
        assert math.isclose(float(point.get_attribute("data-low") or "nan"), reliability.ci95[0])
        assert point.locator("line.interval").count() == 1
        heights[target] = float(point.locator("circle").get_attribute("cy") or "nan")
    # dear scores higher (0.75 against 0.625): drawn higher up (a smaller y).
    assert heights["dear"] < heights["cheap"]
    latency = page.locator('#chart svg[data-chart="latency"] g.point')
    assert latency.count() == 2
    page.close()


def test_a_run_without_prices_or_repeats(tmp_path: Path, browser: Browser, watch: Watch) -> None:
    """Mock targets report no usage: no cost is known, and the page says so rather than show
    $0; a target whose every row errored (``broken``) is paired with nothing."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    results = run_suite(root, "mock").results_path
    data = embedded(write_report(results, root / "report.html"))
    aggregates = data["aggregates"]
    assert aggregates["runs"][0]["cost_usd"] is None
    assert aggregates["runs"][0]["priced"] == 0
    assert [column["repeats"] for column in aggregates["columns"]] == [1, 1, 1]
    (paired,) = aggregates["paired"]
    assert {paired["a"], paired["b"]} == {"gpt", "claude"}
    expected = ew.compare(results, targets=(paired["a"], paired["b"])).paired()
    assert paired["plain"] == next(iter(expected.values())).plain(paired["a"], paired["b"])
    page = open_report(browser, root / "report.html", watch)
    cells = page.locator('#overview td[data-stat="cost_usd"]').all_inner_texts()
    assert cells == ["—", "—", "—"]
    assert page.locator("#reliability").count() == 0, "no repeats: no repeats table"
    cost = page.locator('#chart svg[data-chart="cost"]')
    assert cost.text_content() == "no mean cost per row (USD) known"
    assert page.locator('#chart svg[data-chart="latency"] g.point').count() == 2
    page.close()


def test_an_evaluators_rate_counts_its_recorded_verdict() -> None:
    """An evaluator passes at its own threshold (docs/eval-files.md#pass-rules): a 0.6 below
    its 0.8 counts as failed at a pass mark of 0.5; a row from before verdicts is judged at the
    pass mark."""
    from evalwright.report.aggregates import EvaluatorTally
    from evalwright.results.parts import EvaluatorResult

    def result(passed: bool | None) -> EvaluatorResult:
        threshold = None if passed is None else 0.8
        return EvaluatorResult(
            name="j", type="llm_judge", weight=1, status="ok", score=0.6, hits=(), misses=(),
            reasoning="", raw_request=None, threshold=threshold, passed=passed,
        )  # fmt: skip

    tally = EvaluatorTally("llm_judge")
    tally.add(result(False), 0.5)
    tally.add(result(None), 0.5)
    assert (tally.ok, tally.passed) == (2, 1)
