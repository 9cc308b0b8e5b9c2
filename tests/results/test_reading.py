"""Reading results files from Python: typed rows streamed in file order, and a DataFrame
with usage and errors spread into columns (docs/python-api.md#reading-results)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import evalwright as ew
from tests.results.samples import sample_row


def _write(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _rows(path: Path) -> Path:
    ok = sample_row(eval_id="a", usage={"input_tokens": 3, "output_tokens": 2})
    failed = sample_row(
        eval_id="b",
        status="error",
        score=None,
        error={"type": "timeout", "message": "no answer within 1 s"},
    )
    return _write(path, ok.model_dump_json(), "", failed.model_dump_json())


def test_rows_are_read_typed_and_in_file_order(tmp_path: Path) -> None:
    rows = list(ew.read_results(_rows(tmp_path / "r.jsonl")))
    assert [row.eval_id for row in rows] == ["a", "b"]
    assert rows[0].usage is not None
    assert rows[0].usage.input_tokens == 3
    assert rows[1].error is not None
    assert rows[1].error.type == "timeout"


@pytest.mark.invalid_rows
def test_a_line_that_is_not_a_row_names_the_file_and_line(tmp_path: Path) -> None:
    good = sample_row().model_dump_json()
    path = _write(tmp_path / "r.jsonl", good, json.dumps({"eval_id": "x"}))
    rows = ew.read_results(path)
    assert next(rows).eval_id == "case"  # streamed: the good row comes before the error
    with pytest.raises(ew.ConfigError, match=r"r\.jsonl:2: not a result row"):
        next(rows)


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ew.ConfigError, match=r"absent\.jsonl"):
        list(ew.read_results(tmp_path / "absent.jsonl"))


def test_a_dataframe_spreads_usage_and_errors_into_columns(tmp_path: Path) -> None:
    first = _rows(tmp_path / "one.jsonl")
    second = _write(tmp_path / "two.jsonl", sample_row(eval_id="c", target="u").model_dump_json())
    table = ew.results_dataframe([first, second])
    assert list(table["eval_id"]) == ["a", "b", "c"]
    assert "usage" not in table.columns
    assert "error" not in table.columns
    assert table["input_tokens"].tolist()[0] == 3
    assert table["error_type"].tolist()[1] == "timeout"
    assert table.groupby("target").size().to_dict() == {"t": 2, "u": 1}


def test_without_pandas_the_dataframe_is_a_clear_error(tmp_path: Path) -> None:
    path = _rows(tmp_path / "r.jsonl")
    code = (
        "import sys; sys.modules['pandas'] = None\n"
        "import evalwright as ew\n"
        "try:\n"
        f"    ew.results_dataframe({str(path)!r})\n"
        "except ew.ConfigError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "pip install 'evalwright[pandas]'" in out
