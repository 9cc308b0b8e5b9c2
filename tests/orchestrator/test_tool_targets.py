"""Which targets a case's tools reach (docs/tools.md#declaring-tools): agents refuse them at
plan time with a located error naming the target; the offline mock runs without them."""

from __future__ import annotations

import json

from tests.conftest import ProjectDir, run_cli

TARGETS = """targets:
  - {name: m, provider: mock}
  - {name: codex, provider: codex}
  - {name: sh, provider: cli, command: [echo, "{PROMPT}"]}
"""
EVAL = """tools: [{name: t}]
execution:
  evaluators: [{name: c, type: contains, value: mock}]
evalcases:
  - {id: a, expected_outcome: o, input: x}
"""


def test_an_agent_target_refuses_a_case_with_tools(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    project.write("evals/e.yaml", EVAL)
    for name in ("codex", "sh"):
        refused = run_cli("eval", project.root / "evals/e.yaml", "--target", name)
        assert refused.code == 2
        kind = "codex" if name == "codex" else "cli"
        assert (
            f"e.yaml:5:1: error: tools: target '{name}': a {kind} agent works with its own "
            "tools: the tools a case declares (tools:) reach chat targets only (openai, "
        ) in refused.err


def test_the_mock_runs_a_case_with_tools(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    project.write("evals/e.yaml", EVAL)
    out = project.root / "r.jsonl"
    ran = run_cli("eval", project.root / "evals/e.yaml", "--target", "m", "--out", out)
    assert ran.code == 0, ran.err
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert (row["eval_id"], row["status"], row["score"]) == ("a", "ok", 1.0)


def test_validate_refuses_tools_offered_to_an_agent(project: ProjectDir) -> None:
    targets = TARGETS.replace(
        "{name: m, provider: mock}", '{name: default, provider: cli, command: [echo, "{PROMPT}"]}'
    )
    project.write(".evalwright/targets.yaml", targets)
    project.write("evals/e.yaml", EVAL)
    checked = run_cli("validate", project.root / "evals/e.yaml")
    assert checked.code == 1, checked.out + checked.err
    output = checked.out + checked.err
    assert (
        "e.yaml:5:1: error: tools: case 'a': target 'default': a cli agent works with its own tools"
    ) in output
