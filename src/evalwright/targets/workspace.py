"""``workspace:``, the directory an agent's case runs in (docs/agents.md#workspaces): a copy
of a directory, or a local git repository checked out at a commit, plus setup commands.

Written on a target, an eval file or a case; the case's wins over the file's, the file's over
the target's. A plain string is the directory to copy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, model_validator

from evalwright.files.base import FileModel, NonEmptyStr, field_error


def _argv(value: list[str]) -> list[str]:
    if not value or not value[0]:
        raise field_error("empty", "expected a non-empty argv list, such as [make, deps]")
    return value


SetupCommand = Annotated[list[str], BeforeValidator(_argv)]
"""One setup command: an argv list, run without a shell."""


class WorkspaceSpec(FileModel):
    """``{copy: PATH}`` or ``{git: PATH, commit: REV}``, with optional ``setup`` commands run
    in order in the fresh workspace before the agent starts."""

    copy_: NonEmptyStr | None = Field(default=None, alias="copy")
    """A directory copied into each case's workspace (symlinks copied as links, ``.git``
    left out unless ``include_git``)."""
    include_git: bool = False
    """Copy a ``copy:`` directory's ``.git`` too."""
    git: NonEmptyStr | None = None
    """A local git repository, cloned into each case's workspace at ``commit``."""
    commit: NonEmptyStr | None = None
    """The commit (or any revision git resolves) a ``git:`` workspace starts at; ``HEAD``
    when left out."""
    setup: list[SetupCommand] = Field(default_factory=list[list[str]])

    @model_validator(mode="after")
    def _one_source(self) -> WorkspaceSpec:
        if (self.copy_ is None) == (self.git is None):
            raise field_error("workspace", "give either 'copy: DIRECTORY' or 'git: REPOSITORY'")
        if self.commit is not None and self.git is None:
            raise field_error("workspace", "'commit' goes with 'git: REPOSITORY'", "commit")
        if self.include_git and self.copy_ is None:
            raise field_error("workspace", "'include_git' goes with 'copy: DIRECTORY'")
        return self

    @property
    def kind(self) -> Literal["copy", "git"]:
        """Where the workspace comes from."""
        return "copy" if self.copy_ is not None else "git"

    @property
    def source(self) -> str:
        """The directory or repository, as written."""
        return self.copy_ if self.copy_ is not None else str(self.git)


def _plain_path(value: object) -> object:
    return {"copy": value} if isinstance(value, str) else value


Workspace = Annotated[
    WorkspaceSpec, BeforeValidator(_plain_path, json_schema_input_type=str | WorkspaceSpec)
]
"""``workspace:`` as written: a directory to copy, or a :class:`WorkspaceSpec`."""


@dataclass(frozen=True, slots=True)
class ResolvedWorkspace:
    """A ``workspace:`` with its source made absolute: an eval file's relative to the file's
    directory, a target's relative to the project root."""

    spec: WorkspaceSpec
    source: str
