"""``evalwright eval``: run eval files against targets and write the results."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Generator
from pathlib import Path

from evalwright import logs
from evalwright.api.run import run as run_evals
from evalwright.cli.argtypes import settings_from
from evalwright.cli.progress import (
    Progress,
    batch_price_note,
    budget_message,
    rate_limit_note,
    summary_table,
    uncertain_note,
)
from evalwright.errors import printable
from evalwright.evalfile.discovery import survey, survey_notes
from evalwright.orchestrator.summary import RunSummary
from evalwright.outputs.ci import CiOutputs
from evalwright.redact import Redactor

INTERRUPTED = 130


class _Reporter(Progress):
    """Progress that also keeps the summary for an interrupted run."""

    summary: RunSummary | None = None

    def finish(self, summary: RunSummary) -> None:
        super().finish(summary)
        self.summary = summary


def run(args: argparse.Namespace) -> int:
    """Run, print the summary table, and exit 0 (all ran and passed), 1, or 130
    (docs/running.md#exit-status); with ``--watch``, run again after each change until
    Ctrl-C (docs/running.md#watching)."""
    if getattr(args, "watch", False):
        from evalwright.cli.watch import watch

        return watch(args, run_once)
    return run_once(args)


def run_once(args: argparse.Namespace) -> int:
    """One run: the summary table, the report and CI outputs asked for, and the exit code."""
    outputs = CiOutputs.checked(args.junit, args.summary_md, os.environ)
    reporter = _Reporter(sys.stderr, quiet=args.quiet)
    if not args.quiet:
        _print_survey(list(args.paths))
    try:
        with _logging(args.verbose, reporter):
            result = run_evals(list(args.paths), **settings_from(args, reporter))
    except KeyboardInterrupt:
        if reporter.summary is not None:
            print(summary_table(reporter.summary))
        print("evalwright: interrupted; every finished row is kept", file=sys.stderr)
        return INTERRUPTED
    print(summary_table(result.summary))
    for name, failure in result.summary.unreachable.items():
        print(
            printable(
                f"evalwright: target '{name}' is unreachable ({failure}): its remaining cases "
                "were not sent and are recorded as target_unreachable errors; start it and "
                "rerun them with --resume",
                one_line=True,
            ),
            file=sys.stderr,
        )
    for warning in result.summary.cache_warnings:
        print(printable(f"evalwright: warning: {warning}", one_line=True), file=sys.stderr)
    notes = (batch_price_note, rate_limit_note, uncertain_note)
    for note in (tell(result.summary) for tell in notes):
        if note is not None:
            print(printable(note, one_line=True), file=sys.stderr)
    if result.summary.over_budget:
        print(printable(budget_message(result.summary), one_line=True), file=sys.stderr)
    if args.report is not None:
        # Imported here: a run without --report never pays for the report's modules.
        from evalwright.report import write_report

        page = write_report(result.results_path, args.report or None, pass_mark=args.pass_mark)
        print(f"report: {page}")
    outputs.write(result.summary)
    return result.summary.exit_code()


def _print_survey(paths: list[str]) -> None:
    """What each file of a named directory is read as, and what is skipped and why
    (docs/running.md#directories)."""
    for raw in paths:
        if os.path.isdir(raw):
            for note in survey_notes(*survey(Path(raw)), every=False):
                print(printable(f"note: {note}", one_line=True), file=sys.stderr)


@contextlib.contextmanager
def _logging(verbosity: int, progress: Progress) -> Generator[None]:
    """``-v``: log lines on stderr, between the progress lines (docs/running.md#logging).

    The run redacts them with its own redactor; the process environment's secrets are
    redacted from the first line on, before the run has built it."""
    if not verbosity:
        yield
        return
    redact = Redactor.from_environment(os.environ)
    with logs.verbose(logs.level_of(verbosity), progress.line, redact):
        yield
