"""A row's ``tool_calls`` (docs/tools.md#tool-calls-in-the-answer): written right after the
answer's text and read back as written; a row whose calls cannot be written keeps the rest."""

from __future__ import annotations

from pathlib import Path

from evalwright.providers.wire import AnswerToolCall
from evalwright.redact import Redactor
from evalwright.results.row import ResultRow
from evalwright.results.writer import ResultsWriter
from tests.results.samples import sample_row

CALL = AnswerToolCall(id="c1", name="f", raw_arguments='{"x":1}', arguments={"x": 1})


def _write(path: Path, row: ResultRow) -> ResultRow:
    with open(path, "ab") as handle:
        return ResultsWriter(path, handle, Redactor()).write(row)


def test_calls_are_written_after_the_answer_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    _write(path, sample_row(tool_calls=[CALL.model_dump(mode="json")]))
    line = path.read_text(encoding="utf-8")
    assert '"candidate_answer":' in line
    assert line.index('"tool_calls":') < line.index('"finish_reason":')
    assert ResultRow.model_validate_json(line).tool_calls == (CALL,)


def test_calls_that_cannot_be_written_are_null_and_named(tmp_path: Path) -> None:
    bad = CALL.model_copy(update={"raw_arguments": "\ud800"})
    path = tmp_path / "r.jsonl"
    written = _write(path, sample_row(candidate_answer="kept", tool_calls=[bad]))
    read = ResultRow.model_validate_json(path.read_text(encoding="utf-8"))
    assert (written.status, read.candidate_answer, read.tool_calls) == ("error", "kept", None)
    assert read.error is not None
    assert read.error.message.endswith("null: tool_calls")
