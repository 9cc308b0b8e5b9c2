"""The goals table of ``bench/run.py --all``: each figure against its limit."""

from __future__ import annotations

from bench.goals import GOALS, Goal, failed_runs, goal_rows, goal_table

AT_MOST = Goal("load_s", "loading", "s", 0.3)
AT_LEAST = Goal("efficiency", "efficiency", "", 0.9, at_least=True)
REFERENCE = Goal("baseline", "baseline", "")


def test_an_upper_limit_is_met_at_or_below_it() -> None:
    assert AT_MOST.status(0.3) == "met"
    assert AT_MOST.status(0.29) == "met"
    assert AT_MOST.status(0.31) == "not met"


def test_efficiency_is_met_at_or_above_its_limit() -> None:
    assert AT_LEAST.status(0.9) == "met"
    assert AT_LEAST.status(0.955) == "met"
    assert AT_LEAST.status(0.89) == "not met"


def test_a_missing_figure_is_not_measured_and_a_figure_without_goal_is_reported() -> None:
    assert AT_MOST.status(None) == "not measured"
    assert REFERENCE.status(0.96) == "—"
    assert REFERENCE.goal_text() == "—"


def test_rows_show_the_goal_and_the_measured_figure_with_units() -> None:
    rows = goal_rows({"load_s": 4.5, "efficiency": 0.955}, (AT_MOST, AT_LEAST, REFERENCE))
    assert rows == [
        ("loading", "≤ 0.3 s", "4.5 s", "not met"),
        ("efficiency", "≥ 0.9", "0.955", "met"),
        ("baseline", "—", "—", "not measured"),
    ]


def test_the_table_has_one_line_per_goal_of_the_issue() -> None:
    table = goal_table({})
    assert table.count("\n") == len(GOALS) + 2
    assert len({goal.key for goal in GOALS}) == len(GOALS)
    limits = {goal.key: goal.limit for goal in GOALS}
    assert limits["validate_2000_yaml_s"] == 0.3
    assert limits["startup_2000_jsonl_s"] == 0.25
    assert limits["startup_2000_yaml_s"] == 0.4
    assert limits["efficiency_judge"] == 0.9
    assert limits["import_ms"] == 20


def test_a_failed_or_erroring_run_is_named_where_it_is_in_the_report() -> None:
    report: dict[str, object] = {
        "figures": {"help_s": 0.05},
        "help": {"exit_codes": [0], "wall_s": 0.05},
        "validate": {"exit_codes": [0, 1], "wall_s": 1.0},
        "runs": [{"exit_code": 0, "error_rows": 0}, {"exit_code": 2, "error_rows": 0}],
        "judge": {"median": {}, "runs": [{"exit_code": 0, "error_rows": 3}]},
    }
    assert failed_runs(report) == [
        "validate: exit codes [0, 1], error rows 0",
        "runs[1]: exit codes [2], error rows 0",
        "judge.runs[0]: exit codes [0], error rows 3",
    ]
    assert failed_runs({"figures": {}, "runs": [{"exit_code": 0, "error_rows": 0}]}) == []
