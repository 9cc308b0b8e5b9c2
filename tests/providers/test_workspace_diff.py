"""The agent's change to its workspace (docs/agents.md#the-change): counted per file against
the starting state recorded beside the workspace, binary files named, ignored files left
out, the unified diff capped and redacted."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from evalwright.providers.workspace import CaseWorkspace, create
from evalwright.providers.workspace_diff import DIFF_LIMIT, Change, FileChange, changes
from evalwright.redact import Redactor, redacting
from evalwright.targets.workspace import ResolvedWorkspace, WorkspaceSpec

ENV = dict(os.environ)


def _workspace(tmp_path: Path, files: dict[str, str]) -> CaseWorkspace:
    source = tmp_path / "repo"
    for name, text in files.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text)
    source.mkdir(exist_ok=True)
    spec = WorkspaceSpec.model_validate({"copy": str(source)})
    return asyncio.run(create(ResolvedWorkspace(spec, str(source)), tmp_path, ENV))


def _change(workspace: CaseWorkspace) -> Change:
    return asyncio.run(changes(workspace.path, workspace.baseline, ENV))


def test_each_file_changed_is_counted_binary_ones_named(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, {"a.py": "one\ntwo\n", "gone.txt": "bye\n", "keep": "k\n"})
    try:
        assert _change(workspace) == Change((), "")  # nothing done, nothing changed
        (workspace.path / "a.py").write_text("one\n2\nthree\n")
        (workspace.path / "gone.txt").unlink()
        (workspace.path / "new" / "blob.bin").parent.mkdir()
        (workspace.path / "new" / "blob.bin").write_bytes(b"\x00\xff\x00binary")
        change = _change(workspace)
    finally:
        workspace.remove()
    assert change.files == (
        FileChange("a.py", 2, 1),
        FileChange("gone.txt", 0, 1),
        FileChange("new/blob.bin", None, None),
    )
    assert change.summary() == "3 file(s) changed, +2 -2"
    assert "-two\n+2\n+three\n" in change.diff
    assert "Binary files /dev/null and b/new/blob.bin differ" in change.diff
    assert "deleted file mode" in change.diff


def test_the_workspaces_gitignore_and_its_own_git_directory_are_not_the_change(
    tmp_path: Path,
) -> None:
    workspace = _workspace(tmp_path, {".gitignore": "build/\n", "a": "a\n"})
    try:
        (workspace.path / "build").mkdir()
        (workspace.path / "build" / "out.o").write_text("object")
        (workspace.path / ".git").mkdir()  # the agent ran `git init`
        (workspace.path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (workspace.path / "evalwright-response.md").write_text("VS Code's answer file")
        assert _change(workspace).files == ()
    finally:
        workspace.remove()


def test_a_long_diff_keeps_its_start_and_says_it_was_cut(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, {"big.txt": ""})
    try:
        (workspace.path / "big.txt").write_text("".join(f"line {n}\n" for n in range(40_000)))
        change = _change(workspace)
    finally:
        workspace.remove()
    assert change.files == (FileChange("big.txt", 40_000, 0),)
    assert change.diff.startswith("diff --git a/big.txt b/big.txt\n")
    assert "+line 0\n+line 1\n" in change.diff
    assert len(change.diff) < DIFF_LIMIT + 100
    assert change.diff.endswith(" bytes in all]\n")


def test_a_secret_the_agent_wrote_is_redacted_in_the_diff(tmp_path: Path) -> None:
    secret = "sk-test-" + "Q7x9" * 8
    workspace = _workspace(tmp_path, {"config.py": "KEY = None\n"})
    try:
        (workspace.path / "config.py").write_text(f"KEY = '{secret}'\n")
        with redacting(Redactor([secret])):
            change = _change(workspace)
    finally:
        workspace.remove()
    assert secret not in change.diff
    assert "+KEY = '" in change.diff
