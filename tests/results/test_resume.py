"""Reading a results file for ``--resume`` (docs/running.md#--resume): which row stands for
each key, where the complete lines end, the lines that are not rows, and the temporary files
an interrupted run left beside it. Real files, written byte by byte."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from evalwright.errors import ConfigError
from evalwright.results.index import RowKey
from evalwright.results.resume import first_run_id, leftovers, read_previous
from tests.results.samples import sample_row

KEY = ("evals/a.yaml", "a", "t", 0, None)


def _row(eval_id: str, status: str, timestamp: str, **more: Any) -> dict[str, Any]:
    """A whole row as a results file holds it."""
    fields: dict[str, Any] = {
        "run_id": "run-1",
        "timestamp": timestamp,
        "eval_id": eval_id,
        "status": status,
        "score": 1.0 if status == "ok" else None,
        "error": None if status == "ok" else {"type": "target_error", "message": "failed"},
    }
    row = sample_row(**{**fields, **more})
    return row.model_dump(mode="json")


def _write(path: Path, rows: list[dict[str, Any]], tail: str = "") -> list[int]:
    """Write the rows as JSON Lines (then ``tail``); the offset of each row's line."""
    lines = [json.dumps(row) + "\n" for row in rows]
    offsets = [sum(len(line.encode()) for line in lines[:i]) for i in range(len(lines))]
    path.write_text("".join(lines) + tail, encoding="utf-8")
    return offsets


def _winner(path: Path, key: RowKey = KEY) -> int:
    previous = read_previous(path)
    entry = previous.index.entries[key]
    return entry.offset


def test_the_last_row_of_a_key_wins(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    rows = [
        _row("a", "error", "2026-01-01T00:00:01Z"),
        _row("a", "ok", "2026-01-01T00:00:02Z"),
        _row("b", "ok", "2026-01-01T00:00:03Z"),
        _row("a", "ok", "2026-01-01T00:00:04Z", score=0.5),
    ]
    offsets = _write(path, rows)
    previous = read_previous(path)
    assert list(previous.index.entries) == [KEY, ("evals/a.yaml", "b", "t", 0, None)]
    assert previous.index.entries[KEY].offset == offsets[3]
    facts = previous.index.get(KEY)
    assert facts is not None
    assert (facts.ok, facts.score) == (True, 0.5)


def test_an_ok_row_is_never_replaced_by_an_older_error(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    # An error row of an earlier attempt, appended after the rerun's ok row (a merged
    # leftover), loses; a newer error (the case failed when run again) wins.
    offsets = _write(
        path, [_row("a", "ok", "2026-01-02T00:00:00Z"), _row("a", "error", "2026-01-01T00:00:00Z")]
    )
    assert _winner(path) == offsets[0]
    offsets = _write(
        path, [_row("a", "ok", "2026-01-01T00:00:00Z"), _row("a", "error", "2026-01-02T00:00:00Z")]
    )
    assert _winner(path) == offsets[1]


def test_a_last_line_cut_off_mid_write_does_not_count(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    rows = [_row("a", "ok", "1"), _row("b", "ok", "2")]
    offsets = _write(path, rows, tail=json.dumps(_row("c", "ok", "3"))[:30])
    previous = read_previous(path)
    assert len(previous.index) == 2
    assert previous.end == offsets[1] + len(json.dumps(rows[1])) + 1
    assert previous.run_id == "run-1"


def test_blank_lines_are_skipped_and_the_first_run_id_is_the_files(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    first = _row("a", "ok", "1")
    second = {**_row("b", "ok", "2"), "run_id": "run-2"}
    path.write_text(f"\n{json.dumps(first)}\n  \n{json.dumps(second)}\n", encoding="utf-8")
    previous = read_previous(path)
    assert len(previous.index) == 2
    assert previous.run_id == "run-1", "the first row's"
    assert previous.end == path.stat().st_size
    assert first_run_id(path) == "run-1"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (b"{not json", "invalid JSON"),
        (b'{"run_id": "run-1", "eval_id": "\xff"}', "invalid JSON"),
        (b'["run-1", "a"]', "not a JSON object"),
        (b'"a row"', "not a JSON object"),
        (b"[" * 100_000, "invalid JSON"),
    ],
    ids=["broken", "invalid-utf8", "array", "string", "too-deep"],
)
@pytest.mark.invalid_rows
def test_a_line_that_is_not_a_row_is_a_located_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: bytes, problem: str
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "r.jsonl"
    good = json.dumps(_row("a", "ok", "1")).encode()
    path.write_bytes(good + b"\n" + line + b"\n" + good + b"\n")
    with pytest.raises(ConfigError) as caught:
        read_previous(path)
    assert str(caught.value) == f"r.jsonl:2: not a results row ({problem})"
    assert first_run_id(path) == "run-1", "the first row is still read"


def test_a_missing_file_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        read_previous(tmp_path / "gone.jsonl")
    assert str(caught.value) == "cannot read gone.jsonl for --resume: No such file or directory"
    assert first_run_id(tmp_path / "gone.jsonl") is None


def test_leftovers_are_the_temporary_files_of_this_results_file_oldest_first(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("", encoding="utf-8")
    names = {
        ".r.jsonl.k3v9x_2q": 30,  # a resumed run's temporary file
        ".r.jsonl.a1b2c3d4": 10,  # an interrupted compaction's
        ".r.jsonl.0000zzzz": 20,
    }
    for name, age in names.items():
        (tmp_path / name).write_text("{}\n", encoding="utf-8")
        os.utime(tmp_path / name, ns=(age * 10**9, age * 10**9))
    not_ours = [
        ".r.jsonl.a1b2c3d4.keep",  # longer
        ".r.jsonl.a1b2c3",  # shorter
        ".r.jsonl.A1B2C3D4",  # not what mkstemp makes
        ".r.jsonl.lock",
        ".other.jsonl.a1b2c3d4",
        "r.jsonl.a1b2c3d4",
    ]
    for name in not_ours:
        (tmp_path / name).write_text("{}\n", encoding="utf-8")
    (tmp_path / ".r.jsonl.dir12345").mkdir()
    (tmp_path / ".r.jsonl.link1234").symlink_to(tmp_path / ".r.jsonl.a1b2c3d4")
    assert [p.name for p in leftovers(path)] == [
        ".r.jsonl.a1b2c3d4",
        ".r.jsonl.0000zzzz",
        ".r.jsonl.k3v9x_2q",
    ]
    assert leftovers(tmp_path / "missing" / "r.jsonl") == []
