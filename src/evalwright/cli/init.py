"""``evalwright init``: write a working example project and say what to run next."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

from evalwright.api.init import EVAL_FILE, init_project


def run(args: argparse.Namespace) -> int:
    """Write the project, list its files, and print the next three commands
    (docs/running.md#evalwright-init)."""
    directory: str = args.directory
    written = init_project(directory)
    for path in written:
        print(f"created {_shown(path)}")
    evals = _shown(Path(directory) / Path(EVAL_FILE).parent)
    example = _shown(Path(directory) / EVAL_FILE)
    steps = [
        (f"evalwright validate {shlex.quote(evals)}", "check the files"),
        (f"evalwright eval {shlex.quote(evals)}", "run the cases (offline: the mock target)"),
        (f"evalwright prompt {shlex.quote(example)}", "see what each case sends"),
    ]
    width = max(len(command) for command, _ in steps)
    print("\nnext:")
    for command, why in steps:
        print(f"  {command.ljust(width)}   # {why}")
    return 0


def _shown(path: Path) -> str:
    return os.path.normpath(path)
