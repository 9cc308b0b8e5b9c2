"""Whether a row passed, and whether a case passed over its repeats: the one decision the
summary, the exit status, ``compare``, the JUnit and Markdown outputs and the report all read
(docs/eval-files.md#pass-rules, docs/running.md#gates-over-repeats).

A row records its verdict as it is written (``passed``, under its case's pass rule); a row
written before pass rules has none, and passed when it ran and scored at least the pass mark.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from evalwright.results.row import ResultRow


def verdict(ok: bool, score: float | None, passed: bool | None, pass_mark: float) -> bool:
    """Whether a row passed: it ran and was scored, and its recorded verdict says so (a
    row without one: its score reached ``pass_mark``)."""
    if not ok or score is None:
        return False
    return passed if passed is not None else score >= pass_mark


def row_passed(row: ResultRow, pass_mark: float = 0.5) -> bool:
    """:func:`verdict` of a row; ``pass_mark`` only decides rows written before pass rules."""
    return verdict(row.status == "ok", row.score, row.passed, pass_mark)


def gate_met(passes: int, runs: int, pass_rate: float | None) -> bool:
    """Whether a case passed over its ``runs`` repeats, ``passes`` of which passed: at least
    ``pass_rate`` of them, or every one without a pass rate (docs/running.md#gates-over-repeats).
    A case with no repeat run has not passed."""
    if runs == 0:
        return False
    # ``passes / runs`` and a rate written as that fraction round alike, so 8/10 meets 0.8.
    return passes / runs >= (1.0 if pass_rate is None else pass_rate)


@dataclass(slots=True)
class CaseGate:
    """One case's repeats on one target, as their verdicts arrive, and its gate."""

    runs: int = 0
    passes: int = 0
    pass_rate: float | None = None
    failing: list[int] = field(default_factory=list[int])
    """The repeats that did not pass (errored ones included)."""

    def add(self, repeat: int, passed: bool, pass_rate: float | None) -> None:
        """Count one repeat's verdict; the case's pass rate is its rows' (they share it)."""
        self.runs += 1
        self.passes += passed
        if not passed:
            self.failing.append(repeat)
        if pass_rate is not None:
            self.pass_rate = pass_rate

    @property
    def passed(self) -> bool:
        """Whether the case met its gate."""
        return gate_met(self.passes, self.runs, self.pass_rate)

    def describe(self) -> str:
        """``passed 8 of 10 repeats (pass_rate 0.8)``, for the messages that explain a gate."""
        rate = "every repeat" if self.pass_rate is None else f"pass_rate {self.pass_rate:g}"
        return f"passed {self.passes} of {self.runs} repeats ({rate})"


CaseKey = tuple[str, str, str, str | None]
"""``(eval_file, eval_id, target, variant)``: a case on a target, over its repeats."""


def case_gates(rows: Iterable[ResultRow], pass_mark: float = 0.5) -> dict[CaseKey, CaseGate]:
    """Each case's gate over the final rows of its repeats."""
    gates: dict[CaseKey, CaseGate] = {}
    for row in rows:
        key = (row.eval_file, row.eval_id, row.target, row.variant)
        gates.setdefault(key, CaseGate()).add(row.repeat, row_passed(row, pass_mark), row.pass_rate)
    return gates
