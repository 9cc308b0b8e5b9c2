"""Agents under ``sandbox: bwrap``, end to end (docs/agents.md#sandboxes): real bubblewrap,
real subprocesses, a scripted ``cli`` agent trying what a sandbox must refuse. Each attempt
runs twice, under ``none`` and under ``bwrap``: what ``none`` lets through, ``bwrap``
refuses, and the row says so (the agent's stderr, the sandbox recorded)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalwright.testing import FakeServer
from tests.conftest import REPO, run_cli

EXAMPLE = REPO / "examples" / "agents" / "swe-fix"
HOME_SECRET = "home-secret-3f9a1c"
ENV_SECRET = "dotenv-secret-77b2e0"
AGENT = """
import os, pathlib, socket, sys
action, where = sys.argv[1], pathlib.Path(sys.argv[2])
try:
    if action == "write-project":
        (where / "escaped.txt").write_text("out")
    elif action == "write-tmp":
        (where / "outside.txt").write_text("out")
    elif action == "read-home":
        print((where / ".ssh" / "id_ed25519").read_text())
    elif action == "read-env":
        print("env file:", repr((where / ".env").read_text()))
    elif action == "connect":
        socket.create_connection(("127.0.0.1", int(sys.argv[3])), timeout=10).close()
        print("connected")
    elif action == "environment":
        print(" ".join(sorted(os.environ)))
    elif action == "fix":
        calc = pathlib.Path("calc.py")
        calc.write_text(calc.read_text().replace("return a - b", "return a + b"))
        print("fixed")
except OSError as exc:
    sys.exit(f"refused: {action}: {exc}")
"""


@pytest.fixture
def server() -> Iterator[FakeServer]:
    """The loopback server an agent may reach only with ``network: allow``."""
    with FakeServer.in_thread() as running:
        yield running


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The swe-fix example as a project holding a ``.env`` secret and, as its user's home
    directory, a ``home`` with a key in ``.ssh``: a home the project's own files would
    otherwise show."""
    root = tmp_path / "swe-fix"
    shutil.copytree(EXAMPLE, root)
    (root / ".git").mkdir()
    (root / ".env").write_text(f"SOME_TOKEN={ENV_SECRET}\n")
    (root / "agent.py").write_text(AGENT)
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(HOME_SECRET)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("NOT_PASSED", "kept-out")
    monkeypatch.setenv("PASSED_ON", "let-in")
    return root


def _target(sandbox: str, argv: list[str], extra: str = "") -> str:
    """A target running the agent script with ``argv`` (``AGENT`` stands for its path)."""
    command = json.dumps([sys.executable, "AGENT", *argv])
    return f"""
    provider: cli
    command: {command}
    sandbox: {sandbox}
    timeout_seconds: 60{extra}"""


def _eval(
    project: Path, out: Path, targets: dict[str, str]
) -> dict[tuple[str, str], dict[str, Any]]:
    """Run each target on the example's case; the rows by target and case."""
    script = json.dumps(str(project / "agent.py"))  # run from the case's workspace
    text = "targets:" + "".join(
        f"\n  - name: {name}" + body.replace('"AGENT"', script) for name, body in targets.items()
    )
    (project / ".evalwright" / "targets.yaml").write_text(text)
    names = [arg for name in targets for arg in ("--target", name)]
    result = run_cli("eval", project, "--out", out, *names)
    assert result.code in (0, 1), result.err
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    return {(row["target"], row["eval_id"]): row for row in rows}


def _refused(row: dict[str, Any]) -> str:
    assert row["status"] == "error", row["candidate_answer"]
    assert row["error"]["type"] == "target_error"
    message: str = row["error"]["message"]
    assert message.startswith("command exited with status 1; stderr: refused: "), message
    return message


def test_writes_outside_the_workspace_are_refused_and_inside_it_allowed(
    bwrap: str, project: Path, tmp_path: Path
) -> None:
    del bwrap
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    targets = {
        f"{action}-{sandbox}": _target(sandbox, [action, str(where)])
        for sandbox in ("none", "bwrap")
        for action, where in (("write-project", project), ("write-tmp", outside))
    }
    targets["fixer"] = _target("bwrap", ["fix", "."])
    rows = _eval(project, tmp_path / "out.jsonl", targets)

    for action in ("write-project", "write-tmp"):
        assert rows[f"{action}-none", "fix-add"]["error"] is None
    assert (project / "escaped.txt").read_text() == "out"  # unconfined, it could
    assert (outside / "outside.txt").read_text() == "out"
    (project / "escaped.txt").unlink()
    (outside / "outside.txt").unlink()

    project_row = rows["write-project-bwrap", "fix-add"]
    assert "Read-only file system" in _refused(project_row)
    # /tmp is the sandbox's own: a path of the host's /tmp is not there to write to.
    assert "No such file or directory" in _refused(rows["write-tmp-bwrap", "fix-add"])
    assert project_row["sandbox"] == {"type": "bwrap", "network": "none"}
    assert rows["write-project-none", "fix-add"]["sandbox"] == {"type": "none", "network": "none"}
    assert not (project / "escaped.txt").exists()
    assert not (outside / "outside.txt").exists()

    # The workspace is writable, and the workspace check runs (in the sandbox) there.
    fixed = rows["fixer", "fix-add"]
    assert (fixed["status"], fixed["score"]) == ("ok", 1.0), fixed["evaluator_results"]
    assert fixed["workspace"]["files"] == [{"path": "calc.py", "added": 1, "removed": 1}]


def test_the_hosts_secret_files_cannot_be_read(bwrap: str, project: Path, tmp_path: Path) -> None:
    del bwrap
    home = str(project / "home")
    targets = {
        f"{action}-{sandbox}": _target(sandbox, [action, where])
        for sandbox in ("none", "bwrap")
        for action, where in (("read-home", home), ("read-env", str(project)))
    }
    rows = _eval(project, tmp_path / "out.jsonl", targets)

    assert rows["read-home-none", "fix-add"]["candidate_answer"] == HOME_SECRET
    # Unconfined, the agent reads the file (the row redacts the value, as every secret).
    assert "SOME_TOKEN=" in rows["read-env-none", "fix-add"]["candidate_answer"]

    home_row = rows["read-home-bwrap", "fix-add"]
    assert "No such file or directory" in _refused(home_row)
    # The project's .env is covered by a device the sandbox cannot open.
    assert "Permission denied" in _refused(rows["read-env-bwrap", "fix-add"])
    assert HOME_SECRET not in json.dumps(home_row)
    assert ENV_SECRET not in (tmp_path / "out.jsonl").read_text()


def test_connections_are_refused_unless_the_network_is_allowed(
    bwrap: str, project: Path, tmp_path: Path, server: FakeServer
) -> None:
    del bwrap
    port = str(server.port)
    targets = {
        "connect-none": _target("none", ["connect", ".", port]),
        "connect-bwrap": _target("bwrap", ["connect", ".", port]),
        "connect-allowed": _target("{type: bwrap, network: allow}", ["connect", ".", port]),
    }
    rows = _eval(project, tmp_path / "out.jsonl", targets)

    assert rows["connect-none", "fix-add"]["candidate_answer"] == "connected"
    assert "Connection refused" in _refused(rows["connect-bwrap", "fix-add"])
    allowed = rows["connect-allowed", "fix-add"]
    assert allowed["candidate_answer"] == "connected"
    assert allowed["sandbox"] == {"type": "bwrap", "network": "allow"}


def test_the_environment_holds_only_what_is_passed(
    bwrap: str, project: Path, tmp_path: Path
) -> None:
    del bwrap
    passing = "\n    pass_env: [PASSED_ON]"
    targets = {
        f"environment-{sandbox}": _target(sandbox, ["environment", "."], passing)
        for sandbox in ("none", "bwrap")
    }
    # The sandbox's own pass_env, for an agent kind without one (Codex).
    letting = "{type: bwrap, pass_env: [NOT_PASSED]}"
    targets["environment-let-in"] = _target(letting, ["environment", "."])
    rows = _eval(project, tmp_path / "out.jsonl", targets)

    unconfined = rows["environment-none", "fix-add"]["candidate_answer"].split()
    assert {"NOT_PASSED", "PASSED_ON", "EVALWRIGHT_EVAL_ID"} <= set(unconfined)
    confined = rows["environment-bwrap", "fix-add"]["candidate_answer"].split()
    assert "NOT_PASSED" not in confined
    assert {"PASSED_ON", "EVALWRIGHT_EVAL_ID", "PATH", "HOME"} <= set(confined)
    let_in = rows["environment-let-in", "fix-add"]["candidate_answer"].split()
    assert "NOT_PASSED" in let_in
    assert "PASSED_ON" not in let_in


def test_a_workspace_check_runs_confined_too(bwrap: str, project: Path, tmp_path: Path) -> None:
    """The check tries to write to the project: unconfined it can (and passes), confined it
    is refused (and fails, its stderr in its result)."""
    del bwrap
    escape = f"open({str(project / 'checked.txt')!r}, 'w').write('out')"
    evals = project / "evals" / "fix.yaml"
    check = json.dumps(
        {"name": "escape", "type": "workspace_command", "command": [sys.executable, "-c", escape]}
    )
    evals.write_text(evals.read_text() + f"        - {check}\n")
    targets = {f"fix-{sandbox}": _target(sandbox, ["fix", "."]) for sandbox in ("none", "bwrap")}
    rows = _eval(project, tmp_path / "out.jsonl", targets)

    unconfined = rows["fix-none", "fix-add"]["evaluator_results"][-1]
    assert (unconfined["name"], unconfined["score"]) == ("escape", 1.0)
    (project / "checked.txt").unlink()
    confined = rows["fix-bwrap", "fix-add"]["evaluator_results"][-1]
    assert (confined["name"], confined["score"]) == ("escape", 0.0)
    assert "Read-only file system" in confined["output"]["stderr"]
    assert not (project / "checked.txt").exists()


def test_a_missing_bwrap_is_a_clear_validate_and_eval_error(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where ``bwrap`` is not on PATH: ``validate`` names the target's ``sandbox`` key,
    ``eval`` refuses to start; neither shows a traceback."""
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "python3").symlink_to(sys.executable)
    (project / ".evalwright" / "targets.yaml").write_text(
        "targets:\n  - name: fixer" + _target("bwrap", ["fix", "."]).replace("AGENT", "a.py")
    )
    monkeypatch.setenv("PATH", str(bare))
    expected = "sandbox: bwrap needs bubblewrap, and 'bwrap' is not on PATH"

    checked = run_cli("validate", project)
    assert checked.code != 0
    assert "targets.yaml:5:14: error: targets[0].sandbox" in checked.out
    assert expected in checked.out + checked.err

    ran = run_cli("eval", project, "--target", "fixer", "--out", tmp_path / "out.jsonl")
    assert ran.code == 2
    assert f"target 'fixer': {expected}" in ran.err
    assert "Traceback" not in ran.err
