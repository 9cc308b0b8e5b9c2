"""Running evals from Python: :func:`run` and :func:`run_async`
(docs/python-api.md#running).

Both take eval files, directories and :class:`Suite` objects, and the options of
``evalwright eval``. :func:`run` blocks, and works inside a running event loop (a notebook)
by running in a worker thread; :func:`run_async` returns an :class:`AsyncRun` to await for
the :class:`RunResult`, or to iterate for each row as it finishes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
from collections.abc import AsyncIterator, Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Unpack

from evalwright.errors import Diagnostic
from evalwright.evalfile.suite import Suite
from evalwright.orchestrator.options import RunOptions, RunSettings, accepted, chosen_targets
from evalwright.orchestrator.plan import load_plan
from evalwright.orchestrator.run import BatchReporter, Reporter, SilentReporter, execute
from evalwright.orchestrator.summary import RunSummary, TargetStats
from evalwright.results.row import ResultRow
from evalwright.stats.judging import JudgeMetrics
from evalwright.stats.reliability import Reliability

SuiteSource = Suite | str | os.PathLike[str]
"""An eval file, a directory of them, or a suite."""


@dataclass(frozen=True, slots=True, repr=False)
class RunResult:
    """A finished run: the rows it wrote, in the order they finished, and its summary."""

    rows: tuple[ResultRow, ...]
    summary: RunSummary

    def __repr__(self) -> str:
        # Short: a notebook shows it, and asyncio formats it when a run's loop shuts down;
        # the rows in full would cost a second per few thousand.
        mean = "n/a" if self.mean is None else f"{self.mean:.3f}"
        return (
            f"RunResult({len(self.rows)} rows, mean {mean}, passed={self.passed}, "
            f"results_path={str(self.results_path)!r})"
        )

    @property
    def results_path(self) -> Path:
        """The results file the rows were written to."""
        return self.summary.results_path

    @property
    def targets(self) -> dict[str, TargetStats]:
        """Counts and scores per target (rows kept from a resumed file included)."""
        return self.summary.targets

    @property
    def mean(self) -> float | None:
        """The mean score of every ``ok`` row."""
        return self.summary.mean

    @property
    def cost_usd(self) -> float | None:
        """What the target calls of the rows cost in USD, rows kept from a resumed file and
        cache hits included (``None`` when no row's cost is known; docs/running.md#cost)."""
        return self.summary.cost_usd

    @property
    def judge_cost_usd(self) -> float | None:
        """What the rows' judge calls cost in USD, likewise."""
        return self.summary.judge_cost_usd

    @property
    def total_cost_usd(self) -> float | None:
        """Target and judge calls together, likewise."""
        return self.summary.total_cost_usd

    @property
    def spent_usd(self) -> float:
        """What this run's calls cost in USD: cache misses only, target and judge."""
        return self.summary.spent_usd

    @property
    def not_run(self) -> int:
        """Cases ``max_cost`` left unstarted, or refused before any of their calls was
        answered (``--resume`` runs them)."""
        return self.summary.not_run

    @property
    def reliability(self) -> dict[str, Reliability]:
        """Per target, how reliably its cases pass over their repeats: ``.repeats``,
        ``.pass_at(k)``, ``.pass_hat(k)``, ``.mean``, ``.ci95``, ``.std_dev``, ``.flaky``
        (docs/python-api.md#reliability; errored rows are left out)."""
        return {name: stats.reliability for name, stats in self.summary.targets.items()}

    @property
    def judges(self) -> JudgeMetrics | None:
        """The judges' run metrics: per judge target, and each panel's agreement; ``None``
        when no judge ran (docs/judges.md#run-metrics)."""
        return self.summary.judges

    @property
    def passed(self) -> bool:
        """Whether every case ran and passed (with a threshold: each target's mean meets it),
        ``eval``'s exit 0 (docs/running.md#exit-status)."""
        return self.summary.exit_code() == 0


def options_for(suites: SuiteSource | Sequence[SuiteSource], settings: RunSettings) -> RunOptions:
    """The :class:`RunOptions` of a call to :func:`run`, each option checked."""
    given: list[SuiteSource] = (
        [suites] if isinstance(suites, Suite | str | os.PathLike) else list(suites)
    )
    chosen = chosen_targets(settings.get("targets", ()))
    return RunOptions(
        paths=[os.fspath(s) for s in given if not isinstance(s, Suite)],
        suites=tuple(s for s in given if isinstance(s, Suite)),
        given_targets=tuple(t for t in chosen if not isinstance(t, str)),
        **accepted(settings),
    )


class _Collector(SilentReporter):
    """Hands each finished row to the iterating caller, and to the caller's reporter."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.rows: asyncio.Queue[ResultRow] = asyncio.Queue()

    def start(self, summary: RunSummary) -> None:
        self.reporter.start(summary)

    def warning(self, diagnostic: Diagnostic) -> None:
        self.reporter.warning(diagnostic)

    def row(self, row: ResultRow, summary: RunSummary) -> None:
        self.rows.put_nowait(row)
        self.reporter.row(row, summary)

    def finish(self, summary: RunSummary) -> None:
        self.reporter.finish(summary)

    def waiting(self, target: str, requests: int, oldest_seconds: float) -> None:
        self.reporter.waiting(target, requests, oldest_seconds)

    def batch(
        self, target: str, batch_id: str, status: str, completed: int, failed: int, total: int
    ) -> None:
        if isinstance(self.reporter, BatchReporter):
            self.reporter.batch(target, batch_id, status, completed, failed, total)


class AsyncRun:
    """A run started by :func:`run_async`: ``await`` it for the :class:`RunResult`, or
    ``async for row in it`` to get each row as it finishes (then read :attr:`result`).

    Leaving the loop early stops the run; the rows written so far are kept.
    """

    def __init__(self, options: RunOptions, reporter: Reporter | None) -> None:
        self.options = options
        self.reporter = reporter or SilentReporter()
        self.keep_rows = True
        """Whether the :class:`RunResult` holds the rows (``keep_rows`` of :func:`run`)."""
        self._result: RunResult | None = None

    @property
    def result(self) -> RunResult:
        """The finished run (after awaiting, or iterating to the end)."""
        if self._result is None:
            raise RuntimeError("the run has not finished: await it or iterate it to the end")
        return self._result

    def __await__(self) -> Generator[Any, None, RunResult]:
        return self._complete().__await__()

    async def _complete(self) -> RunResult:
        async for _ in self:
            pass
        return self.result

    def __aiter__(self) -> AsyncIterator[ResultRow]:
        return self._rows()

    async def _rows(self) -> AsyncIterator[ResultRow]:
        # Reading the files is blocking work: keep it off the caller's loop.
        plan = await asyncio.to_thread(load_plan, self.options)
        collector = _Collector(self.reporter)
        task = asyncio.ensure_future(execute(plan, collector))
        rows: list[ResultRow] = []
        try:
            while True:
                row = await _next_row(collector.rows, task)
                if row is None:
                    break
                if self.keep_rows:
                    rows.append(row)
                yield row
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._result = RunResult(tuple(rows), task.result())


async def _next_row(
    rows: asyncio.Queue[ResultRow], task: asyncio.Future[RunSummary]
) -> ResultRow | None:
    """The next finished row, or ``None`` once the run is over and every row was taken."""
    if not rows.empty():
        return rows.get_nowait()
    if task.done():
        task.result()  # a run that failed raises here
        return None
    getter = asyncio.ensure_future(rows.get())
    try:
        await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not getter.done():
            getter.cancel()
    if getter.done() and not getter.cancelled():
        return getter.result()
    return await _next_row(rows, task)


def run_async(
    suites: SuiteSource | Sequence[SuiteSource], **settings: Unpack[RunSettings]
) -> AsyncRun:
    """Start a run in the caller's event loop; see :func:`run` for the options."""
    handle = AsyncRun(options_for(suites, settings), settings.get("reporter"))
    handle.keep_rows = settings.get("keep_rows", True)
    return handle


def run(suites: SuiteSource | Sequence[SuiteSource], **settings: Unpack[RunSettings]) -> RunResult:
    """Run eval files, directories and suites against targets; return the rows and summary.

    Options are those of ``evalwright eval`` (:class:`RunSettings`; their keywords are in the
    table of docs/running.md#evalwright-eval), plus ``reporter`` and ``keep_rows``. A mistake
    in the files or options raises :class:`ConfigError` before anything runs; a failing
    target only marks its rows.
    """
    handle = run_async(suites, **settings)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(handle._complete())  # pyright: ignore[reportPrivateUsage]
    # A loop is already running here (a notebook): the run gets its own, in a thread.
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="evalwright") as pool:
        return pool.submit(asyncio.run, handle._complete()).result()  # pyright: ignore[reportPrivateUsage]
