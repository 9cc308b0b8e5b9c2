"""``evalwright eval``'s output options (docs/running.md): kept apart from the parser's module
so that each stays small; like it, this imports only argparse."""

from __future__ import annotations

import argparse
from typing import Any


def add_eval_output(run: Any) -> None:
    """``eval``'s options for where its results go and what it shows while running."""
    run.add_argument("--out", metavar="FILE", help="the results file (JSON Lines)")
    run.add_argument(
        "--resume",
        metavar="FILE",
        help="rerun the missing and errored rows of an earlier results file",
    )
    run.add_argument(
        "--cache",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="reuse cached answers (default: config.yaml's cache)",
    )
    run.add_argument(
        "--report",
        nargs="?",
        const="",
        metavar="FILE",
        help="also write the HTML report (default: the results file with .html)",
    )
    run.add_argument(
        "--junit", metavar="FILE", help="also write the rows as JUnit XML, for CI systems"
    )
    run.add_argument(
        "--summary-md",
        metavar="FILE",
        help="also write a Markdown summary (appended to $GITHUB_STEP_SUMMARY when set)",
    )
    run.add_argument("--quiet", action="store_true", help="print no progress")
    run.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="log retries and failing healthchecks on stderr; -vv also each request",
    )
    run.add_argument(
        "--watch",
        action="store_true",
        help="after the run, rerun whenever an eval file or a file it uses changes "
        "(with the cache on: only what changed is sent again); Ctrl-C stops",
    )
