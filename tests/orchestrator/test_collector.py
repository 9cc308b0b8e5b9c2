"""A run collects cycles less often while it goes (a case's short-lived objects are freed by
reference counting; the cycle collector at Python's defaults cost a fifth of a case's CPU),
and gives the process its own setting back when it ends, however it ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import evalwright as ew
from evalwright.orchestrator.run import RUN_GC_THRESHOLDS
from evalwright.orchestrator.summary import RunSummary
from evalwright.results.row import ResultRow
from tests.conftest import ProjectDir


class _Seen(ew.Reporter):
    """Records the collector's thresholds as each row is reported."""

    def __init__(self) -> None:
        self.thresholds: list[tuple[int, int, int]] = []

    def start(self, summary: RunSummary) -> None:
        pass

    def warning(self, diagnostic: ew.Diagnostic) -> None:
        pass

    def row(self, row: ResultRow, summary: RunSummary) -> None:  # noqa: ARG002
        self.thresholds.append(gc.get_threshold())

    def finish(self, summary: RunSummary) -> None:
        pass

    def waiting(self, target: str, requests: int, oldest_seconds: float) -> None:
        pass


@pytest.fixture
def defaults() -> Iterator[tuple[int, int, int]]:
    """Python's default thresholds for the test, whatever the process had."""
    old = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield (700, 10, 10)
    gc.set_threshold(*old)


def _suite(project: ProjectDir, count: int) -> ew.Suite:
    check = ew.ContainsSpec(name="paris", value="Paris")
    cases = [
        ew.EvalCase(
            id=f"c{i}",
            expected_outcome="o",
            input="Capital?",
            execution=ew.Execution(evaluators=[check]),
        )
        for i in range(count)
    ]
    return ew.Suite(cases, base_dir=project.root)


def test_a_run_collects_less_often_and_restores_the_setting(
    project: ProjectDir, defaults: tuple[int, int, int]
) -> None:
    seen = _Seen()
    mock = ew.MockTarget(name="offline", response="Paris")
    result = ew.run(_suite(project, 3), targets=mock, out=project.root / "r.jsonl", reporter=seen)
    assert len(result.rows) == 3
    assert seen.thresholds == [(*RUN_GC_THRESHOLDS, 10)] * 3
    assert gc.get_threshold() == defaults


def test_a_higher_setting_of_the_process_is_kept(project: ProjectDir) -> None:
    old = gc.get_threshold()
    gc.set_threshold(50_000, 100, 20)
    try:
        seen = _Seen()
        mock = ew.MockTarget(name="offline", response="Paris")
        ew.run(_suite(project, 1), targets=mock, out=project.root / "r.jsonl", reporter=seen)
        assert seen.thresholds == [(50_000, 100, 20)]
        assert gc.get_threshold() == (50_000, 100, 20)
    finally:
        gc.set_threshold(*old)
