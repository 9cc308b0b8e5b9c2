"""A run's targets: the targets file loaded once, each target resolved and given one
provider when first used."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from evalwright.errors import ConfigError
from evalwright.evalfile.project import Project, display_path
from evalwright.evalfile.targets import Target, TargetsFile
from evalwright.evalfile.targets_load import load_project_targets
from evalwright.evalfile.targets_resolve import resolve_target
from evalwright.evalfile.variables import Environment
from evalwright.providers.base import Provider
from evalwright.providers.http import HttpPool
from evalwright.providers.registry import create_provider


class TargetRegistry:
    """Targets of one project for one run."""

    def __init__(
        self,
        project: Project,
        *,
        targets_path: Path | None = None,
        env: Mapping[str, str] | None = None,
        pool: HttpPool | None = None,
        require_keys: bool = True,
    ) -> None:
        self.project = project
        self.path = targets_path or project.targets_path
        self.env: Mapping[str, str] = env if env is not None else Environment(project.root)
        self.pool = pool or HttpPool()
        self.require_keys = require_keys
        self._file: TargetsFile | None = None
        self._targets: dict[str, Target] = {}
        self._providers: dict[str, Provider] = {}

    @property
    def file(self) -> TargetsFile:
        """The loaded targets file; a configuration error when there is none."""
        if self._file is None:
            if self.path is None:
                raise ConfigError(
                    f"no targets file: create {display_path(self.project.root)}/.evalwright/"
                    "targets.yaml (or pass --targets FILE)"
                )
            self._file = load_project_targets(self.path)
        return self._file

    def target(self, name: str) -> Target:
        """The target called ``name``, resolved (variables, API key) once."""
        if name not in self._targets:
            found = self.file.get(name)
            if found is None:
                known = ", ".join(t.name for t in self.file.targets)
                raise ConfigError(f"unknown target '{name}' (defined: {known})")
            self._targets[name] = resolve_target(found, self.env, require_key=self.require_keys)
        return self._targets[name]

    def provider(self, name: str) -> Provider:
        """The one provider of target ``name``."""
        if name not in self._providers:
            self._providers[name] = create_provider(self.target(name), self.pool)
        return self._providers[name]

    async def aclose(self) -> None:
        """Close every provider and the HTTP pool."""
        for provider in self._providers.values():
            await provider.aclose()
        await self.pool.aclose()
