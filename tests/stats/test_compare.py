"""Matching two runs' rows on (eval file, eval id, target, repeat) and classifying each key;
each change reads its rows back from their files when asked for."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import evalwright as ew
from evalwright.results.row import ResultRow
from evalwright.stats.compare import Comparison
from tests.results.samples import sample_row


def _file(path: Path, rows: Sequence[ResultRow]) -> Path:
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
    return path


def _compare(
    folder: Path, old: Sequence[ResultRow], new: Sequence[ResultRow], pass_mark: float = 0.5
) -> Comparison:
    """The comparison of two results files holding these rows."""
    before, after = _file(folder / "old.jsonl", old), _file(folder / "new.jsonl", new)
    return ew.compare(before, after, pass_mark=pass_mark)


def _error(eval_id: str) -> ResultRow:
    return sample_row(
        eval_id=eval_id,
        status="error",
        score=None,
        error={"type": "timeout", "message": "no answer"},
    )


def test_each_key_is_classified(tmp_path: Path) -> None:
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
    comparison = _compare(tmp_path, old, new)
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


def test_identical_runs_have_no_regression_and_the_pass_mark_decides(tmp_path: Path) -> None:
    rows = [sample_row(eval_id="a", score=0.6), sample_row(eval_id="b", score=0.4)]
    same = _compare(tmp_path, rows, rows)
    assert not same.regressed
    assert {c.change for c in same.changes} == {"unchanged"}
    strict = _compare(tmp_path, rows, [sample_row(eval_id="a", score=0.65)], pass_mark=0.62)
    assert [c.change for c in strict.changes] == ["improved", "removed"]


def test_the_last_row_of_a_key_stands_for_it(tmp_path: Path) -> None:
    old = [sample_row(eval_id="a", score=1.0)]
    new = [sample_row(eval_id="a", score=0.0), sample_row(eval_id="a", score=1.0)]
    assert [c.change for c in _compare(tmp_path, old, new).changes] == ["unchanged"]


def test_a_change_reads_its_rows_back_from_their_files(tmp_path: Path) -> None:
    old = [sample_row(eval_id="a", candidate_answer="Paris"), sample_row(eval_id="gone")]
    new = [
        sample_row(eval_id="a", candidate_answer="first try"),
        sample_row(eval_id="a", score=0.0, candidate_answer="London"),
    ]
    regressed, removed = _compare(tmp_path, old, new).changes
    assert regressed.change == "regressed"
    assert regressed.old == old[0]
    assert regressed.new == new[1]  # the key's last row
    assert (removed.old, removed.new) == (old[1], None)


def test_a_file_changed_since_is_an_error_not_another_row(tmp_path: Path) -> None:
    comparison = _compare(tmp_path, [sample_row(eval_id="a")], [sample_row(eval_id="a")])
    _file(tmp_path / "new.jsonl", [sample_row(eval_id="a", candidate_answer="a later run")])
    (change,) = comparison.changes
    assert change.old == sample_row(eval_id="a")
    with pytest.raises(ew.ConfigError, match=r"new\.jsonl: changed since it was read"):
        _ = change.new
