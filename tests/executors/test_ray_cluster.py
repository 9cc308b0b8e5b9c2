"""``--executor ray`` on a real two-node Ray cluster on this machine (docs/scale.md): agent
cases spread over both nodes, take the time their slots allow, and a lost node loses no row."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from evalwright.executors.ray_cluster import failure
from evalwright.redact import Redactor, redacting
from evalwright.testing import FakeServer, FunctionCall, Text
from tests.conftest import REPO, ProjectDir, run_cli
from tests.e2e.codex_cli import codex_executable, codex_home
from tests.executors.ray_cluster import (
    Cluster,
    agent_project,
    read_rows,
    require_ray,
    two_nodes,
)

require_ray()

SLOTS = 2
"""CPUs of each node: with more, Ray's own processes on this 2-core machine take the time."""
SHAPE_CASES = 200
CASES = 24


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with two_nodes(SLOTS, SLOTS) as started:
        yield started


def _eval(
    project: ProjectDir, cluster: Cluster, *more: str
) -> tuple[int, str, list[dict[str, Any]]]:
    out = project.root / "r.jsonl"
    result = run_cli(
        "eval",
        project.root / "evals",
        "--target",
        "agent",
        "--executor",
        "ray",
        "--ray-address",
        cluster.address,
        "--workers",
        str(4 * SLOTS),
        "--out",
        out,
        *more,
    )
    return result.code, result.err, read_rows(out) if out.exists() else []


def test_a_ray_error_is_shown_by_its_first_line_redacted_whole() -> None:
    from ray.exceptions import RayError

    key = "-----BEGIN KEY-----\nline two of the key\n-----END KEY-----"
    error = RayError(f"the task died holding {key}\nand more")
    with redacting(Redactor([key])):
        assert failure(error) == "RayError: the task died holding [REDACTED]"
    assert failure(RayError("")) == "RayError: "


def test_200_cases_of_one_second_spread_over_both_nodes_in_their_slots_time(
    project: ProjectDir, cluster: Cluster
) -> None:
    """The issue's shape: 200 ``cli`` cases of 1 s, each ``num_cpus: 1``, within 20% of
    200 s divided by the slots."""
    agent_project(project, SHAPE_CASES, sleep=1)
    started = time.perf_counter()

    code, err, rows = _eval(project, cluster)

    wall = time.perf_counter() - started
    assert code == 0, err
    assert len(rows) == SHAPE_CASES
    said = {row["candidate_answer"] for row in rows}
    assert said == {f"Say fine {i}." for i in range(SHAPE_CASES)}
    assert len({row["node"] for row in rows}) == 2
    # From the first case's start (its finish less its second) to the last finish: the run's
    # wall less joining the cluster and sending the project, which a longer suite amortizes.
    finishes = sorted(datetime.fromisoformat(row["timestamp"]) for row in rows)
    cases = (finishes[-1] - (finishes[0] - timedelta(seconds=1))).total_seconds()
    ideal = SHAPE_CASES * 1 / (2 * SLOTS)
    print(f"wall {wall:.1f} s, cases {cases:.1f} s, ideal {ideal:.1f} s")
    assert cases <= ideal * 1.2


def test_ctrl_c_cancels_the_tasks_and_keeps_the_finished_rows(
    project: ProjectDir, cluster: Cluster
) -> None:
    agent_project(project, CASES, sleep=3)
    out = project.root / "r.jsonl"
    argv = [sys.executable, "-m", "evalwright", "eval", "evals", "--target", "agent"]
    argv += ["--executor", "ray", "--ray-address", cluster.address, "--out", str(out)]
    argv += ["--workers", str(4 * SLOTS)]
    run = subprocess.Popen(argv, cwd=project.root, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not _lines(out):
        time.sleep(0.1)
    assert _lines(out), "no case finished"

    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)

    assert run.returncode == 130, err
    assert "interrupted; every finished row is kept" in err
    rows = read_rows(out)
    assert 0 < len(rows) < CASES
    assert all(row["status"] == "ok" and row["node"] for row in rows)


CODEX_ANSWER = "The notes say the agent read them on its node."
CODEX_EVAL = """execution:
  evaluators:
    - {name: says, type: contains, value: notes}
evalcases:
  - id: agent-run
    expected_outcome: Reads the notes.
    input_messages:
      - role: user
        content:
          - Read the attached notes and say what they say.
          - {type: file, value: notes.txt}
"""
NOTES = "Some notes that travelled to the node.\n"


def test_a_codex_case_runs_on_a_node_with_its_files_config_and_key(
    project: ProjectDir, cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex = codex_executable()
    # The driver alone has the key and the Codex config: the nodes were started without them.
    key = "sk-ray-codex-key-123456"
    monkeypatch.setenv("FAKE_RESPONSES_KEY", key)
    with FakeServer.in_thread() as server:
        home = codex_home(tmp_path / "codex-home", server.url, "FAKE_RESPONSES_KEY")
        monkeypatch.setenv("CODEX_HOME", home["CODEX_HOME"])
        project.write(
            ".evalwright/targets.yaml",
            f"""targets:
  - name: agent
    provider: codex
    executable: {codex}
    args: [--sandbox, danger-full-access]
    timeout_seconds: 60
""",
        )
        project.write("evals/agent.yaml", CODEX_EVAL)
        project.write("evals/notes.txt", NOTES)
        # On the node the attachment sits in the task's workspace beside Codex's own
        # directory, never at the driver's path (which Codex is not told).
        server.enqueue(
            FunctionCall("exec_command", {"cmd": "cat ../../*/notes.txt"}, call_id="call_1"),
            Text(CODEX_ANSWER),
            api="responses",
        )

        code, err, rows = _eval(project, cluster)

        sent = server.requests_for("responses")
    assert code == 0, err
    (row,) = rows
    assert row["status"] == "ok", row["error"]
    assert row["candidate_answer"] == CODEX_ANSWER
    assert row["node"]
    assert len(sent) == 2
    assert sent[0].header("authorization") == f"Bearer {key}"
    prompt = json.dumps(sent[0].json)
    assert "Read the attached notes and say what they say." in prompt
    driver_notes = (project.root / "evals" / "notes.txt").as_uri()
    assert driver_notes not in prompt  # renamed to the node's copy in the task's workspace
    assert re.search(r"file:///\S*/evalwright-ray-[^/]+/\d+/notes\.txt", prompt), prompt
    assert NOTES.strip() in json.dumps(sent[1].json)  # the tool's output: the file's bytes
    results = (project.root / "r.jsonl").read_text(encoding="utf-8")
    assert key not in results
    logs = project.root / ".evalwright" / "logs" / "codex"
    assert all(key not in log.read_text(encoding="utf-8") for log in logs.glob("*.log"))


PROBE = """env > "$1/env"
ls -A > "$1/listing"
cat .env > "$1/dotenv" 2>&1
echo fine
"""
"""An agent that writes down what its task holds on the node: its environment, its working
directory's files and what a ``.env`` there says."""
DOTENV = {
    "PASSED_TOKEN": "dotenv-passed-token-1",
    "DEPLOY_TOKEN": "dotenv-deploy-token-2",
    "PLAIN_SETTING": "dotenv-plain-setting-3",
}


def test_a_node_gets_the_pass_env_values_and_nothing_else_of_the_env_file(
    project: ProjectDir, cluster: Cluster, tmp_path: Path
) -> None:
    """Issue 23: the project went to the nodes with its .env in it."""
    probe = tmp_path / "probe"
    probe.mkdir()
    project.write("scripts/probe.sh", PROBE)
    project.write(
        ".evalwright/targets.yaml",
        f"""targets:
  - name: agent
    provider: cli
    command: [sh, scripts/probe.sh, "{probe}"]
    timeout_seconds: 120
    pass_env: [PASSED_TOKEN]
""",
    )
    project.write(
        "evals/probe.yaml",
        "evalcases:\n  - id: probe\n    expected_outcome: Fine.\n    input: Look around.\n"
        "    execution:\n      evaluators:\n        - {name: says, type: contains, value: fine}\n",
    )
    project.write(".env", "".join(f"{name}={value}\n" for name, value in DOTENV.items()))

    code, err, rows = _eval(project, cluster)

    assert code == 0, err
    (row,) = rows
    assert row["status"] == "ok", row["error"]
    assert row["node"]
    assert f"PASSED_TOKEN={DOTENV['PASSED_TOKEN']}" in (probe / "env").read_text().splitlines()
    assert "scripts" in (probe / "listing").read_text().split()  # the project's copy
    assert ".env" not in (probe / "listing").read_text().split()
    seen = "".join(path.read_text(errors="replace") for path in probe.iterdir())
    assert DOTENV["DEPLOY_TOKEN"] not in seen
    assert DOTENV["PLAIN_SETTING"] not in seen


SANDBOXED_AGENT = """
import pathlib, sys
calc = pathlib.Path("calc.py")
calc.write_text(calc.read_text().replace("return a - b", "return a + b"))
pathlib.Path("notes.txt").unlink()
try:
    pathlib.Path(sys.argv[1], "escaped.txt").write_text("out")
    print("escaped")
except OSError as exc:
    print(f"refused: {exc.strerror}")
"""


def test_a_sandboxed_agent_works_in_its_workspace_on_a_node_and_nowhere_else(
    project: ProjectDir, cluster: Cluster
) -> None:
    """docs/agents.md#sandboxes: the bwrap command is built on the node, with its copies of
    the workspace (writable) and the project (read-only, its .env left out); the change
    comes back, a deleted file too, and the checks run on it."""
    shutil.copytree(REPO / "examples" / "agents" / "swe-fix" / "repo", project.root / "repo")
    project.write("repo/notes.txt", "Stale notes.\n")
    script = project.write("scripts/agent.py", SANDBOXED_AGENT)
    argv = json.dumps([sys.executable, str(script), str(project.root)])
    project.write(
        ".evalwright/targets.yaml",
        f"targets:\n  - {{name: agent, provider: cli, command: {argv}, sandbox: bwrap}}\n",
    )
    tests = json.dumps([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"])
    project.write(
        "evals/fix.yaml",
        "workspace: {copy: ../repo}\nevalcases:\n  - id: fix\n    input: Fix calc.add.\n"
        "    expected_outcome: Fixed.\n"
        "    execution:\n      evaluators:\n"
        f"        - {{name: tests, type: workspace_command, command: {tests}}}\n"
        "        - {name: scope, type: diff, allowed_paths: [calc.py, notes.txt]}\n",
    )
    project.write(".env", "SOME_TOKEN=dotenv-token-on-the-driver\n")

    code, err, rows = _eval(project, cluster)

    assert code == 0, err
    (row,) = rows
    assert row["status"] == "ok", row["error"]
    assert row["node"]
    assert row["sandbox"] == {"type": "bwrap", "network": "none"}
    assert row["candidate_answer"] == "refused: Read-only file system"
    assert row["score"] == 1.0, row["evaluator_results"]
    assert row["workspace"]["files"] == [
        {"path": "calc.py", "added": 1, "removed": 1},
        {"path": "notes.txt", "added": 0, "removed": 1},  # deleted on the node
    ]
    assert not (project.root / "escaped.txt").exists()


def test_a_lost_node_loses_no_row(project: ProjectDir, cluster: Cluster) -> None:
    # Last in this module: the worker node does not come back.
    agent_project(project, CASES, sleep=2)
    out = project.root / "r.jsonl"
    done: list[tuple[int, str, list[dict[str, Any]]]] = []
    run = threading.Thread(target=lambda: done.append(_eval(project, cluster)))
    run.start()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(_lines(out)) < SLOTS:
        time.sleep(0.2)
    assert _lines(out), "no case finished before the node was to be killed"

    cluster.kill_worker()
    run.join(timeout=300)

    assert not run.is_alive(), "the run hangs on the lost node"
    code, err, rows = done[0]
    assert code in (0, 1), err
    assert sorted(row["eval_id"] for row in rows) == [f"c{i:03d}" for i in range(CASES)]
    for row in rows:
        assert (
            row["status"] == "error"
            or row["candidate_answer"] == f"Say fine {row['eval_id'][1:].lstrip('0') or '0'}."
        )


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
