"""``--resume`` reads each line back as a typed row (docs/running.md#--resume): a line that is
not a row stops the resume with a located error and leaves the file as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalwright.results.index import RowFacts
from evalwright.results.resume import read_previous
from evalwright.results.row import ResultRow
from tests.conftest import ProjectDir, run_cli

SUITE = """evalcases:
  - {id: a, expected_outcome: o, input: Say a.}
  - {id: b, expected_outcome: o, input: Say b.}
"""


def _run(project: ProjectDir) -> list[str]:
    suite = project.write("evals/suite.yaml", SUITE)
    result = run_cli("eval", suite, "--dry-run", "--out", project.root / "r.jsonl")
    assert result.code == 0, result.err
    return (project.root / "r.jsonl").read_text(encoding="utf-8").splitlines()


def _resume(project: ProjectDir, second: str) -> tuple[str, str]:
    lines = _run(project)
    text = "\n".join([lines[0], second, lines[1]]) + "\n"
    project.write("r.jsonl", text)
    result = run_cli("eval", project.root / "evals", "--dry-run", "--resume", "r.jsonl")
    assert result.code == 2, result.err
    assert (project.root / "r.jsonl").read_text(encoding="utf-8") == text, "left as it was"
    return result.err.strip(), lines[0]


@pytest.mark.invalid_rows
@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"score": "high"}, "score: Input should be a valid number"),
        ({"latency_ms": None, "bogus": 1}, "bogus: Extra inputs are not permitted"),
        ({"error": {"type": "oops", "message": "m"}}, "error.type: Input should be 'target_error'"),
    ],
)
def test_an_object_that_is_not_a_row_is_refused_where_it_is(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch, change: dict[str, Any], problem: str
) -> None:
    monkeypatch.chdir(project.root)
    lines = _run(project)
    broken = json.dumps({**json.loads(lines[0]), **change})
    err, _ = _resume(project, broken)
    assert err.startswith("evalwright: error: r.jsonl:2: not a results row (" + problem), err


@pytest.mark.invalid_rows
def test_a_row_missing_a_key_is_refused(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)
    row = json.loads(_run(project)[0])
    del row["cache"]
    err, _ = _resume(project, json.dumps(row))
    assert err == "evalwright: error: r.jsonl:2: not a results row (cache: Field required)"


def test_a_line_that_is_not_an_object_is_refused(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)
    err, _ = _resume(project, "[1, 2]")
    assert err == "evalwright: error: r.jsonl:2: not a results row (not a JSON object)"


def test_rows_read_back_are_typed_and_indexed(project: ProjectDir) -> None:
    lines = _run(project)
    previous = read_previous(project.root / "r.jsonl")
    assert previous.run_id == json.loads(lines[0])["run_id"]
    first = ResultRow.model_validate_json(lines[0])
    assert previous.index.get(("evals/suite.yaml", "a", "default", 0, None)) == RowFacts.of(first)
    assert previous.end == sum(len(line.encode("utf-8")) + 1 for line in lines)
