"""A results row whose score or cost no run can write (NaN, negative, 1e308) is no row:
``compare``, ``report`` and ``judge-check`` refuse it with its file, line and field, rather than
average it into ``nan`` or ``inf`` (docs/running.md#the-results-file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ProjectDir, run_cli

SUITE = """\
execution:
  evaluators:
    - {name: paris, type: contains, value: Paris}
evalcases:
  - {id: one, expected_outcome: x, input: Capital?}
  - {id: two, expected_outcome: x, input: Capital?}
"""


@pytest.fixture
def results(project: ProjectDir) -> Path:
    project.write(".evalwright/targets.yaml", "targets:\n  - {name: default, provider: mock}\n")
    project.write("labels.jsonl", '{"eval_id": "one", "target": "default", "pass": true}\n')
    path = project.root / "good.jsonl"
    ran = run_cli("eval", project.write("evals/suite.yaml", SUITE), "--out", path, "--quiet")
    assert ran.code in (0, 1), ran.err
    return path


def _planted(good: Path, field: str, text: str) -> Path:
    """The results file with the second row's ``field`` written as the JSON text ``text``."""
    lines = good.read_text("utf-8").splitlines()
    row = json.loads(lines[1])
    if field == "evaluator_results.0.score":
        row["evaluator_results"][0]["score"] = "VALUE"
    else:
        row[field] = "VALUE"
    lines[1] = json.dumps(row).replace('"VALUE"', text)
    bad = good.with_name("bad.jsonl")
    bad.write_text("\n".join(lines) + "\n", "utf-8")
    return bad


def _command(name: str, good: Path, bad: Path) -> list[str | Path]:
    if name == "compare":
        return ["compare", good, bad]
    if name == "report":
        return ["report", bad, "--out", bad.with_suffix(".html")]
    return ["judge-check", bad, "--labels", good.with_name("labels.jsonl")]


@pytest.mark.invalid_rows
@pytest.mark.parametrize("command", ["compare", "report", "judge-check"])
@pytest.mark.parametrize(
    ("field", "text"),
    [
        ("score", "NaN"),
        ("score", "-5"),
        ("score", "1e308"),
        ("evaluator_results.0.score", "1.5"),
        ("cost_usd", "-0.01"),
        ("cost_usd", "Infinity"),
    ],
)
def test_an_impossible_value_is_a_located_error(
    results: Path, command: str, field: str, text: str
) -> None:
    bad = _planted(results, field, text)
    result = run_cli(*_command(command, results, bad))
    assert result.code == 2, result.out + result.err
    assert f"bad.jsonl:2: not a result row: {field}: " in result.err, result.err
    assert "Traceback" not in result.err
    assert "nan" not in result.out
    assert "inf" not in result.out
