"""The real Claude Code, run by ``evalwright eval`` on the swe-fix example against the fake
server's streamed Anthropic Messages API: scripted to read, edit and test through its own
tools, it fixes the bug in the case's workspace; the workspace checks pass and its
trajectory is scored (docs/agents.md#claude_code-claude-code)."""

from __future__ import annotations

import json
from pathlib import Path

from evalwright.testing import FunctionCall, Text
from tests.e2e.agent_clis import CLAUDE_CODE, FIXED, swe_fix_project
from tests.e2e.harness import ANTHROPIC_KEY, E2E

TRAJECTORY = """\
        - {name: read-edit-test, type: tool_sequence, calls: [Read, Edit, Bash]}
        - {name: edits-calc, type: tool_called, tool: Edit, arguments: {file_path: calc.py}}
        - {name: ran-tests, type: tool_called, tool: shell}
        - {name: no-write, type: tool_called, tool: Write, negate: true}
"""


def test_claude_code_fixes_the_bug_through_its_own_tools(e2e: E2E, tmp_path: Path) -> None:
    claude = CLAUDE_CODE.executable()
    targets = f"""targets:
  - name: claude
    provider: claude_code
    executable: {claude}
    model: claude-test-model
    base_url: {e2e.server.url}
    args: [--permission-mode, acceptEdits, --allowedTools, Bash]
    timeout_seconds: 120
"""
    swe_fix_project(e2e.root, targets, TRAJECTORY)
    e2e.env["HOME"] = str(tmp_path / "home")  # Claude Code's own state goes there
    edit = {"file_path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"}
    e2e.server.enqueue(
        FunctionCall("Read", {"file_path": "calc.py"}, call_id="toolu_read"),
        FunctionCall("Edit", edit, call_id="toolu_edit"),
        FunctionCall("Bash", {"command": "python -m pytest -q"}, call_id="toolu_bash"),
        Text(FIXED),
        api="anthropic",
    )

    result = e2e.run_process(
        "eval", "evals/fix.yaml", "--target", "claude", "--out", "results.jsonl", timeout=300
    )
    assert result.code == 0, result.err + result.out
    (row,) = e2e.rows()
    assert row["status"] == "ok", row["error"]
    assert row["provider"] == "claude_code"
    assert row["candidate_answer"] == FIXED
    assert row["score"] == 1.0, row["evaluator_results"]
    names = {r["name"]: r for r in row["evaluator_results"]}
    assert "2 passed" in names["tests"]["output"]["stdout"]
    assert row["workspace"]["files"] == [{"path": "calc.py", "added": 1, "removed": 1}]
    assert "return a - b" in (e2e.root / "repo" / "calc.py").read_text()  # the user's untouched
    assert [c["name"] for c in row["tool_calls"]] == ["Read", "Edit", "Bash"]
    assert row["tool_calls"][1]["arguments"] == {**edit, "replace_all": False}
    (command,) = [t for t in row["trace"] if t["type"] == "command"]
    assert command["command"] == "python -m pytest -q"
    assert "2 passed" in command["text"]  # the test run Claude Code saw, after its edit
    assert row["trace"][-1] == {"type": "message", "text": FIXED}
    assert row["usage"]["input_tokens"] > 0

    wire = row["wire_request"]
    assert wire["api"] == "claude_code"
    assert wire["argv"][1:7] == [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--model",
        "claude-test-model",
    ]
    assert wire["cwd"] == row["workspace"]["path"]
    requests = e2e.server.requests_for("anthropic")
    assert len(requests) == 4
    assert {r.model for r in requests} == {"claude-test-model"}
    assert all(r.stream and r.header("x-api-key") == ANTHROPIC_KEY for r in requests)
    assert json.dumps(wire["prompt_document"])[1:-1] in json.dumps(requests[0].json)

    (log,) = (e2e.root / ".evalwright" / "logs" / "claude").glob("*fix-add.log")
    text = log.read_text(encoding="utf-8")
    assert '"type":"result"' in text
    assert ANTHROPIC_KEY not in text
    assert ANTHROPIC_KEY not in (e2e.root / "results.jsonl").read_text(encoding="utf-8")
