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
