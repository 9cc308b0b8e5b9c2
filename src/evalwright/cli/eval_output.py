"""``evalwright eval``'s own options (docs/running.md#evalwright-eval): what it writes beside
the results file and what it shows while running. They never reach the run, so they are
declared here, as option records, rather than as fields of ``RunOptions``; like the parser's
module, this imports no dependency."""

from __future__ import annotations

from evalwright.orchestrator.option_spec import Option

EVAL_OUTPUT = (
    Option(
        ("--report",),
        "also write the HTML report (default: the results file with .html)",
        "when the run ends, also write the HTML report of its results file (default: beside "
        "it, with `.html`; [report.md](report.md))",
        name="report",
        metavar="FILE",
        action="optional",
    ),
    Option(
        ("--junit",),
        "also write the rows as JUnit XML, for CI systems",
        "also write the rows as JUnit XML for CI systems ([below](#junit-xml))",
        name="junit",
        metavar="FILE",
    ),
    Option(
        ("--summary-md",),
        "also write a Markdown summary (appended to $GITHUB_STEP_SUMMARY when set)",
        "also write a Markdown summary; appended to `$GITHUB_STEP_SUMMARY` when that is set "
        "([below](#markdown-summary))",
        name="summary_md",
        metavar="FILE",
    ),
    Option(
        ("--quiet",),
        "print no progress",
        "no progress output (the summary table is still printed)",
        name="quiet",
        default=False,
        action="flag",
    ),
    Option(
        ("-v", "--verbose"),
        "log retries and failing healthchecks on stderr; -vv also each request",
        "log retries and failing healthchecks on stderr; `-vv` also every request and cache "
        "lookup ([below](#logging))",
        name="verbose",
        default=0,
        action="count",
    ),
    Option(
        ("--watch",),
        "after the run, rerun whenever an eval file or a file it uses changes "
        "(with the cache on: only what changed is sent again); Ctrl-C stops",
        "after the run, wait for a change to the files it read and run again, until Ctrl-C "
        "([below](#watching))",
        name="watch",
        default=False,
        action="flag",
    ),
)
"""The options of ``eval`` that only the command line has, after the run options in
``--help`` and the docs table."""
