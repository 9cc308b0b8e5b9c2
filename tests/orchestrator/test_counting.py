"""What a run counts: the cases it announces, the rows its summary counts on ``--resume``,
and the cases a repeated ``--eval-id`` selects (running.md)."""

from __future__ import annotations

import json

from tests.conftest import ProjectDir, run_cli


def _jsonl(ids: list[str], *, header: bool) -> str:
    lines = [json.dumps({"dataset": "suite", "description": "a header"})] if header else []
    lines += [json.dumps({"id": i, "expected_outcome": "x", "input": f"q {i}"}) for i in ids]
    return "\n".join(lines) + "\n"


def _yaml(ids: list[str]) -> str:
    lines = [
        "execution:",
        "  evaluators:",
        "    - {name: answers, type: contains, value: mock}",
        "evalcases:",
    ]
    for case_id in ids:
        lines += [f"  - id: {case_id}", "    expected_outcome: x", f"    input: q {case_id}"]
    return "\n".join(lines) + "\n"


def _targets(*names: str) -> str:
    return "targets:\n" + "".join(f"  - name: {n}\n    provider: mock\n" for n in names)


def _summary_line(out: str) -> str:
    return next(line for line in out.splitlines() if " case(s) run" in line)


def test_a_jsonl_header_line_is_not_counted_as_a_case(project: ProjectDir) -> None:
    ids = [f"c{i}" for i in range(6)]
    path = project.write("evals/suite.jsonl", "\n" + _jsonl(ids, header=True))
    result = run_cli("eval", path, "--dry-run", "--out", project.root / "r.jsonl")
    assert result.code == 0, result.err
    assert result.err.splitlines()[0] == "running 6 case(s)"
    assert _summary_line(result.out).startswith("6 of 6 case(s) run")


def test_a_jsonl_without_header_counts_every_line(project: ProjectDir) -> None:
    path = project.write("evals/suite.jsonl", _jsonl(["a", "b", "c"], header=False))
    result = run_cli("eval", path, "--dry-run", "--out", project.root / "r.jsonl")
    assert result.code == 0, result.err
    assert result.err.splitlines()[0] == "running 3 case(s)"


def test_resume_counts_only_the_planned_targets_rows(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", _targets("one", "two"))
    path = project.write("evals/suite.yaml", _yaml([f"c{i}" for i in range(5)]))
    out = project.root / "r.jsonl"
    first = run_cli("eval", path, "--target", "one", "--out", out)
    assert first.code == 0, first.err

    second = run_cli("eval", path, "--target", "two", "--resume", out)

    assert second.code == 0, second.err
    assert _summary_line(second.out).startswith("5 of 5 case(s) run")
    table = [line.split() for line in second.out.splitlines()]
    assert [row[:2] for row in table if row[0] in ("one", "two")] == [["two", "5"]]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted((r["target"], r["eval_id"]) for r in rows) == sorted(
        (t, f"c{i}") for t in ("one", "two") for i in range(5)
    ), "the other target's rows stay in the file"


def test_resume_counts_only_the_selected_cases_rows(project: ProjectDir) -> None:
    path = project.write("evals/suite.yaml", _yaml(["a1", "a2", "b1", "b2"]))
    out = project.root / "r.jsonl"
    assert run_cli("eval", path, "--dry-run", "--out", out).code == 0
    result = run_cli("eval", path, "--dry-run", "--eval-id", "a*", "--resume", out)
    assert result.code == 0, result.err
    assert _summary_line(result.out).startswith("2 of 2 case(s) run")
    assert len(out.read_text(encoding="utf-8").splitlines()) == 4


def test_eval_id_given_twice_selects_the_union(project: ProjectDir) -> None:
    path = project.write("evals/suite.yaml", _yaml(["alpha", "beta", "gamma"]))
    out = project.root / "r.jsonl"
    result = run_cli("eval", path, "--dry-run", "--eval-id", "al*", "--eval-id", "g*", "--out", out)
    assert result.code == 0, result.err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["eval_id"] for r in rows) == ["alpha", "gamma"]


def test_eval_id_given_twice_on_a_streamed_suite(project: ProjectDir) -> None:
    path = project.write("evals/suite.jsonl", _jsonl(["alpha", "beta", "gamma"], header=False))
    out = project.root / "r.jsonl"
    result = run_cli("eval", path, "--dry-run", "--eval-id", "b*", "--eval-id", "al*", "--out", out)
    assert result.code == 0, result.err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["eval_id"] for r in rows) == ["alpha", "beta"]


def test_eval_ids_matching_nothing_name_every_glob(project: ProjectDir) -> None:
    path = project.write("evals/suite.yaml", _yaml(["alpha"]))
    result = run_cli("eval", path, "--dry-run", "--eval-id", "x*", "--eval-id", "y*")
    assert result.code == 2
    assert "--eval-id 'x*' --eval-id 'y*'" in result.err


def test_prompt_eval_id_given_twice_selects_the_union(project: ProjectDir) -> None:
    path = project.write("evals/suite.yaml", _yaml(["alpha", "beta", "gamma"]))
    result = run_cli("prompt", path, "--json", "--eval-id", "be*", "--eval-id", "gamma")
    assert result.code == 0, result.err
    assert [item["eval_id"] for item in result.json_lines()] == ["beta", "gamma"]
