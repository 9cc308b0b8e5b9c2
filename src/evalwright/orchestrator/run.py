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
from evalwright.evalfile.diagnostics import Diagnostic
from evalwright.evalfile.evaluator_specs import CodeSpec, LlmJudgeSpec
from evalwright.orchestrator.calls import TargetCaller
from evalwright.orchestrator.case import Asked, CaseRunner
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

    def warning(self, diagnostic: Diagnostic) -> None:
        """A warning about the run's files (before the start, or as a streamed file is read)."""

    def row(self, row: dict[str, Any], summary: RunSummary) -> None:
        """A row finished and was written."""

    def finish(self, summary: RunSummary) -> None:
        """The run ended (completed or interrupted)."""


class _Silent:
    def start(self, summary: RunSummary) -> None:
        pass

    def warning(self, diagnostic: Diagnostic) -> None:
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
    _tell_warnings(plan, reporter)
    reporter.start(summary)
    try:
        pipeline = _Pipeline(
            runner, options, writer, summary, reporter, finished if options.resume else None
        )
        await pipeline.run(_pending(plan, skipped, summary, reporter))
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


def _tell_warnings(plan: Plan, reporter: Reporter) -> None:
    for diagnostic in plan.new_warnings():
        reporter.warning(diagnostic)


def _pending(
    plan: Plan, skipped: set[RowKey], summary: RunSummary, reporter: Reporter
) -> Iterator[WorkItem]:
    """The plan's items minus those a resumed file already holds; counts the exact total."""
    total = 0
    for item in plan.items():
        _tell_warnings(plan, reporter)  # a streamed file's warnings, as its cases are read
        total += 1
        if not skipped or _key(item) not in skipped:
            yield item
    summary.total = total
    summary.exact_total = True


class _Pipeline:
    """Workers that ask targets, and tasks that finish the answered cases.

    ``--workers`` bounds the cases waiting on something outside: a target, a judge or a
    script. A case with only built-in checks left waits on nothing, so its worker hands it to
    a finishing task and sends its next request at once; judging and writing then run while
    the requests are in flight (at most ``workers`` such cases wait to be finished).
    """

    def __init__(
        self,
        runner: CaseRunner,
        options: RunOptions,
        writer: ResultsWriter,
        summary: RunSummary,
        reporter: Reporter,
        finished: set[RowKey] | None,
    ) -> None:
        self.runner = runner
        self.workers = options.workers
        self.writer = writer
        self.summary = summary
        self.reporter = reporter
        self.finished = finished
        self.queue: asyncio.Queue[WorkItem | None] = asyncio.Queue(maxsize=options.workers * 2)
        self.slots = asyncio.Semaphore(options.workers)
        self.finishing: set[asyncio.Task[None]] = set()

    async def run(self, items: Iterator[WorkItem]) -> None:
        """Run every item; on any exit, stop what is still running."""
        tasks = [asyncio.ensure_future(self._produce(items))]
        tasks.extend(asyncio.ensure_future(self._work()) for _ in range(self.workers))
        try:
            await asyncio.gather(*tasks)
            while self.finishing:
                await asyncio.gather(*self.finishing)
        finally:
            for task in [*tasks, *self.finishing]:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*tasks, *self.finishing, return_exceptions=True)

    async def _produce(self, items: Iterator[WorkItem]) -> None:
        for item in items:
            await self.queue.put(item)
        for _ in range(self.workers):
            await self.queue.put(None)

    async def _work(self) -> None:
        while (item := await self.queue.get()) is not None:
            try:
                asked = await self.runner.ask(item)
            except Exception as exc:  # a bug must cost one row, not the run
                asked = Asked(item, None, None, "off", _internal(exc))
            await self.slots.acquire()
            if not _local_only(asked):
                await self._finish(asked)  # judges and scripts count against --workers
                continue
            task = asyncio.ensure_future(self._finish(asked))
            self.finishing.add(task)
            task.add_done_callback(self.finishing.discard)

    async def _finish(self, asked: Asked) -> None:
        try:
            row = await self.runner.finish(asked)
        except Exception as exc:  # a bug must cost one row, not the run
            row = self.runner.failed_row(asked.item, _internal(exc), asked.inputs)
        finally:
            self.slots.release()
        self._record(asked.item, row)

    def _record(self, item: WorkItem, row: dict[str, Any]) -> None:
        self.writer.write(row)
        if row["error"]:  # shown on the console too, so redacted like the file
            row["error"]["message"] = self.writer.redact(row["error"]["message"])
        if self.finished is not None:  # only a resumed run needs to know
            self.finished.add(_key(item))
        self.summary.add(row)
        self.reporter.row(row, self.summary)


def _local_only(asked: Asked) -> bool:
    """Whether finishing the case makes no call outside this process."""
    if asked.response is None:
        return True
    return not any(isinstance(e.spec, LlmJudgeSpec | CodeSpec) for e in asked.item.case.evaluators)


def _internal(exc: Exception) -> ProviderError:
    return ProviderError(f"internal error: {type(exc).__name__}: {exc}")
