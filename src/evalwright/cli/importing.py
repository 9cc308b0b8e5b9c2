"""``evalwright import promptfoo``: write the files, then list what was not carried over."""

from __future__ import annotations

import argparse
import shlex

from evalwright.api.importing import import_agentv, import_promptfoo
from evalwright.errors import printable
from evalwright.files.project import display_path


def run(args: argparse.Namespace) -> int:
    """Import, print the files written and each item not carried over (docs/importing.md).
    Exit 0 when everything was carried over, 1 when anything was not."""
    load = import_agentv if args.format == "agentv" else import_promptfoo
    result = load(args.config, args.out)
    for path in result.files:
        print(f"created {display_path(path)}")
    total = result.carried + result.uncarried
    print(f"{result.carried} of {total} (prompt, test) pairs carried over")
    if result.notes:
        print(f"not carried over ({len(result.notes)}, also in {display_path(result.notes_file)}):")
        for note in result.notes:
            print(f"  {printable(str(note), one_line=True)}")
    if result.eval_file is None:
        print("no test could be carried over: no eval file written")
        return 1
    evals = shlex.quote(display_path(result.eval_file))
    targets = " ".join(f"--target {shlex.quote(name)}" for name in result.targets)
    print(f"\nnext:\n  evalwright validate {evals}\n  evalwright eval {evals} {targets}")
    return 1 if result.notes else 0
