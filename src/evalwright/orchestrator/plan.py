"""Plan a run: load the eval files, pick the cases and targets, and check every target and
judge before the first request, so a configuration error stops the run at once."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from evalwright.errors import ConfigError, LoadError
from evalwright.evalfile.discovery import find_eval_files
from evalwright.evalfile.evaluator_specs import LlmJudgeSpec
from evalwright.evalfile.loader import check_eval_file
from evalwright.evalfile.project import Project, display_path, find_project_root
from evalwright.evalfile.references import FileResolver
from evalwright.evalfile.resolved import EvalCase, EvalSuite
from evalwright.evalfile.targets import Target
from evalwright.orchestrator.targets import TargetRegistry

DEFAULT_TARGET = "default"


@dataclass(slots=True)
class RunOptions:
    """What ``evalwright eval`` was asked to do."""

    paths: list[str]
    targets: list[str] = field(default_factory=list[str])
    targets_file: Path | None = None
    eval_id: str | None = None
    workers: int = 8
    out: Path | None = None
    resume: Path | None = None
    cache: bool | None = None
    dry_run: bool = False
    pass_mark: float = 0.5
    threshold: float | None = None


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One case to run on one target."""

    suite: EvalSuite
    case: EvalCase
    target: str


@dataclass(slots=True)
class Plan:
    """The loaded suites and checked targets of a run."""

    project: Project
    suites: list[EvalSuite]
    registry: TargetRegistry
    options: RunOptions
    total: int = 0

    def items(self) -> Iterator[WorkItem]:
        """The work, lazily, in file and case order."""
        for suite in self.suites:
            for case in select(suite, self.options.eval_id):
                for target in targets_of(case, self.options):
                    yield WorkItem(suite, case, target)

    def judge_target(self, target: str) -> str | None:
        """The default judge of ``target``'s answers (an evaluator's own ``target`` wins)."""
        resolved = self.registry.target(target)
        if resolved.judge_target:
            return resolved.judge_target
        return None if resolved.is_agent else resolved.name


def select(suite: EvalSuite, eval_id: str | None) -> Iterator[EvalCase]:
    """The suite's cases whose id matches the glob."""
    for case in suite.cases:
        if eval_id is None or fnmatch.fnmatchcase(case.id, eval_id):
            yield case


def targets_of(case: EvalCase, options: RunOptions) -> list[str]:
    """Each ``--target``, else the case's target (case, then file), else ``default``."""
    return options.targets or [case.target or DEFAULT_TARGET]


def expand_paths(paths: list[str]) -> list[Path]:
    """Eval files named, and those found in named directories."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(find_eval_files(path))
        elif path.exists():
            found.append(path)
        else:
            raise ConfigError(f"{raw}: no such file or directory")
    if not found:
        raise ConfigError(f"no eval files found in {', '.join(paths)}")
    return found


def load_plan(options: RunOptions) -> Plan:
    """Load everything a run needs; raise ConfigError (or LoadError) on any mistake."""
    files = expand_paths(options.paths)
    roots = {find_project_root(path) for path in files}
    if len(roots) > 1:
        shown = ", ".join(sorted(display_path(r) for r in roots))
        raise ConfigError(f"the eval files of one run must share one project root (found {shown})")
    project, config_report = Project.load(roots.pop())
    if config_report is not None and config_report.errors:
        raise LoadError(config_report.errors)
    resolver = FileResolver(project)
    suites = [_load(path, project, resolver) for path in files]
    registry = TargetRegistry(project, targets_path=options.targets_file, dry_run=options.dry_run)
    plan = Plan(project, suites, registry, options)
    _check_targets(plan)
    return plan


def _load(path: Path, project: Project, resolver: FileResolver) -> EvalSuite:
    suite, diagnostics = check_eval_file(path, project, resolver)
    if suite is None:
        raise LoadError([d for d in diagnostics if d.severity == "error"])
    return suite


def _check_targets(plan: Plan) -> None:
    checked: set[tuple[str, str | None]] = set()
    for item in plan.items():
        plan.total += 1
        target = plan.registry.target(item.target)
        for evaluator in item.case.evaluators:
            spec = evaluator.spec
            if not isinstance(spec, LlmJudgeSpec) or (item.target, spec.target) in checked:
                continue
            checked.add((item.target, spec.target))
            _check_judge(plan.registry.target(spec.target or _default_judge(target)))
    if plan.total == 0:
        raise ConfigError(f"no case matches --eval-id {plan.options.eval_id!r}")


def _default_judge(target: Target) -> str:
    if target.judge_target:
        return target.judge_target
    if target.is_agent:
        raise ConfigError(
            f"target '{target.name}' ({target.provider}) is judged by llm_judge but names no "
            "judge_target: add a chat-API judge_target to it"
        )
    return target.name


def _check_judge(target: Target) -> None:
    if target.is_agent:
        raise ConfigError(
            f"judge target '{target.name}' is a {target.provider} target; a judge "
            "must be a chat API (openai, azure, anthropic, gemini) or mock"
        )
