"""A run collects cycles less often while it goes (a case's short-lived objects are freed by
reference counting; the cycle collector at Python's defaults cost a fifth of a case's CPU),
and gives the process its own setting back when it ends, however it ends and however runs
overlap."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

import evalwright as ew
from evalwright.orchestrator.gc_thresholds import RUN_GC_THRESHOLDS
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


class _Broken(_Seen):
    """A reporter that fails as the run starts, noting the thresholds then."""

    def start(self, summary: RunSummary) -> None:  # noqa: ARG002
        self.thresholds.append(gc.get_threshold())
        raise RuntimeError("the reporter broke")


class _Gated(_Seen):
    """A reporter that holds its run at the start until let go, saying it got there."""

    def __init__(self, fail: bool = False) -> None:
        super().__init__()
        self.started = threading.Event()
        self.go = threading.Event()
        self.fail = fail

    def start(self, summary: RunSummary) -> None:  # noqa: ARG002
        self.started.set()
        assert self.go.wait(60), "never let go"
        if self.fail:
            raise RuntimeError("the reporter broke")


def _run(project: ProjectDir, reporter: ew.Reporter, name: str) -> None:
    mock = ew.MockTarget(name="offline", response="Paris")
    ew.run(_suite(project, 2), targets=mock, out=project.root / name, reporter=reporter)


def test_runs_one_after_another_and_a_failing_run_restore_the_setting(
    project: ProjectDir, defaults: tuple[int, int, int]
) -> None:
    _run(project, _Seen(), "a.jsonl")
    _run(project, _Seen(), "b.jsonl")
    assert gc.get_threshold() == defaults
    broken = _Broken()
    with pytest.raises(RuntimeError, match="the reporter broke"):
        _run(project, broken, "c.jsonl")
    assert broken.thresholds == [(*RUN_GC_THRESHOLDS, 10)]
    assert gc.get_threshold() == defaults


@pytest.mark.parametrize("first_fails", [False, True])
def test_overlapping_runs_give_the_setting_back_when_the_last_ends(
    project: ProjectDir, defaults: tuple[int, int, int], first_fails: bool
) -> None:
    """The first run ends while the second goes (runs in threads, as from a notebook's
    loop): the second keeps collecting less often, and the process's setting comes back
    after it."""
    first, second = _Gated(fail=first_fails), _Gated()
    failures: list[BaseException] = []

    def run(reporter: _Gated, name: str) -> None:
        try:
            _run(project, reporter, name)
        except RuntimeError as exc:
            failures.append(exc)

    one = threading.Thread(target=run, args=(first, "one.jsonl"))
    two = threading.Thread(target=run, args=(second, "two.jsonl"))
    try:
        one.start()
        assert first.started.wait(60)
        two.start()
        assert second.started.wait(60)
        first.go.set()
        one.join(60)
        assert gc.get_threshold() == (*RUN_GC_THRESHOLDS, 10)  # the second run still goes
    finally:
        first.go.set()
        second.go.set()
        for thread in (one, two):
            if thread.ident is not None:
                thread.join(60)
    assert len(failures) == first_fails
    assert second.thresholds == [(*RUN_GC_THRESHOLDS, 10)] * 2
    assert gc.get_threshold() == defaults
