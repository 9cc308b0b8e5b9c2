"""A case's workspace (docs/agents.md#workspaces), made from real directories and real git
repositories: a copy never follows a link out of its source and leaves ``.git`` out, a
clone never touches its source, ``/`` and the directories above the project are refused,
and a failing setup command says which it was."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from evalwright.errors import WorkspaceError
from evalwright.providers.workspace import CaseWorkspace, create
from evalwright.targets.workspace import ResolvedWorkspace, WorkspaceSpec

ENV = dict(os.environ)


def _make(source: Path, root: Path, **spec: object) -> CaseWorkspace:
    key = "git" if "git" in spec else "copy"
    spec.setdefault(key, str(source))
    resolved = ResolvedWorkspace(WorkspaceSpec.model_validate(spec), str(source))
    return asyncio.run(create(resolved, root, ENV))


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_a_copy_keeps_files_and_links_inside_and_leaves_git_out(tmp_path: Path) -> None:
    source = tmp_path / "project" / "repo"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "mod.py").write_text("x = 1\n")
    (source / ".git").mkdir()
    (source / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    os.symlink("pkg/mod.py", source / "relative")
    os.symlink(source / "pkg", source / "absolute")  # inside the tree, written absolute
    workspace = _make(source, tmp_path / "project")
    try:
        assert (workspace.path / "pkg" / "mod.py").read_text() == "x = 1\n"
        assert not (workspace.path / ".git").exists()
        assert os.readlink(workspace.path / "relative") == "pkg/mod.py"
        # Made relative, so it leads into the copy, never back to the user's files.
        assert os.readlink(workspace.path / "absolute") == "pkg"
        assert (workspace.path / "absolute" / "mod.py").resolve().is_relative_to(workspace.root)
    finally:
        workspace.remove()
    assert not workspace.root.exists()


def test_include_git_copies_it(tmp_path: Path) -> None:
    source = tmp_path / "repo"
    (source / ".git").mkdir(parents=True)
    (source / ".git" / "HEAD").write_text("ref\n")
    workspace = _make(source, tmp_path, include_git=True)
    try:
        assert (workspace.path / ".git" / "HEAD").read_text() == "ref\n"
    finally:
        workspace.remove()


def test_a_link_leading_out_of_the_source_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "repo"
    source.mkdir()
    (tmp_path / "secret.txt").write_text("mine")
    os.symlink("../secret.txt", source / "escape")
    before = {Path(p) for p in _temp_workspaces()}
    with pytest.raises(WorkspaceError, match=r"symbolic link leading out of it: .*escape"):
        _make(source, tmp_path)
    # The half-made workspace is gone.
    assert {Path(p) for p in _temp_workspaces()} == before


def _temp_workspaces() -> list[str]:
    base = Path(tempfile.gettempdir())
    return [str(p) for p in base.glob("evalwright-workspace-*")]


@pytest.mark.parametrize("which", ["/", "parent", "grandparent"])
def test_the_root_and_the_directories_above_the_project_are_refused(
    tmp_path: Path, which: str
) -> None:
    root = tmp_path / "a" / "project"
    root.mkdir(parents=True)
    source = {"/": Path("/"), "parent": root.parent, "grandparent": tmp_path}[which]
    with pytest.raises(WorkspaceError, match="is refused"):
        _make(source, root)


def test_a_git_workspace_is_a_clone_at_the_commit_and_the_source_is_untouched(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "f.txt").write_text("one\n")
    _git(repo, "add", "f.txt")
    _git(repo, "commit", "-q", "-m", "one")
    first = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "f.txt").write_text("two\n")
    _git(repo, "commit", "-q", "-am", "two")
    (repo / "f.txt").write_text("uncommitted\n")  # the user's work in progress
    state = [_git(repo, *a) for a in (["rev-parse", "HEAD"], ["status", "--porcelain"])]
    worktrees = _git(repo, "worktree", "list", "--porcelain")
    index = (repo / ".git" / "index").read_bytes()

    workspace = _make(repo, tmp_path, git=str(repo), commit="HEAD~1")
    try:
        assert (workspace.path / "f.txt").read_text() == "one\n"
        assert _git(workspace.path, "rev-parse", "HEAD").strip() == first
        assert _git(workspace.path, "remote").strip() == ""  # nothing to push to
    finally:
        workspace.remove()
    assert [_git(repo, *a) for a in (["rev-parse", "HEAD"], ["status", "--porcelain"])] == state
    assert _git(repo, "worktree", "list", "--porcelain") == worktrees
    assert (repo / ".git" / "index").read_bytes() == index
    assert (repo / "f.txt").read_text() == "uncommitted\n"


def test_an_unknown_commit_is_an_error_naming_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "f").write_text("x")
    _git(repo, "add", "f")
    _git(repo, "commit", "-q", "-m", "x")
    with pytest.raises(WorkspaceError, match="no commit 'nope' in"):
        _make(repo, tmp_path, git=str(repo), commit="nope")


def test_setup_runs_in_order_in_the_workspace(tmp_path: Path) -> None:
    source = tmp_path / "repo"
    source.mkdir()
    append = "import os, sys; open('log', 'a').write(sys.argv[1] + ' ' + os.getcwd() + '\\n')"
    setup = [[sys.executable, "-c", append, "first"], [sys.executable, "-c", append, "second"]]
    workspace = _make(source, tmp_path, setup=setup)
    try:
        lines = (workspace.path / "log").read_text().splitlines()
        here = str(workspace.path.resolve())
        assert lines == [f"first {here}", f"second {here}"]
    finally:
        workspace.remove()


def test_a_failing_setup_command_is_named_with_the_end_of_its_stderr(tmp_path: Path) -> None:
    source = tmp_path / "repo"
    source.mkdir()
    fail = "import sys; sys.stderr.write('x' * 5000 + 'no such package: leftpad'); sys.exit(3)"
    setup = [["true"], [sys.executable, "-c", fail]]
    with pytest.raises(WorkspaceError) as caught:
        _make(source, tmp_path, setup=setup)
    message = str(caught.value)
    assert message.startswith(f"workspace setup command 2 [{sys.executable!r}, '-c',")
    assert "exited with status 3; stderr: " in message
    assert message.endswith("no such package: leftpad")
    assert caught.value.error_type == "workspace_error"
