"""Prompt variants in the report, in a real browser: each (target, variant) is a column of
its own in the overview and the case list (docs/report.md#prompt-variants)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

import evalwright as ew
from evalwright.report import write_report
from tests.report.browser import Watch, listed, open_report

TARGETS = "targets:\n  - name: default\n    provider: mock\n    response: Paris\n"
EVAL = """prompts:
  terse: Answer in one word.
  chatty: {messages: [{role: system, content: Say a lot.}]}
execution:
  evaluators:
    - {name: paris, type: contains, value: Paris}
evalcases:
  - {id: capital, expected_outcome: Names Paris, input: Capital of France?}
  - {id: city, expected_outcome: Names Paris, input: Largest French city?}
"""


@pytest.fixture(scope="module")
def page_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of two cases x two variants on one target."""
    root = tmp_path_factory.mktemp("variants") / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".evalwright").mkdir()
    (root / ".evalwright" / "targets.yaml").write_text(TARGETS, encoding="utf-8")
    (root / "evals").mkdir()
    (root / "evals" / "suite.yaml").write_text(EVAL, encoding="utf-8")
    result = ew.run(root / "evals" / "suite.yaml", out=root / "results.jsonl", workers=1)
    assert [r.variant for r in result.rows] == ["terse", "chatty", "terse", "chatty"]
    return write_report(result.results_path, root / "report.html")


def test_each_variant_is_a_column(page_path: Path, browser: Browser, watch: Watch) -> None:
    page = open_report(browser, page_path, watch)
    for column in ("default [terse]", "default [chatty]"):
        cell = page.locator(f'tr[data-column="{column}"] td[data-stat="cases"]')
        assert cell.get_attribute("data-value") == "2"
    page.close()
    page = open_report(browser, page_path, watch, "#v=cases")
    assert sorted(listed(page)) == [
        ("capital", "default [chatty]"),
        ("capital", "default [terse]"),
        ("city", "default [chatty]"),
        ("city", "default [terse]"),
    ]
    page.close()
    watch.assert_clean()


def test_two_variants_are_paired_as_compare_pairs_them(
    page_path: Path, browser: Browser, watch: Watch
) -> None:
    """The paired comparison of the variants is `evalwright compare RUN --variants A B`'s."""
    page = open_report(browser, page_path, watch)
    line = page.locator('#paired tr[data-kind="columns"]')
    assert line.count() == 1
    a, b = line.get_attribute("data-a") or "", line.get_attribute("data-b") or ""
    assert (a, b) == ("default [terse]", "default [chatty]")
    results = page_path.with_name("results.jsonl")
    (found,) = ew.compare(results, variants=("terse", "chatty")).paired().values()
    words = page.locator('#paired ul.plain li[data-b="default [chatty]"]').inner_text()
    assert words == found.plain(a, b)
    assert line.locator('td[data-stat="mean"]').inner_text() == "0.000", "both answer Paris"
    page.close()
