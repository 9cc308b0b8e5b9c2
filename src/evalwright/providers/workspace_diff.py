"""What an agent changed in its workspace (docs/agents.md#the-change): the starting state is
committed to a git directory kept beside the workspace (the agent never sees it), and the
change is ``git diff`` against that commit: each file's lines added and removed, and the
unified diff, redacted and capped, binary files named rather than shown.

Files the workspace's own ``.gitignore`` ignores are not part of the change."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evalwright.errors import WorkspaceError
from evalwright.providers.process import Finished, run_command
from evalwright.providers.vscode.workspace import DONE_FILE, LOCK_FILE, REQUEST_FILE, RESPONSE_FILE
from evalwright.redact import clip

GIT_SECONDS = 600.0
DIFF_LIMIT = 64 * 1024
"""Characters of the unified diff a row keeps (the start)."""
# VS Code's request and answer files are the protocol's, not the agent's work.
_NOT_THE_AGENTS = (REQUEST_FILE, RESPONSE_FILE, DONE_FILE, LOCK_FILE)


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file changed: lines added and removed (``None`` for a binary file)."""

    path: str
    added: int | None
    removed: int | None


@dataclass(frozen=True, slots=True)
class Change:
    """The agent's change to its workspace: each file changed, in path order, and the
    unified diff (redacted, at most :data:`DIFF_LIMIT` characters, a cut marked)."""

    files: tuple[FileChange, ...]
    diff: str

    def summary(self) -> str:
        """``N file(s) changed, +A -R``."""
        added = sum(f.added or 0 for f in self.files)
        removed = sum(f.removed or 0 for f in self.files)
        return f"{len(self.files)} file(s) changed, +{added} -{removed}"


def git_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for evalwright's own git commands: none of the user's git configuration
    (hooks, excludes, diff drivers) and no ``GIT_*`` variable pointing elsewhere."""
    clean = {k: v for k, v in env.items() if not k.startswith("GIT_")}
    clean.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0")
    return clean


async def git(args: Sequence[str], env: Mapping[str, str], what: str) -> Finished:
    """Run ``git ARGS``; a failure is a :class:`WorkspaceError` saying ``what`` failed."""
    argv = ["git", "-c", "user.name=evalwright", "-c", "user.email=evalwright@localhost", *args]
    try:
        finished = await run_command(argv, env=git_env(env), timeout=GIT_SECONDS)
    except OSError as exc:
        raise WorkspaceError(f"{what}: cannot run git: {exc.strerror or exc}") from None
    if finished.timed_out or finished.returncode != 0:
        ended = "timed out" if finished.timed_out else f"git exited {finished.returncode}"
        raise WorkspaceError(f"{what} ({ended}): {finished.stderr_tail(1000)}")
    return finished


def _at(work: Path, baseline: Path) -> list[str]:
    return [f"--git-dir={baseline}", f"--work-tree={work}"]


async def record_start(work: Path, baseline: Path, env: Mapping[str, str]) -> None:
    """Commit ``work`` as it is now to the git directory ``baseline``."""
    what = "workspace: cannot record its starting state"
    at = _at(work, baseline)
    await git([*at, "init", "--quiet"], env, what)
    with open(baseline / "info" / "exclude", "a", encoding="utf-8") as exclude:
        exclude.write("".join(f"/{name}\n" for name in _NOT_THE_AGENTS))
    await git([*at, "add", "--all"], env, what)
    await git([*at, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", "start"], env, what)


async def changes(work: Path, baseline: Path, env: Mapping[str, str]) -> Change:
    """The change since :func:`record_start`."""
    what = "workspace: cannot compute the agent's change"
    at = _at(work, baseline)
    await git([*at, "add", "--all"], env, what)
    plain = ["diff", "--cached", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv"]
    with tempfile.TemporaryDirectory(prefix="evalwright-diff-") as scratch:
        counts, text = Path(scratch, "numstat"), Path(scratch, "diff")
        await git([*at, *plain, "--numstat", "-z", f"--output={counts}", "HEAD"], env, what)
        await git([*at, *plain, f"--output={text}", "HEAD"], env, what)
        files = _numstat(counts.read_bytes())
        with open(text, "rb") as diff:
            head = diff.read(DIFF_LIMIT * 4 + 1)
        size = text.stat().st_size
    shown = head.decode("utf-8", errors="replace")
    marker = f"\n[diff cut: {size} bytes in all]\n"
    clipped = clip(shown, DIFF_LIMIT, marker=marker)
    if size > len(head) and not clipped.endswith(marker):  # cut by the read alone
        clipped += marker
    return Change(files, clipped)


def _numstat(data: bytes) -> tuple[FileChange, ...]:
    """``git diff --numstat -z`` records: ``ADDED\\tREMOVED\\tPATH\\0``, ``-`` for binary."""
    files: list[FileChange] = []
    for record in data.split(b"\0"):
        if not record:
            continue
        added, removed, path = record.decode("utf-8", errors="surrogateescape").split("\t", 2)
        files.append(
            FileChange(
                path,
                None if added == "-" else int(added),
                None if removed == "-" else int(removed),
            )
        )
    return tuple(sorted(files, key=lambda f: f.path))
