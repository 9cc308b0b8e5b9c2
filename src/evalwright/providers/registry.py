"""A run's targets: the targets file loaded once, each target resolved and given one
provider when first used, and each judge checked once."""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from evalwright.errors import ConfigError, Diagnostic
from evalwright.files.project import Project, display_path
from evalwright.files.variables import Environment
from evalwright.providers.base import Provider, ProviderContext
from evalwright.providers.http import HttpPool
from evalwright.providers.process import ChildEnvironment
from evalwright.providers.runner import CommandRunner
from evalwright.providers.sandbox import Confinement, SandboxedRunner, confinement
from evalwright.targets.base import AgentTargetBase
from evalwright.targets.kind_facts import ProviderKind
from evalwright.targets.kinds import chat_kinds
from evalwright.targets.load import load_project_targets
from evalwright.targets.models import ChatTarget, MockTarget, Target, TargetsFile
from evalwright.targets.resolve import resolve_target

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
        given: Sequence[Target] = (),
    ) -> None:
        self.project = project
        # Targets given as objects (docs/python-api.md#running); they win over the file's.
        self.given = {target.name: target for target in given}
        self.path = targets_path or project.targets_path
        self.env: Mapping[str, str] = env if env is not None else Environment(project.root)
        self.pool = pool or HttpPool()
        self.require_keys = require_keys
        # A dry run answers every target and judge with the mock, needing no key or variable.
        self.dry_run = dry_run
        self._redact: Callable[[str], str] | None = None
        self._runner_for: Callable[[Target], CommandRunner] | None = None
        self._file: TargetsFile | None = None
        self.warnings: list[Diagnostic] = []
        """The targets file's warnings (AgentV forms), once it is loaded."""
        self._targets: dict[str, Target] = {}
        self._providers: dict[str, Provider] = {}
        self._sandboxes: dict[str, Confinement | None] = {}
        self._judged: set[tuple[str, str | None]] = set()

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
        found = self.given.get(name)
        if found is None and self.dry_run and self.path is None:
            return MockTarget(name=name, provider="mock")
        if found is None and (self.path is not None or not self.given):
            found = self.file.get(name)
        if found is None:
            known = ", ".join([*self.given, *(t.name for t in self._file_targets())])
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
        resolved = resolve_target(found, self.env, require_key=self.require_keys)
        self.sandbox(resolved)  # a sandbox that cannot run here is an error before any case
        return resolved

    def provider(self, name: str) -> Provider:
        """The one provider of target ``name`` (the mock in a dry run)."""
        if name not in self._providers:
            target = self.target(name)
            if self.dry_run:
                target = MockTarget(name=name, provider="mock")
            context = self.context
            if self._runner_for is not None and target.kind.cluster:
                context = dataclasses.replace(context, runner=self._runner_for(target))
            sandbox = self.sandbox(target)
            if sandbox is not None:
                runner = SandboxedRunner(context.runner, sandbox)
                context = dataclasses.replace(context, runner=runner)
            self._providers[name] = create_provider(target, context)
        return self._providers[name]

    def default_judge(self, name: str) -> str | None:
        """The default judge of target ``name``'s answers (an evaluator's own ``target``
        wins): its ``judge_target``, else itself unless it is a coding agent."""
        target = self.target(name)
        if target.judge_target:
            return target.judge_target
        return None if target.is_agent else target.name

    def check_judge(self, name: str, judge: str | None) -> None:
        """Check once that an ``llm_judge`` of target ``name``'s answers, naming ``judge``
        (or none, for the default), has a judge that can judge; raise ConfigError."""
        if (name, judge) in self._judged:
            return
        self._judged.add((name, judge))
        target = self.target(name)
        chosen = judge or self.default_judge(name)
        if chosen is None:
            raise ConfigError(
                f"target '{target.name}' ({target.provider}) is judged by llm_judge but names "
                "no judge_target: add a chat-API judge_target to it"
            )
        found = self.target(chosen)
        if found.is_agent:
            raise ConfigError(
                f"judge target '{found.name}' is a {found.provider} target; a judge "
                f"must be a chat API ({chat_kinds()}) or mock"
            )

    def sandbox(self, target: Target) -> Confinement | None:
        """The sandbox ``target``'s commands and workspace checks run in
        (docs/agents.md#sandboxes), ``None`` for none; a :class:`ConfigError` when it cannot
        run on this machine."""
        if target.name not in self._sandboxes:
            self._sandboxes[target.name] = (
                confinement(target, self.project.root, self.child_env)
                if isinstance(target, AgentTargetBase) and not self.dry_run
                else None
            )
        return self._sandboxes[target.name]

    def use_runner(self, runner_for: Callable[[Target], CommandRunner]) -> None:
        """Run agent targets' commands with ``runner_for(target)`` (set before the first
        provider; docs/scale.md)."""
        self._runner_for = runner_for

    @property
    def context(self) -> ProviderContext:
        """What adapters get: the pool, the root, the redactor, the commands' environment."""
        if self._redact is None:
            return ProviderContext(self.project.root, self.pool, child_env=self.child_env)
        return ProviderContext(self.project.root, self.pool, self._redact, self.child_env)

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

    def _file_targets(self) -> list[Target]:
        return self.file.targets if self.path is not None else []

    def all_api_keys(self) -> list[str]:
        """Every API key the targets file and the given targets hold, however set (for
        redaction)."""
        keys: list[str] = []
        for target in [*self.given.values(), *self._file_targets()]:
            try:
                resolved = resolve_target(target, self.env, require_key=False)
            except ConfigError:
                continue  # a target this run cannot use has no key to leak
            if isinstance(resolved, ChatTarget) and resolved.api_key:
                keys.append(resolved.api_key)
        return keys

    async def aclose(self) -> None:
        """Close every provider and the HTTP pool."""
        for provider in self._providers.values():
            await provider.aclose()
        await self.pool.aclose()


def provider_class(kind: ProviderKind) -> type[Provider]:
    """The adapter class of a provider kind (importing its module now)."""
    module_name, _, class_name = kind.adapter.partition(":")
    cls: type[Provider] = getattr(importlib.import_module(module_name), class_name)
    return cls


def create_provider(target: Target, context: ProviderContext) -> Provider:
    """The adapter for a resolved target; every adapter takes ``(target, context)``."""
    return provider_class(target.kind)(target, context)
