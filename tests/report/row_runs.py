"""Real runs for the report's per-row views: a prompt with images and a live conversation
with checks per turn on the fake server, and a command-line agent that changes its
workspace."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evalwright.testing import FakeServer, ReceivedRequest, Text
from tests.conftest import DATA, ProjectDir, run_cli
from tests.e2e.harness import base_env, environment, targets_yaml
from tests.report.runs import HOSTILE

PIXEL = DATA / "media" / "pixel.png"
IMAGES_EVAL = """evalcases:
  - id: look
    expected_outcome: Describes the picture.
    input_messages:
      - role: user
        content:
          - What is in this picture?
          - {type: image, value: pictures/pixel.png}
          - {type: image, url: "https://example.com/cat.png"}
    execution: {evaluators: [{name: says, type: contains, value: Reply}]}
  - id: talk
    expected_outcome: Answers each turn.
    turns:
      - content: First?
        evaluators: [{name: first-check, type: contains, value: Reply 1}]
      - content: Second?
        evaluators: [{name: second-check, type: contains, value: Reply 9}]
    execution: {evaluators: [{name: says, type: contains, value: Reply}]}
"""


def _reply(request: ReceivedRequest) -> Text:
    """``Reply N``, N the user turns it answers."""
    users = sum(1 for m in request.json["messages"] if m["role"] == "user")
    return Text(f"Reply {users}")


def run_images(root: Path) -> Path:
    """A real run of :data:`IMAGES_EVAL` on an OpenAI target of the fake server (the image at
    ``evals/pictures/pixel.png``); its results file."""
    project = ProjectDir(root)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    project.write("evals/pictures/pixel.png", PIXEL.read_bytes())
    project.write("evals/images.yaml", IMAGES_EVAL)
    with FakeServer.in_thread() as server:
        project.write(".evalwright/targets.yaml", targets_yaml(server.url))
        server.responder = _reply
        with environment(root, base_env()):
            result = run_cli("eval", "evals/images.yaml", "--target", "oa", "--out", "r.jsonl")
    assert result.code in (0, 1), result.err
    return root / "r.jsonl"


AGENT = f"""import pathlib
a = pathlib.Path("a.py")
a.write_text(a.read_text().replace("y = 2\\n", {json.dumps(HOSTILE + chr(10))}))
pathlib.Path("notes.md").write_text("<b>new</b>\\n")
print("Edited a.py.")
"""
WORKSPACE_EVAL = """workspace: {copy: ../repo}
evalcases:
  - id: edit
    expected_outcome: Edits a.py only.
    input: Edit a.py.
    execution: {evaluators: [{name: scope, type: diff, allowed_paths: [a.py]}]}
"""


def run_workspace(root: Path) -> Path:
    """A real run of a command-line agent that replaces a line of ``a.py`` with hostile
    markup and adds ``notes.md`` in its case's workspace; its results file."""
    project = ProjectDir(root)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    project.write("repo/a.py", "x = 1\ny = 2\nz = 3\n")
    targets = {
        "targets": [{"name": "agent", "provider": "cli", "command": [sys.executable, "-c", AGENT]}]
    }
    project.write(".evalwright/targets.yaml", json.dumps(targets))
    project.write("evals/ws.yaml", WORKSPACE_EVAL)
    temporary = root / "tmp"  # where the failed case's workspace is kept
    temporary.mkdir()
    with environment(root, {**base_env(), "TMPDIR": str(temporary)}):
        result = run_cli("eval", "evals/ws.yaml", "--target", "agent", "--out", "ws.jsonl")
    assert result.code in (0, 1), result.err
    return root / "ws.jsonl"
