"""``evalwright eval``: run eval files against targets and write the results."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Generator
from pathlib import Path

from evalwright import logs
from evalwright.cli.progress import Progress, summary_table
from evalwright.orchestrator.plan import RunOptions
from evalwright.orchestrator.run import run_eval
from evalwright.orchestrator.summary import RunSummary
from evalwright.results.redact import Redactor

INTERRUPTED = 130


def options_from(args: argparse.Namespace) -> RunOptions:
    """The run's options from the parsed command line."""
    return RunOptions(
        paths=list(args.paths),
        targets=list(dict.fromkeys(args.target or ())),  # a target named twice runs once
        targets_file=Path(args.targets) if args.targets else None,
        eval_id=tuple(args.eval_id or ()),
        workers=args.workers,
        out=Path(args.out) if args.out else None,
        resume=Path(args.resume) if args.resume else None,
        cache=args.cache,
        dry_run=args.dry_run,
        pass_mark=args.pass_mark,
        threshold=args.threshold,
    )


class _Reporter(Progress):
    """Progress that also keeps the summary for an interrupted run."""

    summary: RunSummary | None = None

    def finish(self, summary: RunSummary) -> None:
        super().finish(summary)
        self.summary = summary


def run(args: argparse.Namespace) -> int:
    """Run, print the summary table, and exit 0 (all ran, threshold met), 1, or 130."""
    reporter = _Reporter(sys.stderr, quiet=args.quiet)
    try:
        with _logging(args.verbose, reporter):
            summary = run_eval(options_from(args), reporter)
    except KeyboardInterrupt:
        if reporter.summary is not None:
            print(summary_table(reporter.summary))
        print("evalwright: interrupted; every finished row is kept", file=sys.stderr)
        return INTERRUPTED
    print(summary_table(summary))
    return summary.exit_code()


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
