"""AgentV HEAD's ``.agentv/providers.yaml`` read as the project's targets when it has no
targets file (docs/agentv.md#providers): each provider evalwright has a kind for becomes a
target named by its ``label``; every other provider or setting is a warning at its line."""

from __future__ import annotations

import json

from tests.conftest import ProjectDir, run_cli

PROVIDERS = """\
providers:
  - id: mock
    label: mock_agent
    stream_log: raw
  - id: azure
    label: llm
    endpoint: "{{ env.AZURE_OPENAI_ENDPOINT }}"
    model: gpt-4o
    version: "2024-10-21"
  - id: copilot-cli
    label: copilot
  - id: cli
    label: local_cli
    grader_target: grader
    config:
      command: echo hi > {OUTPUT_FILE}
"""
CASES = "evalcases:\n  - id: a\n    expected_outcome: Says hi.\n    input: hi\n"


def test_validate_reads_providers_as_targets_and_warns_at_each_line(project: ProjectDir) -> None:
    project.write(".agentv/providers.yaml", PROVIDERS)
    eval_file = project.write("evals/a.yaml", CASES)
    checked = run_cli("validate", eval_file)
    assert checked.code == 0, checked.out + checked.err
    lines = (checked.out + checked.err).splitlines()
    shown = ".agentv/providers.yaml"
    expected = [
        f"{shown}:10:9: warning: providers[2].id: provider 'copilot-cli' has no evalwright "
        "target kind: not carried",
        f"{shown}:14:20: warning: providers[3].grader_target: grader target 'grader' is not "
        "defined here: not carried",
        f"{shown}:7:15: warning: targets[1].endpoint: variable AZURE_OPENAI_ENDPOINT is not set "
        "(in the environment or .env)",
    ]
    for line in expected:
        assert any(got.endswith(line) for got in lines), (line, lines)
    assert not any("stream_log" in line for line in lines)


def test_a_run_uses_a_provider_by_its_label(project: ProjectDir) -> None:
    project.write(".agentv/providers.yaml", PROVIDERS)
    eval_file = project.write("evals/a.yaml", CASES)
    out = project.root / "r.jsonl"
    ran = run_cli("eval", eval_file, "--target", "mock_agent", "--out", out)
    assert ran.code in (0, 1), ran.err
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert row["target"] == "mock_agent"
