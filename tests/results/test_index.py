"""Which row of a key stands for it in a resumed results file (running.md, "--resume"): the
last one, except that an ``ok`` row is never replaced by an older error row."""

from __future__ import annotations

from evalwright.results.index import RowFacts, RowIndex, row_key, supersedes
from evalwright.results.row import ResultRow
from tests.results.samples import sample_row


def _row(eval_id: str, status: str, timestamp: str, score: float | None = 1.0) -> ResultRow:
    return sample_row(
        eval_id=eval_id,
        status=status,
        score=score if status == "ok" else None,
        timestamp=timestamp,
        usage={"input_tokens": 3, "output_tokens": 2},
    )


def _facts(status: str, timestamp: str) -> RowFacts:
    return RowFacts.of(_row("a", status, timestamp))


def test_a_later_row_wins_unless_it_is_an_older_error_over_an_ok_row() -> None:
    early, late = "2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z"
    assert supersedes(_facts("ok", early), _facts("error", late)), "a rerun that passed"
    assert supersedes(_facts("error", late), _facts("error", early))
    assert supersedes(_facts("ok", early), _facts("ok", late)), "the last ok row wins"
    assert supersedes(_facts("error", late), _facts("ok", early)), "a newer error wins"
    assert not supersedes(_facts("error", early), _facts("ok", late))
    assert not supersedes(_facts("error", late), _facts("ok", late))


def test_the_index_keeps_one_winner_per_key_in_first_seen_order() -> None:
    index = RowIndex()
    rows = [
        (_row("b", "error", "2026-01-01T00:00:01Z"), 0),
        (_row("a", "ok", "2026-01-01T00:00:02Z", 0.25), 100),
        (_row("b", "ok", "2026-01-01T00:00:03Z", 0.75), 200),
        (_row("a", "error", "2026-01-01T00:00:00Z"), 300),
    ]
    for row, offset in rows:
        index.offer(row_key(row), RowFacts.of(row), offset)
    assert list(index.entries) == [
        ("evals/a.yaml", "b", "t", 0, None),
        ("evals/a.yaml", "a", "t", 0, None),
    ]
    assert [e.offset for e in index.entries.values()] == [200, 100]
    kept = index.get(("evals/a.yaml", "a", "t", 0, None))
    assert kept is not None
    assert (kept.ok, kept.score, kept.input_tokens, kept.output_tokens) == (True, 0.25, 3, 2)
    assert index.get(("evals/a.yaml", "c", "t", 0, None)) is None


def test_facts_of_a_row_that_reports_no_usage_or_score_count_as_nothing() -> None:
    facts = RowFacts.of(sample_row(status="error", score=None, usage=None, cache="hit"))
    assert (facts.ok, facts.score, facts.input_tokens, facts.output_tokens) == (False, 0.0, 0, 0)
    assert facts.lossless
    assert facts.cached
    partial = RowFacts.of(sample_row(usage={"input_tokens": None, "output_tokens": 7}))
    assert (partial.input_tokens, partial.output_tokens) == (0, 7)
    noted = sample_row(delivery_notes=[{"rule": "assistant_prefill", "detail": "d"}])
    assert not RowFacts.of(noted).lossless
