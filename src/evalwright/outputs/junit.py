"""A run as JUnit XML for CI systems (docs/running.md#junit-xml): one ``testsuite`` per eval
file, one ``testcase`` per row; a row that did not pass (docs/eval-files.md#pass-rules) is a
``failure`` carrying the reasoning and misses, an error row an ``error`` carrying the error
message. A failed repeat of a case that still met its ``pass_rate`` is no failure: its
``system-out`` says so (docs/running.md#gates-over-repeats).

The file follows the Jenkins/Ant JUnit schema (``junit-10.xsd``) that CI systems read.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence

from evalwright.outputs.outcome import Outcomes
from evalwright.results.row import ResultRow, case_label
from evalwright.results.verdict import row_passed
from evalwright.stats.compare_gate import CompareGate, Judged

# Characters XML 1.0 cannot hold at all, even escaped (control characters, lone surrogates).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str) -> str:
    """``value`` with each character XML cannot hold shown as ``\\xNN`` (or ``\\uNNNN``)."""
    return _NOT_XML.sub(lambda m: ascii(m.group())[1:-1], value)


def _seconds(rows: Sequence[ResultRow]) -> str:
    return f"{sum(r.latency_ms or 0.0 for r in rows) / 1000:.3f}"


def _failure_text(row: ResultRow) -> str:
    parts = [row.reasoning or ""]
    if row.misses:
        parts.append("misses:\n" + "\n".join(f"- {miss}" for miss in row.misses))
    return "\n\n".join(p for p in parts if p)


def _where(row: ResultRow) -> str:
    """``[TARGET]``, and ``[VARIANT]`` after it for a prompt variant's row."""
    return f"[{row.target}]" + (f" [{row.variant}]" if row.variant is not None else "")


def _testcase(row: ResultRow, verdicts: Outcomes) -> ET.Element:
    case = ET.Element(
        "testcase",
        classname=_text(row.eval_file),
        name=_text(f"{case_label(row.eval_id, row.repeat)} {_where(row)}"),
        time=f"{(row.latency_ms or 0.0) / 1000:.3f}",
    )
    verdict = verdicts(row)
    if verdict == "error":
        kind, message = (row.error.type, row.error.message) if row.error else ("error", "")
        error = ET.SubElement(case, "error", type=kind, message=_text(message))
        error.text = _text(message)
    elif verdict == "failed":
        failure = ET.SubElement(case, "failure", type="failed", message=verdicts.failure(row))
        failure.text = _text(_failure_text(row))
    elif not row_passed(row, verdicts.pass_mark):
        gate = verdicts.gate(row).describe()
        ET.SubElement(case, "system-out").text = f"this repeat failed; the case {gate}"
    if verdict != "passed" and row.candidate_answer:
        ET.SubElement(case, "system-out").text = _text(row.candidate_answer)
    return case


def _suite(name: str, rows: Sequence[ResultRow], outcomes: Outcomes) -> ET.Element:
    verdicts = [outcomes(r) for r in rows]
    suite = ET.Element(
        "testsuite",
        name=_text(name),
        tests=str(len(rows)),
        failures=str(verdicts.count("failed")),
        errors=str(verdicts.count("error")),
        skipped="0",
        time=_seconds(rows),
    )
    suite.extend(_testcase(row, outcomes) for row in rows)
    return suite


def junit_xml(rows: Iterable[ResultRow], pass_mark: float = 0.5) -> str:
    """The JUnit XML document of these rows (one ``testsuite`` per eval file, in the order
    the files first appear)."""
    by_file: dict[str, list[ResultRow]] = {}
    for row in rows:
        by_file.setdefault(row.eval_file, []).append(row)
    every = [row for file_rows in by_file.values() for row in file_rows]
    outcomes = Outcomes(every, pass_mark)
    verdicts = [outcomes(r) for r in every]
    root = ET.Element(
        "testsuites",
        name="evalwright",
        tests=str(len(every)),
        failures=str(verdicts.count("failed")),
        errors=str(verdicts.count("error")),
        time=_seconds(every),
    )
    root.extend(_suite(name, file_rows, outcomes) for name, file_rows in by_file.items())
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def gate_junit_xml(gate: CompareGate) -> str:
    """``compare --junit``: one ``testcase`` per thing ``--fail-on`` judged (a key, or a
    target for ``significant-regression``), a ``failure`` for each that failed the gate, so
    the file fails exactly when the exit status does (docs/statistics.md#gating-on-a-comparison).
    """
    groups: dict[str, list[Judged]] = {}
    for judged in gate.judged:
        groups.setdefault(judged.group, []).append(judged)
    root = ET.Element(
        "testsuites",
        name=_text(f"evalwright compare {gate.described}"),
        tests=str(len(gate.judged)),
        failures=str(len(gate.failures)),
        errors="0",
    )
    for group, members in groups.items():
        failed = sum(j.failure is not None for j in members)
        suite = ET.SubElement(
            root, "testsuite", name=_text(group), tests=str(len(members)),
            failures=str(failed), errors="0", skipped="0",
        )  # fmt: skip
        for judged in members:
            case = ET.SubElement(suite, "testcase", classname=_text(group), name=_text(judged.name))
            if judged.failure is not None:
                message = _text(judged.failure)
                ET.SubElement(case, "failure", type=gate.rule, message=message).text = message
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
