"""Matching two runs' rows on (eval file, eval id, target) and classifying each key."""

from __future__ import annotations

from evalwright.results.compare import compare_rows
from evalwright.results.row import ResultRow
from tests.results.samples import sample_row


def _error(eval_id: str) -> ResultRow:
    return sample_row(
        eval_id=eval_id,
        status="error",
        score=None,
        error={"type": "timeout", "message": "no answer"},
    )


def test_each_key_is_classified() -> None:
    old = [
        sample_row(eval_id="kept", score=0.9),
        sample_row(eval_id="drops", score=0.8),
        sample_row(eval_id="rises", score=0.2),
        sample_row(eval_id="gone", score=1.0),
        sample_row(eval_id="breaks", score=1.0),
        sample_row(eval_id="noisy", score=0.9),
    ]
    new = [
        sample_row(eval_id="kept", score=0.9),
        sample_row(eval_id="drops", score=0.1),
        sample_row(eval_id="rises", score=0.7),
        _error("breaks"),
        sample_row(eval_id="noisy", score=0.6),
        sample_row(eval_id="fresh", score=1.0),
    ]
    comparison = compare_rows(old, new)
    by_id = {c.key[1]: c for c in comparison.changes}
    assert {k: c.change for k, c in by_id.items()} == {
        "kept": "unchanged",
        "drops": "regressed",
        "rises": "improved",
        "breaks": "regressed",
        "noisy": "unchanged",
        "fresh": "new",
        "gone": "removed",
    }
    assert by_id["drops"].score_delta is not None
    assert round(by_id["drops"].score_delta, 6) == -0.7
    assert by_id["breaks"].score_delta is None
    assert comparison.regressed
    assert comparison.counts() == {
        "regressed": 2,
        "improved": 1,
        "new": 1,
        "removed": 1,
        "unchanged": 2,
    }
    assert [c.key[1] for c in comparison.changes][-1] == "gone"


def test_identical_runs_have_no_regression_and_the_pass_mark_decides() -> None:
    rows = [sample_row(eval_id="a", score=0.6), sample_row(eval_id="b", score=0.4)]
    same = compare_rows(rows, rows)
    assert not same.regressed
    assert {c.change for c in same.changes} == {"unchanged"}
    strict = compare_rows(rows, [sample_row(eval_id="a", score=0.65)], pass_mark=0.62)
    assert [c.change for c in strict.changes] == ["improved", "removed"]


def test_the_last_row_of_a_key_stands_for_it() -> None:
    old = [sample_row(eval_id="a", score=1.0)]
    new = [sample_row(eval_id="a", score=0.0), sample_row(eval_id="a", score=1.0)]
    assert [c.change for c in compare_rows(old, new).changes] == ["unchanged"]
