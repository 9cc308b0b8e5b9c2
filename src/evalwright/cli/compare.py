"""``evalwright compare``: the changes between two runs (or two targets or prompt variants
of one run), with the paired statistics; exit 1 when the ``--fail-on`` rule trips."""

from __future__ import annotations

import argparse

from evalwright.api.compare import compare
from evalwright.outputs.compare_table import compare_text
from evalwright.outputs.outcome import check_output_path, write_text
from evalwright.stats.compare_gate import DEFAULT_SCORE_DROP, CompareGate, compare_gate


def run(args: argparse.Namespace) -> int:
    """Print the comparison and write ``--junit`` and ``--summary-md``; 1 when ``--fail-on``
    trips, else 0 (docs/running.md#evalwright-compare)."""
    junit = check_output_path(args.junit, "--junit") if args.junit else None
    markdown = check_output_path(args.summary_md, "--summary-md") if args.summary_md else None
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
    gate = compare_gate(comparison, args.fail_on, drop, names)
    print(compare_text(comparison, names, drop, args.effect) + "\n" + _verdict(gate))
    if junit is not None:
        from evalwright.outputs.junit import gate_junit_xml  # the XML writer only when asked

        write_text(junit, gate_junit_xml(gate), "--junit")
    if markdown is not None:
        from evalwright.outputs.markdown import compare_markdown

        write_text(markdown, compare_markdown(comparison, gate), "--summary-md")
    return 1 if gate.tripped else 0


def _verdict(gate: CompareGate) -> str:
    """The gate's verdict as the last line: what it judged and how many failed."""
    failed = len(gate.failures)
    state = f"FAILED by {failed} of {len(gate.judged)}" if failed else "passed"
    return f"{gate.described}: {state}"
