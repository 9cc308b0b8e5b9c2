"""The judges' run metrics in the HTML report (docs/judges.md#run-metrics): in the embedded
data, and shown on the overview in a real browser."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

import evalwright as ew
from evalwright.testing import FakeServer
from tests.conftest import ProjectDir
from tests.evaluators.panel_run import responder, write_project
from tests.report.browser import Watch, open_report
from tests.report.conftest import embedded

SCRIPT: dict[str, dict[str, float | str]] = {
    "a": {"ja": 0.9, "jb": 0.8, "jc": 1.0},
    "b": {"ja": 0.2, "jb": "no verdict", "jc": 0.1},
    "c": {"ja": 0.1, "jb": 0.9, "jc": 0.5},
}


@pytest.fixture
def judged(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> Iterator[ew.RunResult]:
    """A panel run of three scripted judges."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer.in_thread() as fake:
        suite = write_project(
            project, fake.url, list(SCRIPT), "{name: p, type: llm_judge, judges: [ja, jb, jc]}"
        )
        fake.responder = responder(SCRIPT)
        yield ew.run(suite, targets=["cand"], out=project.root / "r.jsonl")


def test_the_payload_holds_the_runs_judge_metrics(judged: ew.RunResult) -> None:
    metrics = judged.judges
    assert metrics is not None
    (data,) = embedded(ew.write_report(judged.results_path))["judges"]
    assert isinstance(data, dict)
    assert data["targets"] == {
        "ja": {"calls": 3, "parse_failures": 0, "retries": 0},
        "jb": {"calls": 4, "parse_failures": 2, "retries": 1},
        "jc": {"calls": 3, "parse_failures": 0, "retries": 0},
    }
    (panel,) = data["panels"]  # type: ignore[misc]
    assert isinstance(panel, dict)
    assert panel["alpha"] == pytest.approx(metrics.panels[0].alpha)
    assert panel["disagreements"][0]["case"] == "c"  # type: ignore[index]


def test_the_overview_shows_the_judges(judged: ew.RunResult, browser: Browser) -> None:
    metrics = judged.judges
    assert metrics is not None
    assert metrics.panels[0].alpha is not None
    watch = Watch()
    page = open_report(browser, ew.write_report(judged.results_path), watch)
    section = page.locator("#judges")
    assert section.locator('tr[data-judge="jb"] td').all_inner_texts() == ["4", "2", "1"]
    shown = section.locator('[data-stat="alpha"]').inner_text()
    assert shown == f"{metrics.panels[0].alpha:.3f}"
    assert "c on cand: spread 0.80 (ja 0.10, jb 0.90, jc 0.50)" in section.inner_text()
    page.close()
    watch.assert_clean()
