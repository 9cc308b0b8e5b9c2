"""``evalwright report``: write the HTML report of results files (docs/report.md)."""

from __future__ import annotations

import argparse
import webbrowser

from evalwright.report import write_report


def run(args: argparse.Namespace) -> int:
    """Write the report, print its path, and open it when asked; exit 0."""
    path = write_report(args.results, args.out, baseline=args.baseline, pass_mark=args.pass_mark)
    print(f"report: {path}")
    if args.open:
        webbrowser.open(path.resolve().as_uri())
    return 0
