"""The results file's rows keep the format of docs/running.md#the-results-file: the golden
rows were written by the dict-building code the typed rows replaced, and a real run today must
write the same keys, in the same order, with the same values and JSON types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import jsonschema
import pytest

from evalwright.results.row import ROW_KEYS, ResultRow
from tests.conftest import ProjectDir, row_problems, run_cli
from tests.results.golden_run import golden_rows

GOLDEN = Path(__file__).with_name("golden_rows.jsonl")


def _kind(value: Any) -> str:
    """A JSON value's type; JSON has one number type (a float may be written ``0``)."""
    if isinstance(value, bool) or value is None:
        return repr(value) if value is None else "boolean"
    return {int: "number", float: "number", str: "string", list: "array", dict: "object"}[
        type(value)
    ]


def _differences(old: Any, new: Any, where: str) -> list[str]:
    """Where ``new`` differs from ``old``: a key, its order, its JSON type or its value."""
    if _kind(old) != _kind(new):
        return [f"{where}: {_kind(old)} became {_kind(new)}"]
    if isinstance(old, dict):
        before, after = cast(dict[str, Any], old), cast(dict[str, Any], new)
        if list(before) != list(after):
            return [f"{where}: keys {list(before)} became {list(after)}"]
        return [d for k in before for d in _differences(before[k], after[k], f"{where}.{k}")]
    if isinstance(old, list):
        items, again = cast(list[Any], old), cast(list[Any], new)
        if len(items) != len(again):
            return [f"{where}: {len(items)} items became {len(again)}"]
        pairs = enumerate(zip(items, again, strict=True))
        return [d for i, (a, b) in pairs for d in _differences(a, b, f"{where}[{i}]")]
    return [] if old == new else [f"{where}: {old!r} became {new!r}"]


def test_a_real_run_writes_rows_exactly_like_the_golden_rows(project: ProjectDir) -> None:
    golden = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
    rows = golden_rows(project)
    assert [(r["eval_id"], r["target"]) for r in rows] == [
        (r["eval_id"], r["target"]) for r in golden
    ]
    kinds = {(r["status"], r["error"]["type"] if r["error"] else None) for r in rows}
    assert kinds == {("ok", None), ("error", "target_error"), ("error", "evaluator_error")}
    assert any(r["trace"] for r in rows)
    assert any(r["delivery_notes"] for r in rows)
    for old, new in zip(golden, rows, strict=True):
        assert list(new) == list(ROW_KEYS)
        assert _differences(old, new, f"{new['eval_id']}@{new['target']}") == []


def test_a_row_read_back_is_written_again_byte_for_byte(project: ProjectDir) -> None:
    golden_rows(project)
    for line in (project.root / "r.jsonl").read_text(encoding="utf-8").splitlines():
        row = ResultRow.model_validate_json(line)
        again = json.dumps(row.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
        assert again == line


@pytest.mark.invalid_rows
def test_the_suite_wide_row_check_sees_a_broken_row(
    project: ProjectDir, results_row_validator: jsonschema.Draft202012Validator
) -> None:
    suite = project.write(
        "evals/s.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: Hi}\n"
    )
    path = project.root / ".evalwright" / "results" / "r.jsonl"
    assert run_cli("eval", suite, "--dry-run", "--out", path).code == 0
    assert row_problems(path, results_row_validator) == []
    (line,) = path.read_text(encoding="utf-8").splitlines()
    broken = json.dumps({**json.loads(line), "cache": "sometimes"})
    path.write_text("\n".join([line, "{not json", '{"id": "a case"}', broken]) + "\n")
    assert row_problems(path, results_row_validator) == [
        f"{path}:4: $.cache: 'sometimes' is not one of ['hit', 'miss', 'off']"
    ]
