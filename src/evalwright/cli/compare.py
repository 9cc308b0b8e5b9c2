"""``evalwright compare``: the changes between two runs; exit 1 when a case regressed."""

from __future__ import annotations

import argparse

from evalwright.api.compare import compare
from evalwright.outputs.compare_table import compare_text


def run(args: argparse.Namespace) -> int:
    """Print the comparison of OLD and NEW; 1 when a case regressed, else 0
    (docs/running.md#evalwright-compare)."""
    comparison = compare(args.old, args.new, pass_mark=args.pass_mark)
    print(compare_text(comparison))
    return 1 if comparison.regressed else 0
