"""A real run whose rows cover every kind of row: ok, evaluator error, target error, a chat
prompt with delivery notes and tool calls, a judge, a script, an agent trace."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from tests.conftest import ProjectDir, run_cli

PY = json.dumps(sys.executable)
TARGETS = f"""targets:
  - name: m
    provider: mock
    response: "The answer is 4."
    judge_target: j
  - name: j
    provider: mock
  - name: bad
    provider: cli
    command: [{PY}, -c, "import sys; sys.exit(3)"]
    judge_target: j
  - name: v
    provider: vscode
    dry_run: true
    judge_target: j
"""
SCORE = "import json, sys; json.load(sys.stdin); print(json.dumps({'score': 0.5, 'hits': ['h']}))"
SUITE = f"""description: every kind of row
tags: [suite]
execution:
  evaluators:
    - {{name: says-4, type: contains, value: "4"}}
    - {{name: script, type: code, script: [{PY}, -c, {json.dumps(SCORE)}], weight: 2}}
evalcases:
  - id: plain
    expected_outcome: Says 4.
    input: What is 2+2?
    metadata: {{level: 1, tags: [a, b], nested: {{x: null}}}}
    tags: [smoke, suite]
  - id: chat
    conversation_id: conv-1
    expected_outcome: Says 4.
    input_messages:
      - {{role: user, content: Run it}}
      - role: assistant
        content: ok
        tool_calls: [{{id: c1, name: run, arguments: {{cmd: ls}}}}]
      - {{role: tool, tool_call_id: c1, name: run, content: a.txt}}
      - {{role: system, content: Be brief.}}
      - {{role: user, content: [Which files?, {{type: file, value: notes.txt}}]}}
    expected_messages: [{{role: assistant, content: "4"}}]
  - id: failing-script
    expected_outcome: Says 4.
    input: What is 2+2?
    execution:
      evaluators:
        - {{name: broken, type: code, script: [{PY}, -c, "import sys; sys.exit(2)"]}}
  - id: judged
    expected_outcome: Says 4.
    input: What is 2+2?
    execution:
      evaluators:
        - {{name: judge, type: llm_judge}}
"""


def golden_rows(project: ProjectDir) -> list[dict[str, Any]]:
    """Run the suite on every target and return its rows, with what changes from run to
    run (ids, times, temporary paths) replaced by placeholders."""
    project.write(".evalwright/targets.yaml", TARGETS)
    project.write("evals/notes.txt", "a.txt\nb.txt\n")
    suite = project.write("evals/suite.yaml", SUITE)
    out = project.root / "r.jsonl"
    targets = ("--target", "m", "--target", "bad", "--target", "v")
    result = run_cli("eval", suite, *targets, "--workers", "1", "--out", out)
    assert result.code == 1, result.err
    text = out.read_text(encoding="utf-8")
    for workspace in set(re.findall(r"[^\"\s]*evalwright-vscode-[A-Za-z0-9_]+", text)):
        shutil.rmtree(workspace, ignore_errors=True)
    return [_normalized(json.loads(line), project.root) for line in text.splitlines()]


def _normalized(row: dict[str, Any], root: Path) -> dict[str, Any]:
    row = {**row, "run_id": "RUN", "timestamp": "TIME"}
    text = json.dumps(row, ensure_ascii=False)
    text = text.replace(json.dumps(str(root))[1:-1], "<ROOT>")
    text = text.replace(json.dumps(sys.executable)[1:-1], "<PYTHON>")
    text = re.sub(r"[^\"\s]*evalwright-vscode-[A-Za-z0-9_]+", "<WORKSPACE>", text)
    return json.loads(text)
