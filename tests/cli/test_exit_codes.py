"""The exit status of ``evalwright eval`` gates CI (docs/running.md#exit-status): 0 when every
row ran and passed, 1 when a row failed or errored, with ``--threshold`` each target's mean
instead; 2 for a configuration error. A ``required`` evaluator fails its case whatever the
weighted score (docs/eval-files.md#required-evaluators). 130 is tested in test_terminal.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import evalwright as ew
from tests.conftest import CliResult, ProjectDir, run_cli

# Each target answers case by case: "good" names Paris, "bad" does not.
TARGETS = """\
targets:
  - name: all-good
    provider: mock
    response: "Paris"
  - name: one-bad
    provider: mock
    response: "Paris"
    responses: {bad: "Lyon"}
  - name: all-bad
    provider: mock
    response: "Lyon"
"""

SUITE = """\
execution:
  evaluators:
    - {name: paris, type: contains, value: Paris}
evalcases:
  - {id: good, expected_outcome: x, input: Capital?}
  - {id: also-good, expected_outcome: x, input: Capital?}
  - {id: bad, expected_outcome: x, input: Capital?}
"""


def _project(project: ProjectDir, suite: str = SUITE) -> Path:
    project.write(".evalwright/targets.yaml", TARGETS)
    return project.write("evals/suite.yaml", suite)


def _eval(project: ProjectDir, *args: str) -> CliResult:
    suite = project.root / "evals" / "suite.yaml"
    out = project.root / "r.jsonl"
    return run_cli("eval", suite, "--out", out, "--quiet", *args)


def _rows(project: ProjectDir) -> dict[tuple[str, str], dict[str, Any]]:
    lines = (project.root / "r.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    return {(r["eval_id"], r["target"]): r for r in rows}


def test_every_row_passed_exits_0(project: ProjectDir) -> None:
    _project(project)
    result = _eval(project, "--target", "all-good")
    assert result.code == 0, result.err
    assert "case(s) failed" not in result.out
    assert "pass rule all, pass mark 0.5" in result.out.splitlines()


def test_one_row_below_the_pass_mark_exits_1(project: ProjectDir) -> None:
    _project(project)
    result = _eval(project, "--target", "one-bad")
    assert result.code == 1, result.err
    assert "pass rule all, pass mark 0.5: 1 case(s) failed" in result.out.splitlines()
    assert "failed: bad on one-bad" in result.out.splitlines()
    assert [r["status"] for r in _rows(project).values()] == ["ok"] * 3


TWO_CHECKS = SUITE.replace(
    "    - {name: paris, type: contains, value: Paris}",
    "    - {name: paris, type: contains, value: Paris}\n"
    "    - {name: france, type: contains, value: Lyon}",
)


def test_a_failed_check_fails_its_case_under_the_default_rule(project: ProjectDir) -> None:
    """Each case fails one check and passes the other: its weighted score is 0.5, which
    passed at the default pass mark before pass rules. Under the default rule (``all``) the
    failed check fails the case (docs/eval-files.md#pass-rules); each evaluator result
    records its threshold and pass."""
    _project(project, TWO_CHECKS)
    result = _eval(project, "--target", "one-bad")
    assert result.code == 1, result.out
    failed = "failed: good on one-bad, also-good on one-bad, bad on one-bad"
    assert failed in result.out.splitlines()
    bad = _rows(project)["bad", "one-bad"]
    assert (bad["score"], bad["passed"], bad["pass_rule"]) == (0.5, False, "all")
    verdicts = [(e["name"], e["threshold"], e["passed"]) for e in bad["evaluator_results"]]
    assert verdicts == [("paris", 0.5, False), ("france", 0.5, True)]
    assert bad["misses"][-1] == "evaluator 'paris' scored 0, below the pass mark 0.5"


def test_under_the_mean_rule_the_pass_mark_decides(project: ProjectDir) -> None:
    """``pass: mean`` is the weighted score at the pass mark: 0.5 passes at 0.5, not at 0.6."""
    _project(project, TWO_CHECKS)
    passed = _eval(project, "--target", "one-bad", "--pass-rule", "mean")
    assert passed.code == 0, passed.out
    assert "pass rule mean, pass mark 0.5" in passed.out.splitlines()
    assert _rows(project)["bad", "one-bad"]["passed"] is True
    stricter = _eval(project, "--target", "one-bad", "--pass-rule", "mean", "--pass-mark", "0.6")
    assert stricter.code == 1


def test_a_file_or_case_rule_wins_over_the_runs(project: ProjectDir) -> None:
    """The file says ``pass: mean``; the case ``good`` says ``all`` (it passes either way),
    and the run's ``--pass-rule all`` is overruled for ``bad``."""
    suite = TWO_CHECKS.replace("execution:\n", "execution:\n  pass: mean\n").replace(
        "{id: good, expected_outcome: x, input: Capital?}",
        "{id: good, expected_outcome: x, input: Capital?, execution: {pass: all}}",
    )
    _project(project, suite)
    result = _eval(project, "--target", "one-bad", "--pass-rule", "all")
    rows = _rows(project)
    assert [rows[c, "one-bad"]["pass_rule"] for c in ("good", "also-good", "bad")] == [
        "all",
        "mean",
        "mean",
    ]
    # good fails under all (France is not in "Paris"); the others pass at their mean of 0.5.
    assert [rows[c, "one-bad"]["passed"] for c in ("good", "also-good", "bad")] == [
        False,
        True,
        True,
    ]
    assert "pass rule all (2 row(s) mean), pass mark 0.5: 1 case(s) failed" in result.out


def test_an_evaluator_threshold_is_its_own_pass_mark(project: ProjectDir) -> None:
    """A check's ``threshold: 0`` passes it whatever it scores: only ``paris`` counts."""
    _project(project, TWO_CHECKS.replace("value: Lyon}", "value: Lyon, threshold: 0}"))
    assert _eval(project, "--target", "all-good").code == 0
    france = _rows(project)["good", "all-good"]["evaluator_results"][1]
    assert (france["score"], france["threshold"], france["passed"]) == (0.0, 0.0, True)


def test_a_wrong_pass_rule_is_a_located_error(project: ProjectDir) -> None:
    _project(project, SUITE.replace("execution:\n", "execution:\n  pass: most\n"))
    result = run_cli("validate", project.root / "evals")
    assert result.code == 1
    assert "suite.yaml:2:9: error: execution.pass: expected one of all, mean, got 'most'" in (
        result.out
    )


def test_an_errored_row_exits_1(project: ProjectDir) -> None:
    script = json.dumps([sys.executable, "-c", "import sys; sys.exit(3)"])
    _project(
        project,
        SUITE.replace(
            "{name: paris, type: contains, value: Paris}",
            f"{{name: s, type: code, script: {script}}}",
        ),
    )
    result = _eval(project, "--target", "all-good")
    assert result.code == 1
    assert {r["status"] for r in _rows(project).values()} == {"error"}


def test_with_a_threshold_each_targets_mean_is_the_gate(project: ProjectDir) -> None:
    _project(project)
    # one-bad's mean is 2/3: a failed row no longer fails the run, the mean decides.
    met = _eval(project, "--target", "one-bad", "--threshold", "0.6")
    assert met.code == 0, met.err
    assert "one-bad: mean score 0.667 meets the threshold 0.6" in met.out.splitlines()
    assert _eval(project, "--target", "one-bad", "--threshold", "0.7").code == 1


def test_with_a_threshold_one_target_below_fails_the_run(project: ProjectDir) -> None:
    """The overall mean (0.667 + 1 + 0) / 3 = 0.556 meets 0.5; all-bad's own mean does not."""
    _project(project)
    result = _eval(
        project, "--target", "all-good", "--target", "one-bad", "--target", "all-bad",
        "--threshold", "0.5",
    )  # fmt: skip
    assert result.code == 1
    lines = result.out.splitlines()
    assert "all-good: mean score 1.000 meets the threshold 0.5" in lines
    assert "one-bad: mean score 0.667 meets the threshold 0.5" in lines
    assert "all-bad: mean score 0.000 BELOW the threshold 0.5" in lines


def test_with_a_threshold_an_error_still_fails_the_run(project: ProjectDir) -> None:
    script = json.dumps([sys.executable, "-c", "import sys; sys.exit(3)"])
    suite = SUITE.replace(
        "evalcases:\n",
        "evalcases:\n"
        f"  - id: broken\n    expected_outcome: x\n    input: Capital?\n"
        f"    execution:\n      evaluators: [{{name: s, type: code, script: {script}}}]\n",
    )
    _project(project, suite)
    result = _eval(project, "--target", "all-good", "--threshold", "0.1")
    assert "all-good: mean score 1.000 meets the threshold 0.1" in result.out.splitlines()
    assert result.code == 1


def test_a_configuration_error_exits_2(project: ProjectDir) -> None:
    _project(project)
    result = _eval(project, "--target", "no-such-target")
    assert result.code == 2
    assert "no-such-target" in result.err
    assert "Traceback" not in result.err


REQUIRED = """\
execution:
  evaluators:
    - {name: paris, type: contains, value: Paris, REQUIRED}
    - {name: answered, type: regex, value: ".", weight: 3}
evalcases:
  - {id: good, expected_outcome: x, input: Capital?}
  - {id: bad, expected_outcome: x, input: Capital?}
"""


def test_a_failing_required_evaluator_fails_the_case(project: ProjectDir) -> None:
    """``bad`` scores (0 + 3*1) / 4 = 0.75 weighted; its required check fails it."""
    _project(project, REQUIRED.replace("REQUIRED", "required: true"))
    result = _eval(project, "--target", "one-bad")
    assert result.code == 1
    rows = _rows(project)
    bad = rows["bad", "one-bad"]
    reason = "required evaluator 'paris' scored 0, below the pass mark 0.5"
    assert (bad["status"], bad["score"]) == ("ok", 0.0)
    assert bad["misses"][-1] == reason
    assert bad["reasoning"].splitlines()[0] == reason
    assert [e["score"] for e in bad["evaluator_results"]] == [0.0, 1.0]
    good = rows["good", "one-bad"]
    assert (good["score"], reason in good["misses"]) == (1.0, False)


def test_an_evaluator_not_required_only_weighs_under_the_mean_rule(project: ProjectDir) -> None:
    _project(project, REQUIRED.replace("REQUIRED", "required: false"))
    result = _eval(project, "--target", "one-bad", "--pass-rule", "mean")
    assert result.code == 0, result.out
    assert _rows(project)["bad", "one-bad"]["score"] == 0.75


def test_a_required_evaluator_counts_against_its_own_pass_mark(project: ProjectDir) -> None:
    """At ``--pass-mark 0`` no score is below the pass mark: the weighted score stands."""
    _project(project, REQUIRED.replace("REQUIRED", "required: true"))
    assert _eval(project, "--target", "one-bad", "--pass-mark", "0").code == 0
    assert _rows(project)["bad", "one-bad"]["score"] == 0.75


def test_validate_checks_required(project: ProjectDir) -> None:
    _project(project, REQUIRED.replace("REQUIRED", "required: true"))
    assert run_cli("validate", project.root / "evals").code == 0
    _project(project, REQUIRED.replace("REQUIRED", "required: maybe"))
    result = run_cli("validate", project.root / "evals")
    assert result.code == 1
    assert "suite.yaml:3:61: error: execution.evaluators[0].required: expected true or false" in (
        result.out
    )


def test_run_takes_the_pass_rule_and_rate(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run(pass_rule=..., pass_rate=...)`` are the same options, checked the same way."""
    _project(project, TWO_CHECKS)
    monkeypatch.chdir(project.root)
    suite = project.root / "evals" / "suite.yaml"
    strict = ew.run(suite, targets="one-bad", out=project.root / "a.jsonl")
    lenient = ew.run(suite, targets="one-bad", pass_rule="mean", out=project.root / "b.jsonl")
    assert (strict.passed, lenient.passed) == (False, True)
    assert {r.pass_rule for r in lenient.rows} == {"mean"}
    with pytest.raises(ew.ConfigError, match="pass_rule: expected 'all' or 'mean', got 'most'"):
        ew.run(suite, targets="one-bad", pass_rule="most")  # type: ignore[arg-type]
    with pytest.raises(ew.ConfigError, match="pass_rate: expected a number from 0 to 1, got 2"):
        ew.run(suite, targets="one-bad", pass_rate=2)
