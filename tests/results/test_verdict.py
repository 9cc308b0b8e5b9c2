"""The one verdict of a row and of a case over its repeats (docs/running.md#gates-over-repeats)."""

from __future__ import annotations

from evalwright.results.verdict import case_gates, gate_met, row_passed
from tests.results.samples import sample_row


def test_a_row_passes_as_it_recorded_else_by_its_score() -> None:
    assert row_passed(sample_row(score=0.9, passed=False)) is False
    assert row_passed(sample_row(score=0.1, passed=True)) is True
    assert row_passed(sample_row(score=0.6), 0.5) is True, "a row written before pass rules"
    assert row_passed(sample_row(score=0.6), 0.7) is False
    assert row_passed(sample_row(status="error", score=None, passed=True)) is False


def test_a_pass_rate_is_a_share_of_the_repeats_met_exactly() -> None:
    assert gate_met(8, 10, 0.8)
    assert not gate_met(7, 10, 0.8)
    assert gate_met(7, 10, 0.7)
    assert gate_met(1, 3, 1 / 3)
    assert not gate_met(4, 5, None), "without a rate every repeat must pass"
    assert gate_met(5, 5, None)
    assert not gate_met(0, 0, 0.0), "a case with no repeat run has not passed"


def test_each_case_and_target_has_one_gate() -> None:
    rows = [
        sample_row(eval_id="c", target="a", repeat=r, score=1.0, passed=r != 2, pass_rate=0.6)
        for r in range(3)
    ] + [sample_row(eval_id="c", target="b", score=0.0, passed=False)]
    gates = case_gates(rows)
    (file,) = {row.eval_file for row in rows}
    a, b = gates[file, "c", "a", None], gates[file, "c", "b", None]
    assert (a.passes, a.runs, a.failing, a.passed) == (2, 3, [2], True)
    assert a.describe() == "passed 2 of 3 repeats (pass_rate 0.6)"
    assert (b.passed, b.describe()) == (False, "passed 0 of 1 repeats (every repeat)")
