"""Each agent case's own workspace (docs/agents.md#workspaces): a fresh temporary directory
holding a copy of a directory or a clone of a local git repository at a commit, set up by
the case's ``setup`` commands; its starting state recorded so the agent's change can be
shown and checked afterwards (:mod:`evalwright.providers.workspace_diff`).

The user's own files are only ever read: a ``git:`` source is cloned (never given a
worktree, so its worktree list stays as it was) and the clone forgets where it came from.
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evalwright.errors import WorkspaceError
from evalwright.providers.process import run_command
from evalwright.providers.workspace_diff import git, record_start
from evalwright.targets.workspace import ResolvedWorkspace

SETUP_SECONDS = 600.0
"""How long one setup command (or one git step) may take."""
WORK = "work"
BASELINE = "baseline.git"


@dataclass(frozen=True, slots=True)
class CaseWorkspace:
    """A case's workspace: ``path`` is where the agent runs; ``root`` also holds the git
    directory recording the starting state (out of the agent's sight)."""

    root: Path

    @property
    def path(self) -> Path:
        """The directory the agent and the workspace checks run in."""
        return self.root / WORK

    @property
    def baseline(self) -> Path:
        """The git directory whose one commit is the starting state."""
        return self.root / BASELINE

    def remove(self) -> None:
        """Delete the workspace and its record of the start."""
        shutil.rmtree(self.root, ignore_errors=True)

    def keep(self) -> None:
        """Hand the workspace to the user: no later run may sweep it as left behind."""
        (self.root / OWNER).unlink(missing_ok=True)


PREFIX = "evalwright-workspace-"
OWNER = "owner"
"""The file in a workspace's root naming the run that owns it, until it is kept or removed."""


def _owner_text() -> str:
    return f"{_machine()} {os.getpid()}"


@functools.cache
def _machine() -> str:
    # The host and boot tell a process id of this machine's current boot from another's.
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot = "-"
    return f"{socket.gethostname()} {boot}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def sweep_left_behind(directory: Path | None = None) -> list[Path]:
    """Remove the workspaces a killed run left in ``directory`` (the temporary directory):
    those still owned by a process of this machine and boot that no longer runs. A kept
    workspace (a failed case's) has no owner and stays (docs/agents.md#workspaces)."""
    here = _machine()
    removed: list[Path] = []
    for root in (directory or Path(tempfile.gettempdir())).glob(f"{PREFIX}*"):
        try:
            host, boot, pid = (root / OWNER).read_text().rsplit(" ", 2)
        except (OSError, ValueError):
            continue
        if f"{host} {boot}" == here and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(root, ignore_errors=True)
            removed.append(root)
    return removed


async def create(
    resolved: ResolvedWorkspace, project_root: Path, env: Mapping[str, str]
) -> CaseWorkspace:
    """A new workspace made from ``resolved``, set up and its start recorded; removed again
    when any step fails (:class:`WorkspaceError`)."""
    source = Path(resolved.source)
    refuse_source(source, project_root)
    workspace = CaseWorkspace(Path(tempfile.mkdtemp(prefix=PREFIX)))
    try:
        (workspace.root / OWNER).write_text(_owner_text())
        if resolved.spec.kind == "copy":
            copy_tree(source, workspace.path, include_git=resolved.spec.include_git)
        else:
            await _clone(source, resolved.spec.commit or "HEAD", workspace.path, env)
        await _setup(resolved.spec.setup, workspace.path, env)
        await record_start(workspace.path, workspace.baseline, env)
    except BaseException:
        workspace.remove()
        raise
    return workspace


def refuse_source(source: Path, project_root: Path) -> None:
    """Refuse ``/`` and every directory above the project root as a source: a copy of it
    would hold the user's whole home, or the whole machine."""
    real, root = source.resolve(), project_root.resolve()
    if real == Path(real.anchor) or real in root.parents:
        raise WorkspaceError(
            f"workspace source {source} is refused: it is / or a directory above the project root"
        )
    if not real.is_dir():
        raise WorkspaceError(f"workspace source {source} is not a directory")


def copy_tree(source: Path, target: Path, *, include_git: bool) -> None:
    """Copy ``source`` to ``target`` without following a symbolic link: a link within the
    tree is copied as a relative link, one leading out of it is refused (the agent could
    write through it), and so is anything but files, directories and links."""
    real = source.resolve()
    for top, dirs, files in os.walk(real, followlinks=False):
        here = Path(top)
        dest = target / here.relative_to(real)
        dest.mkdir(parents=True, exist_ok=True)
        if not include_git:
            dirs[:] = [d for d in dirs if d != ".git"]
        names = [*dirs, *(f for f in files if include_git or f != ".git")]
        for name in names:
            path = here / name
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                _copy_link(path, real, dest / name)
            elif stat.S_ISREG(info.st_mode):
                shutil.copy2(path, dest / name, follow_symlinks=False)
            elif not stat.S_ISDIR(info.st_mode):
                raise WorkspaceError(f"workspace source holds {path}, neither file nor directory")
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]


def _copy_link(link: Path, tree: Path, dest: Path) -> None:
    pointed = Path(os.path.normpath(link.parent / os.readlink(link)))
    if pointed != tree and tree not in pointed.parents:
        raise WorkspaceError(
            f"workspace source holds a symbolic link leading out of it: {link} -> "
            f"{os.readlink(link)}"
        )
    os.symlink(os.path.relpath(pointed, link.parent), dest)


async def _clone(repository: Path, commit: str, target: Path, env: Mapping[str, str]) -> None:
    """Clone ``repository`` and check out ``commit`` detached; the clone has no remote, so
    nothing the agent does can reach the user's repository."""
    found = await git(
        ["-C", str(repository), "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
        env,
        f"workspace: no commit {commit!r} in {repository}",
    )
    sha = found.stdout.decode().strip()
    what = f"workspace: cannot clone {repository}"
    await git(["clone", "--quiet", "--no-checkout", "--", str(repository), str(target)], env, what)
    await git(["-C", str(target), "checkout", "--quiet", "--detach", sha], env, what)
    await git(["-C", str(target), "remote", "remove", "origin"], env, what)


async def _setup(commands: Sequence[Sequence[str]], cwd: Path, env: Mapping[str, str]) -> None:
    for number, argv in enumerate(commands, 1):
        where = f"workspace setup command {number} {list(argv)}"
        try:
            finished = await run_command(
                argv,
                cwd=str(cwd),
                env={**env, "EVALWRIGHT_WORKSPACE": str(cwd)},
                timeout=SETUP_SECONDS,
            )
        except OSError as exc:
            raise WorkspaceError(f"{where} cannot run: {exc.strerror or exc}") from None
        if finished.timed_out or finished.returncode != 0:
            ended = (
                f"timed out after {SETUP_SECONDS:g} s"
                if finished.timed_out
                else f"exited with status {finished.returncode}"
            )
            tail = finished.stderr_tail()
            raise WorkspaceError(f"{where} {ended}" + (f"; stderr: {tail}" if tail else ""))
