"""Plan a run: open the eval files, pick the cases and targets, and check each target and
judge before its first request, so a configuration error stops the run.

YAML files are read whole before anything runs (every error is reported up front). JSONL
suites stream: cases are read as the workers need them, so a large suite starts at once and
never sits in memory; an error met on a later line stops the run with the rows so far kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from evalwright.errors import ConfigError, Diagnostic, LoadError
from evalwright.evalfile.discovery import find_eval_files, not_eval_file
from evalwright.evalfile.evaluator_specs import LlmJudgeSpec
from evalwright.evalfile.loader import SuiteReader
from evalwright.evalfile.references import FileResolver
from evalwright.evalfile.resolved import LoadedCase, SuiteInfo
from evalwright.evalfile.suite import Suite, open_suite
from evalwright.files.diagnostics import Report
from evalwright.files.project import Project, display_path, find_project_root
from evalwright.orchestrator.options import RunOptions
from evalwright.providers.batching import batch_kinds, has_batch_api
from evalwright.providers.registry import DEFAULT_TARGET, TargetRegistry
from evalwright.results.failed import FailedRows, read_failed
from evalwright.results.index import RowKey
from evalwright.targets.kinds import live_turns_refusal, simulator_refusal, tools_refusal
from evalwright.targets.models import ChatTarget


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One run of a case on a target: repeat ``repeat`` (from 0) of its repeats; with a
    prompt variant, ``case`` is as the variant sends it (docs/eval-files.md#prompt-variants)."""

    suite: SuiteInfo
    case: LoadedCase
    target: str
    repeat: int = 0
    variant: str | None = None


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
    failed: FailedRows | None = None
    """``--only-failed``'s pairs, when given."""
    selection_warnings: list[Diagnostic] = field(default_factory=list[Diagnostic])
    """Failed pairs ``--only-failed`` cannot rerun: their case or eval file is gone."""
    _told: dict[int, int] = field(default_factory=dict[int, int])

    def new_warnings(self) -> list[Diagnostic]:
        """The warnings ``validate`` would print for the run's files, found since the last
        call: the config, the targets file, and each eval file as far as it has been read."""
        sources = [
            self.config_warnings,
            self.registry.warnings,
            self.selection_warnings,
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
            seen: set[str] = set()
            for case in source.cases:
                _raise_errors(source.report)
                seen.add(case.id)
                for item in self.runs_of(source.info, case):
                    self._check(item.case, item.target, source.info)
                    produced += 1
                    yield item
            _raise_errors(source.report)
            self._gone(source.info, seen)
        if self.failed is not None:
            self._gone_files()
        if produced == 0:
            raise ConfigError(self._nothing_selected())

    def runs_of(self, info: SuiteInfo, case: LoadedCase) -> Iterator[WorkItem]:
        """``case``'s work items: each of ``work_of`` once per prompt variant of its file,
        variant by variant (docs/eval-files.md#prompt-variants); with ``--only-failed`` only
        the (target, repeat, variant) runs that failed."""
        # Several variants of one (target, repeat) may have failed: each run once per variant.
        work = list(dict.fromkeys(self.work_of(info, case)))
        if not info.variants:
            yield from (WorkItem(info, case, target, repeat) for target, repeat in work)
            return
        failed = None
        if self.failed is not None:
            failed = {f.key for f in self.failed.by_case.get((info.relative_path, case.id), ())}
        for variant in info.variants:
            applied = variant.apply(case)
            for target, repeat in work:
                item = WorkItem(info, applied, target, repeat, variant.name)
                if failed is None or work_key(item) in failed:
                    yield item

    def repeats_of(self, case: LoadedCase) -> int:
        """How many times ``case`` runs on each target: its own ``repeat:``, else
        ``--repeat``, else the config's, else 1 (docs/running.md#repeats-and-reliability)."""
        config = self.project.config.repeat
        return case.repeat or self.options.repeat or config or 1

    def work_of(self, info: SuiteInfo, case: LoadedCase) -> list[tuple[str, int]]:
        """Each (target, repeat) ``case`` runs: every repeat on each of its targets, target by
        target; with ``--only-failed`` the repeats that failed."""
        if self.failed is not None:
            failed = set(self.targets_of(info, case))
            return [
                (target, repeat)
                for target, repeat in self.failed.runs(info.relative_path, case.id)
                if target in failed
            ]
        return [
            (target, repeat)
            for target in self.targets_of(info, case)
            for repeat in range(self.repeats_of(case))
        ]

    def targets_of(self, info: SuiteInfo, case: LoadedCase) -> list[str]:
        """The targets ``case`` runs on: none when the selection leaves it out; with
        ``--only-failed`` those it failed on (and ``--target`` names, when given)."""
        if not self.options.selection.matches(case):
            return []
        chosen = targets_of(case, self.options)
        if self.failed is None:
            return chosen
        failed = self.failed.targets(info.relative_path, case.id)
        return [t for t in failed if t in chosen] if self.options.targets else failed

    def _gone(self, info: SuiteInfo, seen: set[str]) -> None:
        """Warn of each failed pair of this eval file whose case is no longer in it."""
        if self.failed is None:
            return
        for (eval_file, case_id), rows in self.failed.by_case.items():
            if eval_file == info.relative_path and case_id not in seen:
                for row in rows:
                    self._warn(row.line, f"case {case_id!r} is no longer in {eval_file}")

    def _gone_files(self) -> None:
        """Warn once for each eval file of failed rows that this run does not include."""
        assert self.failed is not None
        run_files = {info.relative_path for info in self.suites}
        first: dict[str, int] = {}
        for (eval_file, _), rows in self.failed.by_case.items():
            if eval_file not in run_files:
                first.setdefault(eval_file, rows[0].line)
        for eval_file, line in first.items():
            self._warn(line, f"{eval_file} is not among this run's eval files")

    def _warn(self, line: int, why: str) -> None:
        assert self.failed is not None
        message = f"{why}: its failed row is not rerun"
        self.selection_warnings.append(
            Diagnostic(self.failed.shown, line, 1, "warning", "", message)
        )

    def _nothing_selected(self) -> str:
        """Why the run has no work: what selected nothing (docs/running.md#selecting-cases)."""
        options = self.options
        if self.failed is not None and not self.failed.by_case:
            return f"nothing to rerun: no row of {self.failed.shown} failed or errored"
        given = options.selection.describe()
        if self.failed is not None:
            given = f"{given} --only-failed {self.failed.shown}".strip()
        return f"no case matches {given}" if given else "no case to run"

    def batched(self, name: str) -> bool:
        """Whether target ``name``'s single-turn cases go through a batch API (``--batch`` or
        its ``batch: true``; docs/batch.md); a chat target whose provider has no batch
        support yet is a configuration error. Agents and the mock always run live."""
        target = self.registry.target(name)
        if not isinstance(target, ChatTarget) or not (self.options.batch or target.batch):
            return False
        if not has_batch_api(target.kind):
            supported = ", ".join(batch_kinds())
            raise ConfigError(
                f"target '{name}': batch mode is not supported for provider "
                f"'{target.kind.name}' yet (supported: {supported}); run it without --batch "
                "and batch: true"
            )
        return True

    def _check(self, case: LoadedCase, name: str, info: SuiteInfo) -> None:
        """Resolve the case's target and check each of its judges (once, in the registry);
        a live conversation's target must be able to hold one, a case's tools reach only a
        target that takes them."""
        target = self.registry.target(name)
        self.batched(name)
        turn_evaluators = [e for turn in case.turns for e in turn.evaluators]
        for evaluator in (*case.evaluators, *turn_evaluators):
            if isinstance(evaluator.spec, LlmJudgeSpec):
                for judge in evaluator.spec.judges or [evaluator.spec.target]:
                    self.registry.check_judge(name, judge)
        offers = bool(case.tools or case.tool_servers)
        refusal = tools_refusal(target.kind.name) if offers else None
        if refusal is not None:
            message = f"target '{name}': {refusal}"
            raise LoadError(
                [Diagnostic(info.display_path, case.line, 1, "error", "tools", message)]
            )
        live = bool(case.turns) or case.simulated_user is not None
        refusal = live_turns_refusal(target.kind.name) if live else None
        key = "turns" if case.turns else "simulated_user"
        if refusal is not None:
            message = f"target '{name}': {refusal}"
            raise LoadError([Diagnostic(info.display_path, case.line, 1, "error", key, message)])
        if case.simulated_user is not None:
            simulator = case.simulated_user.target
            refusal = simulator_refusal(self.registry.target(simulator).kind.name)
            if refusal is not None:
                message = f"simulated_user target '{simulator}': {refusal}"
                raise LoadError(
                    [Diagnostic(info.display_path, case.line, 1, "error", key, message)]
                )


def work_key(item: WorkItem) -> RowKey:
    """The key of the row ``item`` writes (docs/running.md#--resume)."""
    return (item.suite.relative_path, item.case.id, item.target, item.repeat, item.variant)


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
        elif (why := not_eval_file(path)) is not None:
            raise ConfigError(f"{raw}: {why}")
        elif path.exists():
            found.append(path)
        else:
            raise ConfigError(f"{raw}: no such file or directory")
    if not found:
        raise ConfigError(f"no eval files found in {', '.join(paths)}")
    return found


def load_plan(options: RunOptions, looked_for: set[str] | None = None) -> Plan:
    """Open everything a run needs; raise ConfigError (or LoadError) on a mistake.

    ``looked_for`` receives every path the cases' file references read or looked for, also
    when loading fails (``eval --watch`` watches them for the fix)."""
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
    try:
        sources = [_open(path, project, resolver) for path in files]
        sources.extend(_open_suite(suite, project, resolver) for suite in options.suites)
    finally:
        if looked_for is not None:
            looked_for.update(resolver.files_looked_for())
    registry = TargetRegistry(
        project,
        targets_path=options.targets_file,
        dry_run=options.dry_run,
        given=options.given_targets,
    )
    plan = Plan(project, sources, registry, options, config_warnings=config_warnings)
    if options.only_failed is not None:
        if options.resume is not None:
            raise ConfigError("give --resume or --only-failed, not both")
        plan.failed = read_failed(options.only_failed, options.pass_mark)
    for source in sources:
        _survey(plan, source)
    return plan


def _survey(plan: Plan, source: _Source) -> None:
    """Count the work and check its targets before the run starts: exactly for a file read
    whole, from the file's own target for a streamed one."""
    options = plan.options
    if isinstance(source.cases, list):
        for case in source.cases:
            for item in plan.runs_of(source.info, case):
                plan._check(item.case, item.target, source.info)  # pyright: ignore[reportPrivateUsage]
                plan.estimated += 1
        return
    repeats = options.repeat or plan.project.config.repeat or 1
    variants = max(1, len(source.info.variants))
    plan.estimated += source.estimated * max(1, len(options.targets)) * repeats * variants
    plan.exact = plan.exact and not options.selection.narrowed and plan.failed is None
    for name in options.targets or [source.default_target or DEFAULT_TARGET]:
        plan.registry.target(name)


def _open(path: Path, project: Project, resolver: FileResolver) -> _Source:
    reader = SuiteReader(path, project, resolver)
    _raise_errors(reader.report)
    # JSONL, or a template case's dataset (docs/eval-files.md#large-datasets)
    if reader.streams:
        return _Source.of(reader, reader.cases())
    cases = list(reader.cases())
    _raise_errors(reader.report)
    return _Source.of(reader, cases)


def _open_suite(suite: Suite, project: Project, resolver: FileResolver) -> _Source:
    info, cases, report = open_suite(suite, project, resolver)
    _raise_errors(report)
    return _Source(info, report, cases, len(cases), suite.target)
