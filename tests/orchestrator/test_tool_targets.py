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


def test_an_agent_refuses_an_mcp_servers_tools_too(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    project.write(
        "evals/e.yaml",
        EVAL.replace("tools: [{name: t}]", "tools: [{mcp: {url: 'http://127.0.0.1:9/mcp'}}]"),
    )
    refused = run_cli("eval", project.root / "evals/e.yaml", "--target", "codex")
    assert refused.code == 2
    assert "error: tools: target 'codex': a codex agent works with its own tools" in refused.err


def test_validate_checks_a_targets_tool_choice_against_the_cases_tools(
    project: ProjectDir,
) -> None:
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: default\n    provider: openai\n    model: m\n"
        "    settings: {tool_choice: {name: book}}\n",
    )
    project.write(
        "evals/e.yaml",
        """tools: [{name: search}]
evalcases:
  - {id: a, expected_outcome: o, input: x}
  - {id: own, expected_outcome: o, input: x, settings: {tool_choice: auto}}
  - {id: b, expected_outcome: o, input: x, tools: [{name: book}]}
""",
    )
    checked = run_cli("validate", project.root / "evals/e.yaml")
    output = checked.out + checked.err
    assert checked.code == 1, output
    assert (
        "e.yaml:3:1: error: tools: case 'a': target 'default' sets tool_choice {name: book}, "
        "not one of the case's tools (search)"
    ) in output
    assert "case 'own'" not in output, "the case's own tool_choice wins"
    assert "case 'b'" not in output, "case b offers book"
