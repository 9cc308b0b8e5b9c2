"""The real Gemini CLI, run by ``evalwright eval`` on the swe-fix example against the fake
server's streamed Gemini API: scripted to read, replace and test through its own tools, it
fixes the bug in the case's workspace; the workspace checks pass and its trajectory is scored
(docs/agents.md#gemini_cli-gemini-cli)."""

from __future__ import annotations

import json
from pathlib import Path

from evalwright.testing import FunctionCall, Text
from tests.e2e.agent_clis import FIXED, GEMINI_CLI, gemini_home, swe_fix_project
from tests.e2e.harness import E2E, GEMINI_KEY

TRAJECTORY = """\
        - name: read-replace-test
          type: tool_sequence
          calls: [read_file, replace, run_shell_command]
        - {name: ran-tests, type: tool_called, tool: shell}
"""


def test_gemini_cli_fixes_the_bug_through_its_own_tools(e2e: E2E, tmp_path: Path) -> None:
    gemini = GEMINI_CLI.executable()
    # A named model: Gemini CLI's default ("auto") first asks a router model to classify
    # the prompt, a request this script does not answer.
    targets = f"""targets:
  - name: gemini
    provider: gemini_cli
    executable: {gemini}
    model: gemini-test-model
    base_url: {e2e.server.url}
    args: [--approval-mode, yolo]
    timeout_seconds: 120
"""
    swe_fix_project(e2e.root, targets, TRAJECTORY)
    e2e.env.update(gemini_home(tmp_path / "home"))
    edit = {"file_path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"}
    e2e.server.enqueue(
        FunctionCall("read_file", {"file_path": "calc.py"}),
        FunctionCall("replace", {**edit, "instruction": "add, not subtract"}),
        FunctionCall("run_shell_command", {"command": "python -m pytest -q"}),
        Text(FIXED),
        api="gemini",
    )

    result = e2e.run_process(
        "eval", "evals/fix.yaml", "--target", "gemini", "--out", "results.jsonl", timeout=300
    )
    assert result.code == 0, result.err + result.out
    (row,) = e2e.rows()
    assert row["status"] == "ok", row["error"]
    assert row["provider"] == "gemini_cli"
    assert row["candidate_answer"] == FIXED
    assert row["score"] == 1.0, row["evaluator_results"]
    assert row["workspace"]["files"] == [{"path": "calc.py", "added": 1, "removed": 1}]
    assert "return a - b" in (e2e.root / "repo" / "calc.py").read_text()  # the user's untouched
    calls = row["tool_calls"]
    assert [c["name"] for c in calls] == ["read_file", "replace", "run_shell_command"]
    assert calls[1]["arguments"]["new_string"] == "return a + b"
    (command,) = [t for t in row["trace"] if t["type"] == "command"]
    assert command["command"] == "python -m pytest -q"
    assert "2 passed" in command["text"]
    assert row["trace"][-1] == {"type": "message", "text": FIXED}
    assert row["usage"]["input_tokens"] > 0

    wire = row["wire_request"]
    assert wire["api"] == "gemini_cli"
    assert wire["argv"][1:5] == ["--output-format", "stream-json", "--model", "gemini-test-model"]
    requests = e2e.server.requests_for("gemini")
    assert len(requests) == 4
    assert {r.model for r in requests} == {"gemini-test-model"}
    assert all(r.stream and r.header("x-goog-api-key") == GEMINI_KEY for r in requests)
    assert json.dumps(wire["prompt_document"])[1:-1] in json.dumps(requests[0].json)

    (log,) = (e2e.root / ".evalwright" / "logs" / "gemini").glob("*fix-add.log")
    text = log.read_text(encoding="utf-8")
    assert '"type":"result"' in text
    assert GEMINI_KEY not in text
    assert GEMINI_KEY not in (e2e.root / "results.jsonl").read_text(encoding="utf-8")
