"""A run's targets: the targets file loaded once, each target resolved and given one
provider when first used."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path

from evalwright.errors import ConfigError
from evalwright.evalfile.diagnostics import Diagnostic
from evalwright.evalfile.project import Project, display_path
from evalwright.evalfile.targets import MockTarget, Target, TargetsFile
from evalwright.evalfile.targets_load import load_project_targets
from evalwright.evalfile.targets_resolve import resolve_target
from evalwright.evalfile.variables import Environment
from evalwright.providers.base import Provider, ProviderContext
from evalwright.providers.http import HttpPool
from evalwright.providers.process import ChildEnvironment
from evalwright.providers.registry import create_provider

DEFAULT_TARGET = "default"
"""The target of a case that names none."""


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
        dry_run: bool = False,
    ) -> None:
        self.project = project
        self.path = targets_path or project.targets_path
        self.env: Mapping[str, str] = env if env is not None else Environment(project.root)
        self.pool = pool or HttpPool()
        self.require_keys = require_keys
        # A dry run answers every target and judge with the mock, needing no key or variable.
        self.dry_run = dry_run
        self._redact: Callable[[str], str] | None = None
        self._file: TargetsFile | None = None
        self.warnings: list[Diagnostic] = []
        """The targets file's warnings (AgentV forms), once it is loaded."""
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
            self._file, self.warnings = load_project_targets(self.path)
        return self._file

    def target(self, name: str) -> Target:
        """The target called ``name``, resolved (variables, API key) once."""
        if name not in self._targets:
            self._targets[name] = self._resolve(name)
        return self._targets[name]

    def _resolve(self, name: str) -> Target:
        if self.dry_run and self.path is None:
            return MockTarget(name=name, provider="mock")
        found = self.file.get(name)
        if found is None:
            known = ", ".join(t.name for t in self.file.targets)
            if name == DEFAULT_TARGET:
                raise ConfigError(
                    f"no target chosen: {display_path(self.path or self.project.root)} defines "
                    f"{known}, none named '{DEFAULT_TARGET}'. Choose one with --target NAME, "
                    "or 'target: NAME' in the eval file (or a case's execution), or name a "
                    f"target '{DEFAULT_TARGET}'"
                )
            raise ConfigError(f"unknown target '{name}' (defined: {known})")
        if self.dry_run:
            return found  # kept for its mode and system prompt; never called
        return resolve_target(found, self.env, require_key=self.require_keys)

    def provider(self, name: str) -> Provider:
        """The one provider of target ``name`` (the mock in a dry run)."""
        if name not in self._providers:
            target = self.target(name)
            if self.dry_run:
                target = MockTarget(name=name, provider="mock")
            self._providers[name] = create_provider(target, self.pool, self.context)
        return self._providers[name]

    @property
    def context(self) -> ProviderContext:
        """What agent adapters get: the root, the redactor, the commands' environment."""
        if self._redact is None:
            return ProviderContext(self.project.root, child_env=self.child_env)
        return ProviderContext(self.project.root, self._redact, self.child_env)

    def use_redactor(self, redact: Callable[[str], str]) -> None:
        """Keep secrets out of the logs adapters write (set before the first provider)."""
        self._redact = redact

    @functools.cached_property
    def child_env(self) -> ChildEnvironment:
        """The environment of cli commands and code evaluators: no secrets, no API keys."""
        keys = frozenset(self.all_api_keys())
        if isinstance(self.env, Environment):
            return ChildEnvironment(self.env.process, self.env.dotenv, keys)
        return ChildEnvironment(self.env, {}, keys)

    def all_api_keys(self) -> list[str]:
        """Every API key the targets file gives, however set (for redaction)."""
        if self.path is None:
            return []
        keys: list[str] = []
        for target in self.file.targets:
            try:
                resolved = resolve_target(target, self.env, require_key=False)
            except ConfigError:
                continue  # a target this run cannot use has no key to leak
            key = getattr(resolved, "api_key", None)
            if isinstance(key, str) and key:
                keys.append(key)
        return keys

    async def aclose(self) -> None:
        """Close every provider and the HTTP pool."""
        for provider in self._providers.values():
            await provider.aclose()
        await self.pool.aclose()
