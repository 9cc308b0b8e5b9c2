"""A real Codex CLI run through ``evalwright eval`` against the fake server's Responses API,
with one scripted tool call that makes Codex run a command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evalwright.testing import FunctionCall, Text
from tests.conftest import REPO
from tests.e2e.codex_cli import codex_executable, codex_home
from tests.e2e.harness import E2E, judge_user_text, question_section, targets_yaml

FINAL = "The marker file says evalwright-tool-ran."
EVAL = """evalcases:
  - id: agent-run
    expected_outcome: Runs the command and reports the marker.
    input_messages:
      - role: user
        content:
          - Run the command, then tell me what the marker file says.
          - {type: file, value: notes.txt}
"""


def test_codex_answers_after_running_a_command(e2e: E2E, tmp_path: Path) -> None:
    codex = codex_executable()
    scratch = tmp_path / "workspaces"
    e2e.project.write(
        ".evalwright/targets.yaml",
        targets_yaml(e2e.server.url)
        + f"""\
  - name: codex
    provider: codex
    executable: {codex}
    args: [--sandbox, danger-full-access]
    cwd: {scratch}
    judge_target: judge
    timeout_seconds: 120
""",
    )
    e2e.project.write("evals/agent.yaml", EVAL)
    e2e.project.write("evals/notes.txt", "Some notes for the agent.\n")
    e2e.env.update(codex_home(tmp_path / "codex-home", e2e.server.url, "FAKE_RESPONSES_KEY"))
    e2e.env["FAKE_RESPONSES_KEY"] = "sk-fake-responses-123456"
    command = "echo evalwright-tool-ran > marker.txt && cat marker.txt"
    e2e.server.enqueue(
        FunctionCall("exec_command", {"cmd": command}, call_id="call_1"),
        Text(FINAL),
        api="responses",
    )
    e2e.server.judge_verdict = {"score": 1, "hits": ["ran it"], "misses": [], "reasoning": "ok"}

    # A subprocess: the real end-to-end run, as a user starts it.
    result = e2e.run_process(
        "eval", "evals/agent.yaml", "--target", "codex", "--out", "results.jsonl", timeout=300
    )
    assert result.code == 0, result.err + result.out
    (row,) = e2e.rows()
    assert row["status"] == "ok", row["error"]
    assert row["provider"] == "codex"
    assert row["candidate_answer"] == FINAL
    commands = [t for t in row["trace"] if t["type"] == "command"]
    assert len(commands) == 1
    assert "evalwright-tool-ran" in commands[0]["command"]
    assert commands[0]["exit_code"] == 0
    assert row["usage"]["output_tokens"] is not None

    question = row["raw_request"]["question"]
    assert question.endswith('<file: path="notes.txt">')  # agent mode: named, not inlined
    assert row["raw_request"]["chat_prompt"] is None
    wire = row["wire_request"]
    assert wire["api"] == "codex"
    assert wire["argv"][1:5] == ["exec", "--json", "--skip-git-repo-check", "--sandbox"]
    assert wire["prompt_document"].endswith("[[ ## user_query ## ]]\n\n" + question)
    assert Path(wire["cwd"]).parent == scratch

    first = e2e.server.requests_for("responses")[0]
    sent = json.dumps(first.json)
    assert json.dumps(wire["prompt_document"])[1:-1] in sent  # Codex got our document

    (judge,) = e2e.judges()
    assert question_section(judge_user_text(judge)) == question
    logs = list((e2e.root / ".evalwright" / "logs" / "codex").glob("*agent-run.log"))
    assert len(logs) == 1
    assert "command_execution" in logs[0].read_text(encoding="utf-8")


def test_codex_fixes_the_swe_task_in_its_workspace_and_is_scored(e2e: E2E, tmp_path: Path) -> None:
    """The examples/agents/swe-fix task: Codex, scripted by the fake server to fix calc.py
    with one shell command, works in its own copy of the repository; the tests pass there,
    the diff check sees calc.py only, and its command is scored as a ``shell`` call."""
    codex = codex_executable()
    repo = REPO / "examples" / "agents" / "swe-fix" / "repo"
    for path in repo.iterdir():
        if path.is_file():
            e2e.project.write(f"repo/{path.name}", path.read_text(encoding="utf-8"))
    e2e.project.write(
        ".evalwright/targets.yaml",
        targets_yaml(e2e.server.url)
        + f"""\
  - name: codex
    provider: codex
    executable: {codex}
    args: [--sandbox, danger-full-access]
    timeout_seconds: 120
""",
    )
    e2e.project.write("evals/fix.yaml", SWE_EVAL.format(python=json.dumps(sys.executable)))
    e2e.env.update(codex_home(tmp_path / "codex-home", e2e.server.url, "FAKE_RESPONSES_KEY"))
    e2e.env["FAKE_RESPONSES_KEY"] = "sk-fake-responses-123456"
    fix = "sed -i 's/return a - b/return a + b/' calc.py && grep -c 'a + b' calc.py"
    e2e.server.enqueue(
        FunctionCall("exec_command", {"cmd": fix}, call_id="call_1"),
        Text("Fixed calc.add."),
        api="responses",
    )

    result = e2e.run_process(
        "eval", "evals/fix.yaml", "--target", "codex", "--out", "results.jsonl", timeout=300
    )

    assert result.code == 0, result.err + result.out
    (row,) = e2e.rows()
    assert (row["status"], row["score"]) == ("ok", 1.0), row["evaluator_results"]
    tests, scope, ran = row["evaluator_results"]
    assert "2 passed" in tests["output"]["stdout"]
    assert scope["hits"] == ["calc.py (+1 -1)"]
    assert ran["score"] == 1.0
    assert row["workspace"]["files"] == [{"path": "calc.py", "added": 1, "removed": 1}]
    assert row["wire_request"]["cwd"] == row["workspace"]["path"]
    assert "return a - b" in (e2e.root / "repo" / "calc.py").read_text()  # the user's untouched


SWE_EVAL = """workspace: {{copy: ../repo}}
evalcases:
  - id: fix-add
    expected_outcome: calc.add returns the sum; the tests pass; only calc.py changes.
    input: test_calc.py fails because calc.add is wrong. Fix calc.py and change nothing else.
    execution:
      evaluators:
        - {{name: tests, type: workspace_command, command: [{python}, -m, pytest, -q]}}
        - {{name: scope, type: diff, allowed_paths: [calc.py]}}
        - {{name: ran, type: tool_called, tool: shell, arguments_schema:
            {{properties: {{command: {{pattern: "calc\\\\.py"}}}}, required: [command]}}}}
"""
