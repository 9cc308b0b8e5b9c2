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


def test_eval_prints_the_warnings_validate_prints_before_the_run(project: ProjectDir) -> None:
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - {name: default, provider: mock, provider_batching: true}\n",
    )
    yaml_file = project.write(
        "e.yaml", "evalcases:\n  - id: a\n    outcome: o\n    input: hi\n    note: x\n"
    )
    validated = run_cli("validate", yaml_file)
    warnings = [line for line in validated.out.splitlines() if ": warning: " in line]
    assert len(warnings) == 3
    result = run_cli("eval", yaml_file, "--out", project.root / "r.jsonl")
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    assert lines[:3] == warnings, "located, as validate prints them, before the run starts"
    assert lines[3].startswith("running 1 case(s)")


def test_a_streamed_file_s_warnings_are_printed_as_its_cases_are_read(
    project: ProjectDir,
) -> None:
    project.write(".evalwright/targets.yaml", "targets:\n  - {name: default, provider: mock}\n")
    lines = [f'{{"id": "c{i}", "outcome": "o", "input": "hi"}}' for i in range(3)]
    jsonl = project.write("e.jsonl", "\n".join(lines) + "\n")
    result = run_cli("eval", jsonl, "--out", project.root / "r.jsonl")
    assert result.code == 0, result.err
    shown = [line for line in result.err.splitlines() if ": warning: " in line]
    assert [line.split(": warning:")[0].rsplit("/", 1)[-1] for line in shown] == [
        "e.jsonl:1:14",
        "e.jsonl:2:14",
        "e.jsonl:3:14",
    ]
    assert "legacy key 'outcome': use 'expected_outcome'" in shown[0]
