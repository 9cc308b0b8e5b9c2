"""A run as a Markdown summary (docs/running.md#markdown-summary): the per-target table and
the cases that failed or errored, for a pull request or GitHub's job summary.

Everything from a model, a file or a server is text, never markup: Markdown and HTML
punctuation is escaped, so an answer holding ``<img onerror=...>`` or ``[x](url)`` shows as
those characters.
"""

from __future__ import annotations

from collections.abc import Iterable

from evalwright.orchestrator.summary import RunSummary
from evalwright.outputs.compare_table import target_deltas
from evalwright.outputs.outcome import Outcomes
from evalwright.redact import clip
from evalwright.results.row import ResultRow, case_label
from evalwright.stats.compare import CHANGES, Comparison
from evalwright.stats.compare_gate import CompareGate

MAX_LISTED = 50
"""Failed cases listed at most (GitHub keeps 1 MiB of a job summary); the rest are counted."""
_WHY_CHARS = 300
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# What can start markup inside a table cell: emphasis, code, links, images, strikethrough,
# math, the cell separator, and the escape itself.
_MARKUP = set("\\`*_[]()!|~$")


def escape(text: str) -> str:
    """``text`` as one table cell of plain text: what could start markup backslash-escaped,
    ``<``, ``>`` and ``&`` as entities, line breaks and control characters as spaces."""
    out: list[str] = []
    for char in text:
        if char in _ENTITIES:
            out.append(_ENTITIES[char])
        elif char in _MARKUP:
            out.append("\\" + char)
        elif char.isspace() or not char.isprintable():
            out.append(" ")
        else:
            out.append(char)
    return "".join(out)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _WHY_CHARS else clip(text, _WHY_CHARS - 1, marker="…")


def _target_table(summary: RunSummary) -> list[str]:
    lines = ["| target | cases | mean | passed | errors |", "|---|---:|---:|---:|---:|"]
    for name, stats in summary.targets.items():
        mean = "-" if stats.mean is None else f"{stats.mean:.3f}"
        lines.append(
            f"| {escape(name)} | {stats.cases} | {mean} | {stats.passed}/{stats.ok} "
            f"| {stats.errors} |"
        )
    return lines


def _why(row: ResultRow) -> str:
    if row.error is not None:
        return f"{row.error.type}: {row.error.message}"
    return row.reasoning or "; ".join(row.misses or ())


def _failed_table(failed: list[ResultRow]) -> list[str]:
    lines = ["| eval file | case | target | score | why |", "|---|---|---|---:|---|"]
    for row in failed[:MAX_LISTED]:
        score = "error" if row.score is None else f"{row.score:.3f}"
        cells = (row.eval_file, case_label(row.eval_id, row.repeat), row.target)
        lines.append(
            "| " + " | ".join(map(escape, cells)) + f" | {score} | {escape(_clip(_why(row)))} |"
        )
    if len(failed) > MAX_LISTED:
        lines += ["", f"and {len(failed) - MAX_LISTED} more: see the results file."]
    return lines


def summary_markdown(summary: RunSummary, rows: Iterable[ResultRow]) -> str:
    """The summary: a heading with the verdict, the per-target table, the failed cases."""
    every = list(rows)
    outcomes = Outcomes(every, summary.pass_mark)
    failed = [r for r in every if outcomes(r) != "passed"]
    verdict = "passed" if summary.exit_code() == 0 else "FAILED"
    lines = [f"## evalwright: {verdict}", "", *_target_table(summary), ""]
    lines.append(f"{summary.done} of {summary.total} case(s) run, {summary.rule_text}")
    if summary.threshold is not None:
        below = summary.below_threshold()
        state = f"below it: {', '.join(map(escape, below))}" if below else "every target meets it"
        lines[-1] += f", threshold {summary.threshold:g} ({state})"
    lines.append("")
    if failed:
        lines += [f"### Failed cases ({len(failed)})", "", *_failed_table(failed), ""]
    return "\n".join(lines)


def _compare_targets(comparison: Comparison) -> list[str]:
    lines = ["| target | cases | mean before | mean after | passed before | passed after |"]
    lines.append("|---|---:|---:|---:|---:|---:|")
    for name, delta in target_deltas(comparison).items():
        b, a = delta.before, delta.after
        cells = [f"{b.rows}/{a.rows}"]
        cells += ["-" if m is None else f"{m:.3f}" for m in (b.mean, a.mean)]
        cells += ["-" if r is None else f"{r:.1%}" for r in (b.pass_rate, a.pass_rate)]
        lines.append(f"| {escape(name)} | " + " | ".join(cells) + " |")
    return lines


def compare_markdown(comparison: Comparison, gate: CompareGate) -> str:
    """``compare --summary-md``: a heading with the verdict of ``--fail-on``, the per-target
    table, the counts, and what failed the gate, each with why (the same list the JUnit file
    fails and the exit status follows; docs/statistics.md#gating-on-a-comparison)."""
    verdict = "FAILED" if gate.tripped else "passed"
    lines = [f"## evalwright compare: {verdict} ({escape(gate.described)})", ""]
    if comparison.changes:
        lines += [*_compare_targets(comparison), ""]
    counts = comparison.counts()
    lines += [", ".join(f"{counts[kind]} {kind}" for kind in CHANGES), ""]
    failures = gate.failures
    if failures:
        lines += [f"### Failing {escape(gate.described)} ({len(failures)})", ""]
        lines += ["| eval file (or paired) | case (or target) | why |", "|---|---|---|"]
        for judged in failures[:MAX_LISTED]:
            cells = (judged.group, judged.name, _clip(judged.failure or ""))
            lines.append("| " + " | ".join(map(escape, cells)) + " |")
        if len(failures) > MAX_LISTED:
            lines += ["", f"and {len(failures) - MAX_LISTED} more: see `evalwright compare`."]
        lines.append("")
    return "\n".join(lines)
