"""``evalwright compare OLD NEW`` (docs/running.md#evalwright-compare) on the results files of
real runs: the changed keys, the per-target deltas, exit 1 on a planted regression and 0 on
identical runs; and ``evalwright.compare`` from Python."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import evalwright as ew
from evalwright.errors import BIDI_CONTROLS
from tests.conftest import ProjectDir, run_cli

SUITE = """\
execution:
  evaluators:
    - {name: paris, type: contains, value: Paris}
evalcases:
  - {id: steady, expected_outcome: x, input: Capital?}
  - {id: flips, expected_outcome: x, input: Capital?}
  - {id: mends, expected_outcome: x, input: Capital?}
"""


def _run(
    project: ProjectDir,
    out: str,
    flips: str,
    mends: str,
    only: str = "*",
    suite: str = SUITE,
    *options: str,
) -> Path:
    """Run the suite (the cases matching ``only``) on a target answering ``flips`` and
    ``mends`` as told, with ``options`` of ``eval``."""
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: default\n    provider: mock\n    response: Paris\n"
        f"    responses: {{flips: {flips}, mends: {mends}}}\n",
    )
    written = project.write("evals/suite.yaml", suite)
    path = project.root / out
    ran = run_cli("eval", written, "--out", path, "--quiet", "--eval-id", only, *options)
    assert ran.code in (0, 1), ran.err
    return path


def _lines(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_a_planted_regression_exits_1(project: ProjectDir) -> None:
    old = _run(project, "old.jsonl", flips="Paris", mends="Lyon")
    new = _run(project, "new.jsonl", flips="Lyon", mends="Paris")
    result = run_cli("compare", old, new)
    assert result.code == 1, result.err
    lines = _lines(result.out)
    assert lines[0] == ["change", "eval", "file", "case", "target", "before", "after", "delta"]
    assert lines[1] == [
        "regressed",
        "evals/suite.yaml",
        "flips",
        "default",
        "1.000",
        "0.000",
        "-1.000",
    ]
    assert lines[2] == [
        "improved",
        "evals/suite.yaml",
        "mends",
        "default",
        "0.000",
        "1.000",
        "+1.000",
    ]
    assert ["default", "3/3", "0.667", "0.667", "+0.000", "66.7%", "66.7%", "+0.0%"] in lines
    assert result.out.splitlines()[-2:] == [
        "1 regressed, 1 improved, 0 new, 0 removed, 1 unchanged (pass mark 0.5)",
        "--fail-on regression: FAILED by 1 of 3",
    ]


def test_identical_runs_exit_0(project: ProjectDir) -> None:
    old = _run(project, "old.jsonl", flips="Paris", mends="Lyon")
    new = _run(project, "new.jsonl", flips="Paris", mends="Lyon")
    result = run_cli("compare", old, new)
    assert result.code == 0, result.out
    assert "regressed" not in result.out.splitlines()[0]
    assert result.out.splitlines()[-2].startswith("0 regressed, 0 improved,")
    assert result.out.splitlines()[-1] == "--fail-on regression: passed"


def test_an_improvement_alone_exits_0(project: ProjectDir) -> None:
    old = _run(project, "old.jsonl", flips="Paris", mends="Lyon")
    new = _run(project, "new.jsonl", flips="Paris", mends="Paris")
    result = run_cli("compare", old, new)
    assert result.code == 0
    assert _lines(result.out)[1][:3] == ["improved", "evals/suite.yaml", "mends"]
    assert ["default", "3/3", "0.667", "1.000", "+0.333", "66.7%", "100.0%", "+33.3%"] in (
        _lines(result.out)
    )


def test_the_rows_verdicts_decide_what_regressed(project: ProjectDir) -> None:
    """Every case scores 1 before and 0.5 after (a second check fails): each row records
    its verdict under the run's pass rule, and compare reads it (docs/eval-files.md#pass-rules):
    a regression under ``all``, none under ``mean`` (0.5 at the pass mark 0.5)."""
    two_checks = SUITE.replace(
        "    - {name: paris, type: contains, value: Paris}\n",
        "    - {name: paris, type: contains, value: Paris}\n"
        "    - {name: rome, type: contains, value: Rome}\n",
    )
    old = _run(project, "old.jsonl", flips="Paris", mends="Paris")
    new = _run(project, "new.jsonl", "Paris", "Paris", "*", two_checks)
    strict = run_cli("compare", old, new)
    assert strict.code == 1
    assert strict.out.splitlines()[-2] == (
        "3 regressed, 0 improved, 0 new, 0 removed, 0 unchanged (pass mark 0.5)"
    )
    mean = _run(project, "mean.jsonl", "Paris", "Paris", "*", two_checks, "--pass-rule", "mean")
    assert run_cli("compare", old, mean).code == 0


@pytest.mark.invalid_rows  # rows as written before pass rules: without passed and pass_rule
def test_the_pass_mark_decides_rows_written_before_pass_rules(project: ProjectDir) -> None:
    """A row without a recorded verdict passes when it scored at least ``--pass-mark``."""
    old = _run(project, "old.jsonl", flips="Paris", mends="Paris")
    new = _run(project, "new.jsonl", flips="Paris", mends="Paris")
    for path in (old, new):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        if path == new:
            rows = [{**row, "score": 0.55} for row in rows]
        for row in rows:
            del row["passed"], row["pass_rule"]
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert run_cli("compare", old, new).code == 0
    assert run_cli("compare", old, new, "--pass-mark", "0.6").code == 1


def test_new_and_removed_keys(project: ProjectDir) -> None:
    old = _run(project, "old.jsonl", flips="Paris", mends="Lyon", only="steady")
    new = _run(project, "new.jsonl", flips="Paris", mends="Lyon", only="flips")
    result = run_cli("compare", old, new)
    assert result.code == 0
    assert [line[:3] for line in _lines(result.out)[1:3]] == [
        ["new", "evals/suite.yaml", "flips"],
        ["removed", "evals/suite.yaml", "steady"],
    ]


def test_an_unreadable_file_exits_2(project: ProjectDir) -> None:
    old = _run(project, "old.jsonl", flips="Paris", mends="Lyon")
    not_rows = project.write("notes.jsonl", '{"not": "a row"}\n')
    missing = run_cli("compare", old, project.root / "missing.jsonl")
    assert missing.code == 2
    assert "missing.jsonl: cannot read the file" in missing.err
    bad = run_cli("compare", not_rows, old)
    assert bad.code == 2
    assert "notes.jsonl:1: not a result row" in bad.err
    assert "Traceback" not in missing.err + bad.err


def test_compare_from_python_takes_lists_of_files(project: ProjectDir) -> None:
    first = _run(project, "a.jsonl", flips="Paris", mends="Lyon", only="steady")
    second = _run(project, "b.jsonl", flips="Paris", mends="Lyon", only="flips")
    new = _run(project, "new.jsonl", flips="Lyon", mends="Lyon")
    comparison = ew.compare([first, second], new)
    assert comparison.counts() == {
        "regressed": 1,
        "improved": 0,
        "new": 1,
        "removed": 0,
        "unchanged": 1,
    }
    (regression,) = comparison.of("regressed")
    assert regression.key == ("evals/suite.yaml", "flips", "default", 0, None)
    strict = ew.compare(str(first), str(first), pass_mark=1.0)
    assert not strict.regressed
    assert strict.changes[0].pass_mark == 1.0


def _renamed(path: Path) -> Path:
    """The file's rows with bidirectional controls in their case ids and eval file: a results
    file is any file of rows, whose names may come from anywhere."""
    rows = [
        row.model_copy(
            update={
                "eval_id": row.eval_id + "\u202e\u061c",
                "eval_file": "evals/\u2067s\u2069.yaml",
            }
        )
        for row in ew.read_results(path)
    ]
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
    return path


def test_names_cannot_reorder_the_table(project: ProjectDir) -> None:
    old = _renamed(_run(project, "old.jsonl", flips="Paris", mends="Lyon"))
    new = _renamed(_run(project, "new.jsonl", flips="Lyon", mends="Lyon"))
    result = run_cli("compare", old, new)
    assert result.code == 1
    assert not re.search(f"[{BIDI_CONTROLS}]", result.out)
    assert _lines(result.out)[1][:3] == [
        "regressed",
        "evals/\\u2067s\\u2069.yaml",
        "flips\\u202e\\u061c",
    ]


def test_the_junit_file_fails_each_regression(project: ProjectDir) -> None:
    """Under ``--fail-on regression`` (the default) each key both runs hold is a testcase,
    and the one that regressed is its only failure (docs/statistics.md#gating-on-a-comparison)."""
    old = _run(project, "old.jsonl", flips="Paris", mends="Lyon")
    new = _run(project, "new.jsonl", flips="Lyon", mends="Paris")
    junit = project.root / "j.xml"
    assert run_cli("compare", old, new, "--junit", junit).code == 1
    root = ET.parse(junit).getroot()
    assert (root.attrib["tests"], root.attrib["failures"]) == ("3", "1")
    failing = {c.attrib["name"]: f.attrib["message"] for c in root.iter("testcase") for f in c}
    assert failing == {"flips [default]": "regressed: passed before, not now (score 1.000 → 0.000)"}
