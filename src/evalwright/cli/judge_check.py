"""``evalwright judge-check``: each judge against human labels, as a table or JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json

from evalwright.errors import printable
from evalwright.stats.judge_check import JudgeAgreement, JudgeCheck, judge_check


def run(args: argparse.Namespace) -> int:
    """Print the comparison (docs/judges.md#judge-check); 0, or 2 for a bad file."""
    check = judge_check(args.results, args.labels, pass_mark=args.pass_mark)
    if args.json:
        print(json.dumps(check_json(check), ensure_ascii=False, indent=2))
    else:
        print(printable(check_text(check)))
    return 0


def check_json(check: JudgeCheck) -> dict[str, object]:
    """The comparison as JSON: each judge with its accuracy, kappa and confusion table."""
    data = dataclasses.asdict(check)
    for judge, agreement in zip(data["judges"], check.judges, strict=True):
        judge["accuracy"] = agreement.accuracy
        judge["kappa"] = agreement.kappa
    return data


def check_text(check: JudgeCheck) -> str:
    """A table of the judges, then each judge's confusion table and disagreements."""
    head = ("judge", "compared", "no verdict", "accuracy", "kappa")
    rows = [head] + [
        (
            j.judge,
            str(j.confusion.total),
            str(j.no_verdict),
            _number(j.accuracy),
            _number(j.kappa),
        )
        for j in check.judges
    ]
    lines = [f"{check.labelled} label(s), pass mark {check.pass_mark:g}", *_aligned(rows)]
    if not check.judges:
        lines.append("no llm_judge verdict on the labelled rows")
    for judge in check.judges:
        lines.extend(["", *_confusion(judge)])
    return "\n".join(lines)


def _confusion(judge: JudgeAgreement) -> list[str]:
    c = judge.confusion
    table = [
        ("", "human pass", "human fail"),
        ("judge pass", str(c.both_pass), str(c.judge_only)),
        ("judge fail", str(c.human_only), str(c.both_fail)),
    ]
    lines = [f"{judge.judge}:", *("  " + line for line in _aligned(table))]
    if judge.disagreements:
        lines.append("  disagreements:")
    for d in judge.disagreements:
        said = "pass" if d.judge_pass else "fail"
        human = "pass" if d.human_pass else "fail"
        lines.append(
            f"    {d.eval_file}: {d.case} on {d.target}: judge {d.judge_score:g} ({said}), "
            f"human {human}"
        )
    return lines


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
