"""``evalwright eval``: run every planned case through a bounded queue of workers.

Cases are produced lazily into a small queue, so memory stays flat however many there are;
each finished row is written and flushed at once, so an interrupted run keeps all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from evalwright.errors import ProviderError
from evalwright.orchestrator.calls import TargetCaller
from evalwright.orchestrator.case import CaseRunner
from evalwright.orchestrator.plan import Plan, RunOptions, WorkItem, load_plan
from evalwright.orchestrator.summary import RunSummary
from evalwright.results.cache import ResponseCache
from evalwright.results.redact import Redactor
from evalwright.results.resume import PreviousRun, RowKey, read_previous
from evalwright.results.writer import ResultsWriter


class Reporter(Protocol):
    """Told how a run goes (the command line draws progress from it)."""

    def start(self, summary: RunSummary) -> None:
        """The run begins; ``summary.total`` rows are planned."""

    def row(self, row: dict[str, Any], summary: RunSummary) -> None:
        """A row finished and was written."""

    def finish(self, summary: RunSummary) -> None:
        """The run ended (completed or interrupted)."""


class _Silent:
    def start(self, summary: RunSummary) -> None:
        pass

    def row(self, row: dict[str, Any], summary: RunSummary) -> None:
        pass

    def finish(self, summary: RunSummary) -> None:
        pass


def new_run_id() -> str:
    """A run id: the UTC start time and a random suffix."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:8]


def default_results_path(plan: Plan) -> Path:
    """``<root>/.evalwright/results/<stem>-<YYYYMMDDTHHMMSSZ>.jsonl``."""
    stem = plan.suites[0].path.stem if len(plan.suites) == 1 else "run"
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return plan.project.root / ".evalwright" / "results" / f"{stem}-{stamp}.jsonl"


def run_eval(options: RunOptions, reporter: Reporter | None = None) -> RunSummary:
    """Plan and run an eval; raise ConfigError before anything runs if the setup is wrong."""
    plan = load_plan(options)
    return asyncio.run(execute(plan, reporter or _Silent()))


def _key(item: WorkItem) -> RowKey:
    return (item.suite.relative_path, item.case.id, item.target)


async def execute(plan: Plan, reporter: Reporter) -> RunSummary:
    """Run the plan with ``options.workers`` cases at once."""
    options = plan.options
    previous = read_previous(options.resume) if options.resume else PreviousRun()
    path = options.resume or options.out or default_results_path(plan)
    redact = Redactor.from_environment(plan.registry.env, plan.registry.all_api_keys())
    plan.registry.use_redactor(redact)
    writer = ResultsWriter(path, redact, keep=previous.kept if options.resume else None)
    use_cache = options.cache if options.cache is not None else plan.project.config.cache
    cache = (
        ResponseCache(plan.project.root / ".evalwright" / "cache", redact) if use_cache else None
    )
    runner = CaseRunner(plan, TargetCaller(plan.registry, cache), previous.run_id or new_run_id())
    skipped = previous.kept_keys
    summary = RunSummary(
        path, plan.estimated, options.pass_mark, options.threshold, exact_total=plan.exact
    )
    for line in previous.kept:
        summary.add(json.loads(line))
    finished: set[RowKey] = set()
    started = time.perf_counter()
    reporter.start(summary)
    try:
        await _work(
            _pending(plan, skipped, summary),
            runner,
            options,
            writer,
            summary,
            reporter,
            finished if options.resume else None,
        )
    except asyncio.CancelledError:
        summary.interrupted = True
        raise
    finally:
        leftover = [line for key, line in previous.errored.items() if key not in finished]
        summary.results_path = writer.close(leftover if options.resume else None)
        if cache is not None:
            cache.close()
        await plan.registry.aclose()
        summary.wall_seconds = time.perf_counter() - started
        reporter.finish(summary)
    return summary


def _pending(plan: Plan, skipped: set[RowKey], summary: RunSummary) -> Iterator[WorkItem]:
    """The plan's items minus those a resumed file already holds; counts the exact total."""
    total = 0
    for item in plan.items():
        total += 1
        if not skipped or _key(item) not in skipped:
            yield item
    summary.total = total
    summary.exact_total = True


async def _work(
    items: Iterator[WorkItem],
    runner: CaseRunner,
    options: RunOptions,
    writer: ResultsWriter,
    summary: RunSummary,
    reporter: Reporter,
    finished: set[RowKey] | None,
) -> None:
    queue: asyncio.Queue[WorkItem | None] = asyncio.Queue(maxsize=options.workers * 2)

    async def produce() -> None:
        for item in items:
            await queue.put(item)
        for _ in range(options.workers):
            await queue.put(None)

    async def work() -> None:
        while (item := await queue.get()) is not None:
            row = await _run_one(runner, item)
            writer.write(row)
            if row["error"]:  # shown on the console too, so redacted like the file
                row["error"]["message"] = writer.redact(row["error"]["message"])
            if finished is not None:  # only a resumed run needs to know
                finished.add(_key(item))
            summary.add(row)
            reporter.row(row, summary)

    tasks = [asyncio.ensure_future(produce())]
    tasks.extend(asyncio.ensure_future(work()) for _ in range(options.workers))
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*tasks, return_exceptions=True)


async def _run_one(runner: CaseRunner, item: WorkItem) -> dict[str, Any]:
    try:
        return await runner.run(item)
    except Exception as exc:  # a bug must cost one row, not the run
        failure = ProviderError(f"internal error: {type(exc).__name__}: {exc}")
        return runner.failed_row(item, failure)
