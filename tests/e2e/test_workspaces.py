"""Agents in workspaces, end to end (docs/agents.md#workspaces): the swe-fix example run as a
user would, with real subprocesses and real files. The fixing agent passes and the breaking
one fails with the file named; the user's project is byte-for-byte untouched; a failed
case's workspace is kept and named in its row, a passed one's removed; concurrent cases get
their own; a failing setup is an error row; a ``git:`` workspace leaves its repository as
it was."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli

EXAMPLE = REPO / "examples" / "agents" / "swe-fix"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The swe-fix example as a project of its own; ``python`` is this interpreter (it has
    pytest)."""
    root = tmp_path / "swe-fix"
    shutil.copytree(EXAMPLE, root)
    (root / ".git").mkdir()
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return root


def _hashes(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() or path.is_symlink()
    }


def _rows(out: Path) -> dict[tuple[str, str], dict[str, Any]]:
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    return {(row["target"], row["eval_id"]): row for row in rows}


def _eval(project: Path, out: Path, *args: str) -> dict[tuple[str, str], dict[str, Any]]:
    result = run_cli("eval", project, "--out", out, *args)
    assert result.code in (0, 1), result.err
    return _rows(out)


def test_the_fixing_agent_passes_and_the_breaking_one_fails_naming_the_file(
    project: Path, tmp_path: Path
) -> None:
    before = _hashes(project)
    rows = _eval(project, tmp_path / "out.jsonl", "--target", "fixer", "--target", "breaker")
    fixed, broken = rows["fixer", "fix-add"], rows["breaker", "fix-add"]

    assert (fixed["status"], fixed["score"]) == ("ok", 1.0)
    tests, scope = fixed["evaluator_results"]
    assert tests["output"]["exit_code"] == 0
    assert "2 passed" in tests["output"]["stdout"]
    assert scope["hits"] == ["calc.py (+1 -1)"]
    assert fixed["workspace"]["files"] == [{"path": "calc.py", "added": 1, "removed": 1}]
    assert "-    return a - b\n+    return a + b\n" in fixed["workspace"]["diff"]
    assert fixed["workspace"]["kept"] is False
    assert not Path(fixed["workspace"]["path"]).exists()
    assert fixed["wire_request"]["cwd"] == fixed["workspace"]["path"]

    assert (broken["status"], broken["score"]) == ("ok", 0.0)
    tests, scope = broken["evaluator_results"]
    assert tests["score"] == 0.0
    assert "2 failed" in tests["output"]["stdout"]
    assert scope["misses"] == ["units.py (+1 -1) is outside allowed_paths"]
    kept = Path(broken["workspace"]["path"])
    assert broken["workspace"]["kept"] is True
    # The kept workspace is the agent's work, as it left it, for the user to look at.
    assert "km * 100\n" in (kept / "units.py").read_text()
    shutil.rmtree(kept.parent)

    assert _hashes(project) == before  # the user's files were never the agent's


def test_concurrent_cases_each_get_their_own_workspace(project: Path, tmp_path: Path) -> None:
    """Each agent waits until the other has started, so both run at once, then both write
    the same file name: neither sees the other's."""
    meeting = tmp_path / "meeting"
    meeting.mkdir()
    agent = f"""
import os, pathlib, sys, time
meeting = pathlib.Path({str(meeting)!r})
(meeting / os.environ["EVALWRIGHT_EVAL_ID"]).write_text(os.getcwd())
for _ in range(3000):  # until both are running
    if len(list(meeting.iterdir())) == 2:
        break
    time.sleep(0.01)
else:
    sys.exit("the other case never started")
mine = pathlib.Path("who.txt")
assert not mine.exists(), "another case's file is here"
mine.write_text(os.environ["EVALWRIGHT_EVAL_ID"])
print(sys.argv[1])
"""
    targets = project / ".evalwright" / "targets.yaml"
    targets.write_text(
        targets.read_text()
        + f"""
  - name: pair
    provider: cli
    workers: 2
    command: [{json.dumps(sys.executable)}, -c, {json.dumps(agent)}, "{{WORKSPACE}}"]
"""
    )
    evals = project / "evals" / "fix.yaml"
    case = evals.read_text().split("evalcases:\n")[1]
    evals.write_text(evals.read_text() + case.replace("id: fix-add", "id: fix-again"))
    rows = _eval(project, tmp_path / "out.jsonl", "--target", "pair")
    first, second = rows["pair", "fix-add"], rows["pair", "fix-again"]
    assert first["error"] is None, first["error"]
    assert second["error"] is None, second["error"]
    # {WORKSPACE} is the directory the agent ran in, each case's its own.
    assert first["candidate_answer"] == first["workspace"]["path"]
    assert second["candidate_answer"] == second["workspace"]["path"]
    assert first["workspace"]["path"] != second["workspace"]["path"]
    assert sorted(p.read_text() for p in meeting.iterdir()) == sorted(
        [first["workspace"]["path"], second["workspace"]["path"]]
    )
    assert [f["path"] for f in first["workspace"]["files"]] == ["who.txt"]
    for row in (first, second):  # the tests still fail: the agent fixed nothing
        shutil.rmtree(Path(row["workspace"]["path"]).parent)


def test_a_failing_setup_command_is_an_error_row_naming_it(project: Path, tmp_path: Path) -> None:
    evals = project / "evals" / "fix.yaml"
    fail = "import sys; sys.stderr.write('cannot install leftpad'); sys.exit(2)"
    setup = json.dumps([["true"], [sys.executable, "-c", fail]])
    evals.write_text(
        evals.read_text().replace(
            "workspace: {copy: ../repo}", f"workspace: {{copy: ../repo, setup: {setup}}}"
        )
    )
    rows = _eval(project, tmp_path / "out.jsonl", "--target", "fixer")
    row = rows["fixer", "fix-add"]
    assert row["status"] == "error"
    assert row["error"]["type"] == "workspace_error"
    message = row["error"]["message"]
    assert message.startswith("workspace setup command 2 [")
    assert message.endswith("exited with status 2; stderr: cannot install leftpad")
    assert "workspace" not in row  # none was left behind


def _git(repo: Path, *args: str) -> str:
    command = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def test_a_git_workspace_at_a_commit_leaves_the_repository_as_it_was(
    project: Path, tmp_path: Path
) -> None:
    """The repository's second commit fixed the bug; the case starts at the first, so the
    fixer has the bug to fix. The user's checkout, index and worktrees are as before."""
    repo = project / "repo"
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "buggy")
    calc = repo / "calc.py"
    calc.write_text(calc.read_text().replace("a - b", "a + b"))
    _git(repo, "commit", "-q", "-am", "fixed")
    calc.write_text(calc.read_text() + "# work in progress\n")
    state = {
        "head": _git(repo, "rev-parse", "HEAD"),
        "status": _git(repo, "status", "--porcelain"),
        "worktrees": _git(repo, "worktree", "list", "--porcelain"),
        "index": (repo / ".git" / "index").read_bytes(),
    }
    before = _hashes(project)
    evals = project / "evals" / "fix.yaml"
    evals.write_text(
        evals.read_text().replace(
            "workspace: {copy: ../repo}", "workspace: {git: ../repo, commit: HEAD~1}"
        )
    )
    rows = _eval(project, tmp_path / "out.jsonl", "--target", "fixer", "--target", "breaker")
    assert rows["fixer", "fix-add"]["score"] == 1.0
    assert rows["fixer", "fix-add"]["workspace"]["files"] == [
        {"path": "calc.py", "added": 1, "removed": 1}
    ]
    kept = Path(rows["breaker", "fix-add"]["workspace"]["path"])
    assert _git(kept, "log", "--format=%s").split() == ["buggy"]
    shutil.rmtree(kept.parent)
    assert {
        "head": _git(repo, "rev-parse", "HEAD"),
        "status": _git(repo, "status", "--porcelain"),
        "worktrees": _git(repo, "worktree", "list", "--porcelain"),
        "index": (repo / ".git" / "index").read_bytes(),
    } == state
    after = _hashes(project)
    assert {k: v for k, v in after.items() if k != "evals/fix.yaml"} == {
        k: v for k, v in before.items() if k != "evals/fix.yaml"
    }


def test_every_turn_of_a_live_conversation_works_in_the_same_workspace(
    project: Path, tmp_path: Path
) -> None:
    agent = (
        "import pathlib; notes = pathlib.Path('notes.txt'); "
        "notes.write_text((notes.read_text() if notes.exists() else '') + 'turn\\n'); "
        "print(len(notes.read_text().splitlines()))"
    )
    targets = project / ".evalwright" / "targets.yaml"
    targets.write_text(
        targets.read_text() + f"\n  - name: noter\n    provider: cli\n"
        f"    command: [{json.dumps(sys.executable)}, -c, {json.dumps(agent)}]\n"
    )
    (project / "evals" / "talk.yaml").write_text(
        """workspace: {copy: ../repo}
evalcases:
  - id: talk
    expected_outcome: Takes notes.
    turns: [first, second]
    execution:
      evaluators:
        - {name: notes, type: file_contains, path: notes.txt, value: "turn\\nturn\\n"}
"""
    )
    result = run_cli(
        "eval", project / "evals" / "talk.yaml", "--target", "noter", "--out", tmp_path / "o.jsonl"
    )
    assert result.code == 0, result.err
    row = _rows(tmp_path / "o.jsonl")["noter", "talk"]
    assert [turn["reply"] for turn in row["turns"]] == ["1", "2"]
    assert row["score"] == 1.0
    assert row["workspace"]["files"] == [{"path": "notes.txt", "added": 2, "removed": 0}]
    assert not Path(row["workspace"]["path"]).exists()


def test_prompt_shows_the_workspace_by_role_and_makes_none(project: Path) -> None:
    result = run_cli("prompt", project / "evals" / "fix.yaml", "--target", "fixer", "--json")
    assert result.code == 0, result.err
    assert result.json()["wire_request"]["cwd"] == "<workspace>"


def _run_apart(project: Path, *args: str | Path) -> subprocess.Popen[str]:
    # A process of its own (and a session, to kill it with its agent): the sweep of what
    # killed runs left happens once a process, so an in-process run may have done it already.
    return subprocess.Popen(
        [sys.executable, "-m", "evalwright", "eval", str(project), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def test_a_killed_runs_workspace_is_swept_by_the_next_run_a_kept_one_stays(
    project: Path, tmp_path: Path
) -> None:
    started = tmp_path / "started"
    agent = f"import os, pathlib, time\npathlib.Path({str(started)!r}).write_text(os.getcwd())\n"
    targets = project / ".evalwright" / "targets.yaml"
    targets.write_text(
        targets.read_text()
        + f"""
  - name: sleeper
    provider: cli
    command: [{json.dumps(sys.executable)}, -c, {json.dumps(agent + "time.sleep(300)")}]
"""
    )
    rows = _eval(project, tmp_path / "failed.jsonl", "--target", "breaker")
    kept = Path(rows["breaker", "fix-add"]["workspace"]["path"]).parent
    assert kept.exists()

    killed = _run_apart(project, "--target", "sleeper", "--out", tmp_path / "killed.jsonl")
    for _ in range(3000):
        if started.exists() or killed.poll() is not None:
            break
        subprocess.run(["sleep", "0.02"], check=True)
    assert started.exists(), killed.communicate()
    left = Path(started.read_text()).parent
    os.killpg(killed.pid, 9)
    killed.communicate()
    assert left.exists()  # a SIGKILL leaves no chance to clean up

    after = _run_apart(project, "--target", "fixer", "--out", tmp_path / "after.jsonl")
    out, err = after.communicate(timeout=120)

    assert after.returncode == 0, out + err
    assert not left.exists(), "the killed run's workspace was left behind"
    assert kept.exists(), "a failed case's kept workspace is the user's"
    shutil.rmtree(kept)
