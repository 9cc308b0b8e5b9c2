"""Plan a run: open the eval files, pick the cases and targets, and check each target and
judge before its first request, so a configuration error stops the run.

YAML files are read whole before anything runs (every error is reported up front). JSONL
suites stream: cases are read as the workers need them, so a large suite starts at once and
never sits in memory; an error met on a later line stops the run with the rows so far kept.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evalwright.errors import ConfigError, Diagnostic, LoadError
from evalwright.evalfile.diagnostics import Report
from evalwright.evalfile.discovery import find_eval_files
from evalwright.evalfile.evaluator_specs import LlmJudgeSpec
from evalwright.evalfile.loader import SuiteReader
from evalwright.evalfile.project import Project, display_path, find_project_root
from evalwright.evalfile.references import FileResolver
from evalwright.evalfile.resolved import LoadedCase, SuiteInfo
from evalwright.evalfile.suite import Suite, open_suite
from evalwright.targets.models import Target
from evalwright.targets.registry import DEFAULT_TARGET, TargetRegistry


@dataclass(slots=True)
class RunOptions:
    """What ``evalwright eval`` was asked to do."""

    paths: list[str]
    suites: tuple[Suite, ...] = ()
    """Suites built in Python (or loaded with ``load_suite``), run after ``paths``."""
    targets: list[str] = field(default_factory=list[str])
    given_targets: tuple[Target, ...] = ()
    """Targets given as objects rather than by name (they win over the targets file's)."""
    targets_file: Path | None = None
    eval_id: tuple[str, ...] = ()
    """``--eval-id`` globs: a case runs when its id matches any of them (all when empty)."""
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

    suite: SuiteInfo
    case: LoadedCase
    target: str


@dataclass(slots=True)
class _Source:
    """One suite of the run: an eval file (read whole, or streamed when JSONL) or a suite
    built in Python."""

    info: SuiteInfo
    report: Report
    cases: Iterable[LoadedCase]
    estimated: int = 0
    default_target: str | None = None

    @classmethod
    def of(cls, reader: SuiteReader, cases: Iterable[LoadedCase]) -> _Source:
        """A source reading ``reader``'s file."""
        return cls(reader.info, reader.report, cases, reader.estimated_cases, reader.default_target)


@dataclass(slots=True)
class Plan:
    """The opened suites and the targets of a run."""

    project: Project
    sources: list[_Source]
    registry: TargetRegistry
    options: RunOptions
    estimated: int = 0
    exact: bool = True
    config_warnings: list[Diagnostic] = field(default_factory=list[Diagnostic])
    _told: dict[int, int] = field(default_factory=dict[int, int])

    def new_warnings(self) -> list[Diagnostic]:
        """The warnings ``validate`` would print for the run's files, found since the last
        call: the config, the targets file, and each eval file as far as it has been read."""
        sources = [
            self.config_warnings,
            self.registry.warnings,
            *(source.report.items for source in self.sources),
        ]
        found: list[Diagnostic] = []
        for slot, items in enumerate(sources):
            told = self._told.get(slot, 0)
            found.extend(d for d in items[told:] if d.severity == "warning")
            self._told[slot] = len(items)
        return found

    @property
    def suites(self) -> list[SuiteInfo]:
        """The eval files of the run."""
        return [source.info for source in self.sources]

    @property
    def resolver(self) -> FileResolver:
        """The one resolver every eval file of the run reads its references with."""
        return self.sources[0].info.resolver

    def items(self) -> Iterator[WorkItem]:
        """The work, lazily, in file and case order; raise on a load or target error."""
        produced = 0
        for source in self.sources:
            for case in source.cases:
                _raise_errors(source.report)
                if not selected(case, self.options.eval_id):
                    continue
                for target in targets_of(case, self.options):
                    self._check(case, target)
                    produced += 1
                    yield WorkItem(source.info, case, target)
            _raise_errors(source.report)
        if produced == 0:
            raise ConfigError(f"no case matches {eval_id_option(self.options.eval_id)}")

    def _check(self, case: LoadedCase, name: str) -> None:
        """Resolve the case's target and check each of its judges (once, in the registry)."""
        self.registry.target(name)
        for evaluator in case.evaluators:
            if isinstance(evaluator.spec, LlmJudgeSpec):
                self.registry.check_judge(name, evaluator.spec.target)


def selected(case: LoadedCase, eval_ids: Sequence[str]) -> bool:
    """Whether ``--eval-id`` (globs, any of which may match; none for every case) selects
    ``case``."""
    return not eval_ids or any(fnmatch.fnmatchcase(case.id, glob) for glob in eval_ids)


def eval_id_option(eval_ids: Sequence[str]) -> str:
    """The globs as they were given, for messages: ``--eval-id 'a*' --eval-id 'b'``."""
    return " ".join(f"--eval-id {glob!r}" for glob in eval_ids)


def _raise_errors(report: Report) -> None:
    if report.errors:
        raise LoadError(sorted(report.errors, key=lambda d: (d.line, d.col)))


def targets_of(case: LoadedCase, options: RunOptions) -> list[str]:
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
    """Open everything a run needs; raise ConfigError (or LoadError) on a mistake."""
    files = expand_paths(options.paths) if options.paths or not options.suites else []
    roots = {find_project_root(path) for path in [*files, *(s.file for s in options.suites)]}
    if len(roots) > 1:
        shown = ", ".join(sorted(display_path(r) for r in roots))
        raise ConfigError(f"the eval files of one run must share one project root (found {shown})")
    project, config_report = Project.load(roots.pop())
    if config_report is not None and config_report.errors:
        raise LoadError(config_report.errors)
    config_warnings = config_report.warnings if config_report is not None else []
    resolver = FileResolver(project)
    sources = [_open(path, project, resolver) for path in files]
    sources.extend(_open_suite(suite, project, resolver) for suite in options.suites)
    registry = TargetRegistry(
        project,
        targets_path=options.targets_file,
        dry_run=options.dry_run,
        given=options.given_targets,
    )
    plan = Plan(project, sources, registry, options, config_warnings=config_warnings)
    for source in sources:
        _survey(plan, source)
    return plan


def _survey(plan: Plan, source: _Source) -> None:
    """Count the work and check its targets before the run starts: exactly for a file read
    whole, from the file's own target for a streamed one."""
    options = plan.options
    if isinstance(source.cases, list):
        for case in source.cases:
            if selected(case, options.eval_id):
                for target in targets_of(case, options):
                    plan._check(case, target)  # pyright: ignore[reportPrivateUsage]
                    plan.estimated += 1
        return
    plan.estimated += source.estimated * max(1, len(options.targets))
    plan.exact = plan.exact and not options.eval_id
    for name in options.targets or [source.default_target or DEFAULT_TARGET]:
        plan.registry.target(name)


def _open(path: Path, project: Project, resolver: FileResolver) -> _Source:
    reader = SuiteReader(path, project, resolver)
    _raise_errors(reader.report)
    if path.suffix.lower() == ".jsonl":
        return _Source.of(reader, reader.cases())
    cases = list(reader.cases())
    _raise_errors(reader.report)
    return _Source.of(reader, cases)


def _open_suite(suite: Suite, project: Project, resolver: FileResolver) -> _Source:
    info, cases, report = open_suite(suite, project, resolver)
    _raise_errors(report)
    return _Source(info, report, cases, len(cases), suite.target)
