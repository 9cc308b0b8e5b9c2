"""Run every planned case through a bounded queue of workers (``evalwright eval`` and
:func:`evalwright.run`).

Cases are produced lazily into a small queue, so memory stays flat however many there are;
each finished row is written and flushed at once, so an interrupted run keeps all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

from evalwright import logs
from evalwright.errors import Diagnostic, internal_error
from evalwright.evalfile.evaluator_specs import CodeSpec, LlmJudgeSpec
from evalwright.executors.ray_cluster import RayExecutor
from evalwright.orchestrator.batch.aside import SetAside
from evalwright.orchestrator.batch.cases import BatchRunner
from evalwright.orchestrator.batch.judges import JudgeBatcher
from evalwright.orchestrator.batch.state import BatchState
from evalwright.orchestrator.budget import Budget
from evalwright.orchestrator.calls import TargetCaller
from evalwright.orchestrator.case import AnsweredCase, CaseRunner
from evalwright.orchestrator.gc_thresholds import fewer_collections
from evalwright.orchestrator.output import open_results
from evalwright.orchestrator.plan import Plan, RunOptions, WorkItem, work_key
from evalwright.orchestrator.summary import RunSummary
from evalwright.providers.batching import BatchStatus
from evalwright.redact import Redactor, redacting
from evalwright.results.cache import ResponseCache
from evalwright.results.index import RowIndex
from evalwright.results.row import ResultRow, case_label
from evalwright.results.writer import ResultsWriter
from evalwright.tools.mcp import McpServers


class Reporter(Protocol):
    """Told how a run goes (the command line draws progress from it)."""

    def start(self, summary: RunSummary) -> None:
        """The run begins; ``summary.total`` rows are planned."""

    def warning(self, diagnostic: Diagnostic) -> None:
        """A warning about the run's files (before the start, or as a streamed file is read)."""

    def row(self, row: ResultRow, summary: RunSummary) -> None:
        """A row finished and was written (its error message redacted like the file)."""

    def finish(self, summary: RunSummary) -> None:
        """The run ended (completed or interrupted)."""

    def waiting(self, target: str, requests: int, oldest_seconds: float) -> None:
        """No row finished for :data:`STALL_SECONDS`: ``requests`` to ``target`` are in flight,
        the oldest sent ``oldest_seconds`` ago (told again every STALL_SECONDS it lasts)."""


@runtime_checkable
class BatchReporter(Protocol):
    """A reporter that is also told how batches go (docs/batch.md#progress)."""

    def batch(
        self, target: str, batch_id: str, status: str, completed: int, failed: int, total: int
    ) -> None:
        """A batch of ``target`` was asked its status: its state and request counts."""


class SilentReporter:
    """A reporter that tells nobody (the default of a run)."""

    def start(self, summary: RunSummary) -> None:
        pass

    def warning(self, diagnostic: Diagnostic) -> None:
        pass

    def row(self, row: ResultRow, summary: RunSummary) -> None:
        pass

    def finish(self, summary: RunSummary) -> None:
        pass

    def waiting(self, target: str, requests: int, oldest_seconds: float) -> None:
        pass


STALL_SECONDS = 10.0
"""How long no row may finish before the reporter is told what is in flight. Tests lower it
(by setting this attribute); it is not a setting."""


async def execute(plan: Plan, reporter: Reporter) -> RunSummary:
    """Run the plan with ``options.workers`` cases at once."""
    redact = Redactor.from_environment(plan.registry.env, plan.registry.all_api_keys())
    plan.registry.use_redactor(redact)
    executor = None
    if plan.options.executor == "ray":
        executor = await RayExecutor.connect(plan.project.root, plan.options.ray_address)
        plan.registry.use_runner(executor.runner_for)
    try:
        # What a run logs and cuts is redacted like what it writes.
        with redacting(redact), fewer_collections():
            return await _execute(plan, reporter, redact)
    finally:
        if executor is not None:
            executor.close()


async def _execute(plan: Plan, reporter: Reporter, redact: Redactor) -> RunSummary:
    options = plan.options
    results = open_results(plan, redact)
    cache: ResponseCache | None = None
    summary = RunSummary(
        options.resume or options.out or results.path,
        plan.estimated,
        options.pass_mark,
        options.threshold,
        options.pass_rule,
        exact_total=plan.exact,
        max_cost=options.max_cost,
    )
    started = time.perf_counter()
    try:
        use_cache = options.cache if options.cache is not None else plan.project.config.cache
        if use_cache:
            cache = ResponseCache(plan.project.root / ".evalwright" / "cache", redact)
        # A cache that could not be opened is off: its rows say so ("cache": "off").
        usable = cache if cache is not None and cache.usable else None
        caller = TargetCaller(plan.registry, usable, Budget(options.max_cost))
        # Starts nothing until a case offers an MCP server's tools (docs/tools.md#mcp-servers).
        servers = McpServers(plan.registry.child_env)
        runner = CaseRunner(plan, caller, results.run_id, servers)
        _tell_warnings(plan, reporter)
        reporter.start(summary)
        pipeline = _Pipeline(runner, options, results.writer, summary, reporter)
        aside = SetAside(plan, lambda: _batch_runner(results.path, pipeline))
        try:
            live = aside.live(_pending(plan, results.previous, summary, reporter))
            await aside.alongside(pipeline.run(live))
            await pipeline.drain()
            aside.settle(errors=summary.errors > 0)
        finally:
            await aside.aclose()
            await servers.aclose()
            summary.unreachable = dict(caller.unreachable)
            summary.rate_limited = caller.limits.refused()
            summary.spent_usd = caller.spent
            summary.uncertain_usd = caller.budget.uncertain
            summary.budget_stop = caller.budget.refused
            summary.batch_discounted = dict(caller.batch_discounted)
    except asyncio.CancelledError:
        summary.interrupted = True
        raise
    finally:
        results.close()
        if cache is not None:
            cache.close()
            summary.cache_warnings = cache.warnings()
        await plan.registry.aclose()
        summary.wall_seconds = time.perf_counter() - started
        reporter.finish(summary)
    return summary


def _tell_warnings(plan: Plan, reporter: Reporter) -> None:
    for diagnostic in plan.new_warnings():
        reporter.warning(diagnostic)


def _batch_runner(results: Path, pipeline: _Pipeline) -> BatchRunner:
    """The runner of a run's batches, its state file read back with ``--resume``."""
    options, runner = pipeline.runner.plan.options, pipeline.runner
    state = BatchState.open(results, options.resume is not None, pipeline.writer.redact)
    tell = _batch_teller(pipeline.reporter)
    judges = None
    if not options.judge_live:
        judges = JudgeBatcher(runner.caller, state, tell, pipeline.slots)
    return BatchRunner(runner, state, pipeline.hand, tell, judges)


def _batch_teller(reporter: Reporter) -> Callable[[str, str, BatchStatus], None]:
    """Tells the reporter each batch status, when it listens for them (:class:`BatchReporter`)."""

    def tell(target: str, batch_id: str, status: BatchStatus) -> None:
        if isinstance(reporter, BatchReporter):
            reporter.batch(
                target, batch_id, status.shown, status.completed, status.failed, status.total
            )

    return tell


def _pending(
    plan: Plan, previous: RowIndex | None, summary: RunSummary, reporter: Reporter
) -> Iterator[WorkItem]:
    """The plan's items but those whose row a resumed file holds as ``ok`` (counted in the
    summary instead); counts the exact total. Rows of other cases and targets in the file are
    not the run's, and are not counted."""
    total = 0
    try:
        for item in plan.items():
            _tell_warnings(plan, reporter)  # a streamed file's warnings, as its cases are read
            total += 1
            kept = previous.get(work_key(item)) if previous is not None else None
            if kept is not None and kept.ok:
                summary.count(kept)
                continue
            yield item
    finally:
        _tell_warnings(plan, reporter)  # those found once every case was read (--only-failed)
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
    ) -> None:
        self.runner = runner
        self.workers = options.workers
        self.writer = writer
        self.summary = summary
        self.reporter = reporter
        self.queue: asyncio.Queue[WorkItem | None] = asyncio.Queue(maxsize=options.workers * 2)
        self.slots = asyncio.Semaphore(options.workers)
        self.finishing: set[asyncio.Task[None]] = set()
        self.failure: BaseException | None = None
        """What a finishing task raised (a reporter's own error): it ends the run."""
        self.last_row = time.monotonic()  # when a row last finished (or the run began)

    async def run(self, items: Iterator[WorkItem]) -> None:
        """Run every item; on any exit, stop what is still running."""
        tasks = [asyncio.ensure_future(self._produce(items))]
        tasks.extend(asyncio.ensure_future(self._work()) for _ in range(self.workers))
        watch = asyncio.ensure_future(self._watch())
        try:
            await asyncio.gather(*tasks)
            await self.drain()
        finally:
            watch.cancel()
            for task in [*tasks, *self.finishing, watch]:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*tasks, *self.finishing, watch, return_exceptions=True)

    async def _watch(self) -> None:
        """Tell the reporter what is in flight when no row finished for STALL_SECONDS, and
        again every STALL_SECONDS while that lasts: a stalled server must not look like a
        frozen run."""
        told = time.monotonic()
        while True:
            stall = STALL_SECONDS
            await asyncio.sleep(min(stall / 5, 1.0))
            now = time.monotonic()
            if now - max(self.last_row, told) < stall:
                continue
            told = now
            for target, requests, oldest in self.runner.caller.in_flight():
                self.reporter.waiting(target, requests, now - oldest)

    async def _produce(self, items: Iterator[WorkItem]) -> None:
        for item in items:
            await self.queue.put(item)
        for _ in range(self.workers):
            await self.queue.put(None)

    async def _work(self) -> None:
        while (item := await self.queue.get()) is not None:
            self._raise_failure()
            if self._over_budget():  # counted, not started: --resume runs it
                self.summary.not_run += 1
                continue
            # Names the case in what is logged while it is asked and finished (this task's
            # context, copied into a finishing task).
            logs.set_context(f"{case_label(item.case.id, item.repeat)} on {item.target}")
            try:
                asked = await self.runner.ask(item)
            except Exception as exc:  # a bug must cost one row, not the run
                asked = AnsweredCase(item, None, None, "off", internal_error(exc))
            if _refused_at_once(asked):  # counted, not started: --resume runs it
                self.summary.not_run += 1
                if asked.workspace is not None:
                    asked.workspace.remove()
                continue
            await self.slots.acquire()
            if not _local_only(asked):
                await self._finish(asked)  # judges and scripts count against --workers
                continue
            self._start_finishing(asked)

    def _start_finishing(self, asked: AnsweredCase) -> asyncio.Task[None]:
        task = asyncio.ensure_future(self._finish(asked))
        self.finishing.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[None]) -> None:
        # Kept here: once out of the set, nothing else would ever read what it raised.
        self.finishing.discard(task)
        if not task.cancelled() and task.exception() is not None and self.failure is None:
            self.failure = task.exception()

    def _raise_failure(self) -> None:
        if self.failure is not None:
            raise self.failure

    async def hand(self, asked: AnsweredCase) -> asyncio.Future[None]:
        """Start finishing a case answered elsewhere (batch mode) as a worker would; the
        future ends with its row written (at once for a case the budget refused)."""
        if _refused_at_once(asked):
            self.summary.not_run += 1
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            done.set_result(None)
            return done
        await self.slots.acquire()
        return self._start_finishing(asked)

    async def drain(self) -> None:
        """Wait until every handed case is finished and written; raise what a finishing task
        raised."""
        while self.finishing:
            await asyncio.gather(*self.finishing)
        self._raise_failure()

    def _over_budget(self) -> bool:
        """Whether ``--max-cost`` refused a call: no new case starts then
        (docs/running.md#--max-cost)."""
        return self.runner.caller.budget.refused is not None

    async def _finish(self, asked: AnsweredCase) -> None:
        try:
            row = await self.runner.finish(asked)
        except Exception as exc:  # a bug must cost one row, not the run
            row = self.runner.failed_row(asked.item, internal_error(exc), asked.inputs)
        finally:
            self.slots.release()
        self._record(row)

    def _record(self, row: ResultRow) -> None:
        # The row as written: redacted, or an error row when it could not be written.
        row = self.writer.write(row)
        self.last_row = time.monotonic()
        self.summary.spent_usd = self.runner.caller.spent
        self.summary.add(row)
        self.reporter.row(row, self.summary)


def _refused_at_once(asked: AnsweredCase) -> bool:
    """Whether ``--max-cost`` refused the case's first call: nothing of it was answered, so it
    has no row and counts as not run (docs/running.md#--max-cost)."""
    failure, held = asked.failure, asked.conversation
    if failure is None or failure.error_type != "over_budget":
        return False
    return held is None or (not held.turns and held.failed_simulator is None)


def _local_only(asked: AnsweredCase) -> bool:
    """Whether finishing the case makes no call outside this process."""
    if asked.response is None:
        return True
    case = asked.item.case
    evaluators = (*case.evaluators, *(e for turn in case.turns for e in turn.evaluators))
    return not any(isinstance(e.spec, LlmJudgeSpec | CodeSpec) for e in evaluators)
