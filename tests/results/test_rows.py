"""Rows are built and written in one place (docs/running.md#the-results-file): what providers
record is taken as given, a row is one JSON line for every reader, and a row that cannot be
written as UTF-8 becomes an error row of the same key."""

from __future__ import annotations

from pathlib import Path

from evalwright.providers.wire import TraceEntry
from evalwright.redact import Redactor
from evalwright.results.row import ResultRow
from evalwright.results.rows import unwritable_row
from evalwright.results.writer import ResultsWriter
from tests.results.samples import sample_row


def test_trace_entries_write_only_the_keys_they_were_given() -> None:
    command = TraceEntry(type="command", command="ls", exit_code=None)
    assert command.model_dump(mode="json") == {
        "type": "command",
        "command": "ls",
        "exit_code": None,
    }
    assert TraceEntry(type="message", text="t").model_dump(mode="json") == {
        "type": "message",
        "text": "t",
    }


def _write(path: Path, *rows: ResultRow) -> list[ResultRow]:
    with open(path, "ab") as handle:
        writer = ResultsWriter(path, handle, Redactor())
        return [writer.write(row) for row in rows]


def test_a_row_is_one_line_for_readers_that_split_on_unicode_line_ends(tmp_path: Path) -> None:
    answer = "one\u2028two\u2029three\x85four\nfive"
    path = tmp_path / "r.jsonl"
    _write(path, sample_row(candidate_answer=answer), sample_row(eval_id="other"))
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) == 2
    assert "\\u2028" in text
    assert "\\u0085" in text
    first = ResultRow.model_validate_json(text.splitlines()[0])
    assert first.candidate_answer == answer


def test_a_row_with_a_lone_surrogate_is_written_as_an_error_row(tmp_path: Path) -> None:
    row = sample_row(
        eval_id="case-\udfff",
        candidate_answer="kept",
        reasoning="bad \ud800",
        evaluator_results=[
            {
                "name": "n",
                "type": "contains",
                "weight": 1.0,
                "status": "ok",
                "score": 1.0,
                "hits": ["\udfff"],
                "misses": [],
                "reasoning": "",
                "raw_request": None,
            }
        ],
        error={"type": "timeout", "message": "slow \udfff"},
        status="error",
        score=None,
    )
    path = tmp_path / "r.jsonl"
    (written,) = _write(path, row)
    assert written == unwritable_row(row, UnicodeEncodeError("utf-8", "", 0, 1, "surrogates"))
    read = ResultRow.model_validate_json(path.read_text(encoding="utf-8"))
    assert read.eval_id == "case-\ufffd", "what identifies the row is kept, scrubbed"
    assert (read.candidate_answer, read.reasoning, read.evaluator_results) == ("kept", None, None)
    assert read.error is not None
    assert read.error.type == "timeout"
    assert read.error.message == (
        "slow \ufffd; the row cannot be written: it holds text that is not valid Unicode "
        "(a lone surrogate); null: reasoning, evaluator_results"
    )


def test_trace_entries_keep_only_the_keys_they_were_given() -> None:
    row = sample_row(trace=[{"type": "dry_run", "text": "t"}, {"type": "command", "text": None}])
    assert row.model_dump(mode="json")["trace"] == [
        {"type": "dry_run", "text": "t"},
        {"type": "command", "text": None},
    ]
    assert row.trace == (
        TraceEntry(type="dry_run", text="t"),
        TraceEntry(type="command", text=None),
    )
