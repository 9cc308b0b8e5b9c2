"""``evalwright compare``: the changes between two runs (or two targets or prompt variants
of one run), with the paired statistics; exit 1 when the ``--fail-on`` rule trips."""

from __future__ import annotations

import argparse

from evalwright.api.compare import compare
from evalwright.outputs.compare_table import compare_text
from evalwright.stats.compare import Comparison

DEFAULT_SCORE_DROP = 0.2


def run(args: argparse.Namespace) -> int:
    """Print the comparison; 1 when ``--fail-on`` trips, else 0
    (docs/running.md#evalwright-compare)."""
    comparison = compare(
        args.old,
        args.new,
        pass_mark=args.pass_mark,
        targets=tuple(args.targets) if args.targets else None,
        variants=tuple(args.variants) if args.variants else None,
    )
    pair = args.targets or args.variants
    names = (pair[0], pair[1]) if pair else ("OLD", "NEW")
    drop = args.score_drop
    if drop is None and args.fail_on == "score-drop":
        drop = DEFAULT_SCORE_DROP
    print(compare_text(comparison, names, drop, args.effect))
    return 1 if _trips(comparison, args.fail_on, drop) else 0


def _trips(comparison: Comparison, rule: str, drop: float | None) -> bool:
    if rule == "significant-regression":
        found = comparison.paired().values()
        return any(d.interval is not None and d.interval.high < 0 for d in found)
    if rule == "score-drop":
        return bool(comparison.dropped(drop if drop is not None else DEFAULT_SCORE_DROP))
    return comparison.regressed
