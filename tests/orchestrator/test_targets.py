"""Choosing a run's targets: what a user is told when a case names none."""

from __future__ import annotations

from tests.conftest import ProjectDir, run_cli

CASE = "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n"


def test_no_target_and_no_default_names_the_targets_and_how_to_choose(
    project: ProjectDir,
) -> None:
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - {name: fast, provider: mock}\n  - {name: slow, provider: mock}\n",
    )
    eval_file = project.write("e.yaml", CASE)
    result = run_cli("eval", eval_file, "--out", project.root / "r.jsonl")
    assert result.code == 2
    assert "unknown target 'default'" not in result.err
    assert "no target chosen: " in result.err
    assert "defines fast, slow, none named 'default'" in result.err
    assert "--target NAME" in result.err
    assert "'target: NAME' in the eval file" in result.err


def test_an_explicit_unknown_target_lists_the_defined_ones(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", "targets:\n  - {name: fast, provider: mock}\n")
    eval_file = project.write("e.yaml", CASE)
    result = run_cli("eval", eval_file, "--target", "fats", "--out", project.root / "r.jsonl")
    assert result.code == 2
    assert "unknown target 'fats' (defined: fast)" in result.err
