"""A case's workspace through the run (docs/agents.md#workspaces): made before its agent is
asked, its change read once the agent is done (before any check runs in it), then kept
when the case failed and removed otherwise, its row saying which."""

from __future__ import annotations

import functools
from pathlib import Path

from evalwright.evalfile.resolved import LoadedCase
from evalwright.providers.registry import TargetRegistry
from evalwright.providers.sandbox import Confinement
from evalwright.providers.workspace import CaseWorkspace, create, sweep_left_behind
from evalwright.providers.workspace_diff import Change, changes
from evalwright.results.parts import ChangedFile, SandboxRecord, WorkspaceRecord
from evalwright.results.row import ResultRow
from evalwright.results.verdict import row_passed
from evalwright.targets.base import AgentTargetBase
from evalwright.targets.workspace import ResolvedWorkspace

PREVIEW_WORKSPACE = "<workspace>"
"""Where ``prompt --target`` shows a case's workspace, which exists only when it runs."""


def wanted(case: LoadedCase, target: str, registry: TargetRegistry) -> ResolvedWorkspace | None:
    """The workspace an agent target answers ``case`` in: the case's (or its file's), else
    the target's own, its path relative to the project root. A chat target needs none."""
    spec = registry.target(target)
    if not isinstance(spec, AgentTargetBase):
        return None
    if case.workspace is not None:
        return case.workspace
    if spec.workspace is None:
        return None
    root = registry.project.root
    return ResolvedWorkspace(spec.workspace, str((root / spec.workspace.source).absolute()))


async def open_workspace(
    case: LoadedCase, target: str, registry: TargetRegistry
) -> CaseWorkspace | None:
    """A new workspace for ``case`` on ``target``, or ``None`` when it has none
    (:class:`~evalwright.errors.WorkspaceError` when it cannot be made)."""
    resolved = wanted(case, target, registry)
    if resolved is None:
        return None
    _sweep_once()
    env = registry.child_env.build()
    return await create(resolved, registry.project.root, env)


@functools.cache
def _sweep_once() -> None:
    # Once a process: what a killed run left behind goes before more workspaces are made.
    sweep_left_behind()


async def agent_change(workspace: CaseWorkspace, registry: TargetRegistry) -> Change:
    """What the agent changed (:class:`~evalwright.errors.WorkspaceError` when git fails)."""
    return await changes(workspace.path, workspace.baseline, registry.child_env.build())


def settle(row: ResultRow, workspace: CaseWorkspace | None, change: Change | None) -> ResultRow:
    """``row`` with its workspace: kept when the case failed (an error, or a row that did not
    pass, docs/eval-files.md#pass-rules), else removed."""
    if workspace is None:
        return row
    failed = not row_passed(row)
    if failed:
        workspace.keep()
    else:
        workspace.remove()
    files = (
        None
        if change is None
        else tuple(ChangedFile(path=f.path, added=f.added, removed=f.removed) for f in change.files)
    )
    record = WorkspaceRecord(
        path=str(workspace.path),
        kept=failed,
        files=files,
        diff=None if change is None else change.diff,
    )
    return row.model_copy(update={"workspace": record})


def workspace_path(workspace: CaseWorkspace | None) -> str | None:
    """The directory an agent runs in, as a request carries it."""
    return None if workspace is None else str(Path(workspace.path))


def sandbox(target: str, registry: TargetRegistry) -> Confinement | None:
    """The sandbox of ``target``'s agent, where its cases' workspace checks run too
    (docs/agents.md#sandboxes)."""
    return registry.sandbox(registry.target(target))


def with_sandbox(row: ResultRow, target: str, registry: TargetRegistry) -> ResultRow:
    """``row`` naming the sandbox its agent ran in, when its target names one (``none``
    included): what confined it is part of what the row proves."""
    spec = registry.target(target)
    if not isinstance(spec, AgentTargetBase) or spec.sandbox is None:
        return row
    record = SandboxRecord(type=spec.sandbox.type, network=spec.sandbox.network)
    return row.model_copy(update={"sandbox": record})
