"""``evalwright validate``: every problem in every file, in one run."""

from __future__ import annotations

import argparse
import sys

from evalwright.api.validate import validate_paths
from evalwright.files.source import collector_paused


def run(args: argparse.Namespace) -> int:
    """Print each diagnostic and a summary; exit 1 when there is an error."""
    # The command only reads files and makes no cycles worth collecting before it exits:
    # the collector would walk everything loaded so far, again and again.
    with collector_paused():
        result = validate_paths(args.paths)
    for diagnostic in result.diagnostics:
        print(diagnostic)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    errors = sum(1 for d in result.diagnostics if d.severity == "error")
    warnings = len(result.diagnostics) - errors
    files = "file" if result.files == 1 else "files"
    print(
        f"{result.files} {files} checked: {errors} error(s), {warnings} warning(s)", file=sys.stderr
    )
    return 1 if errors else 0
