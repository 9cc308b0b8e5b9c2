"""Suites: eval cases built in Python or loaded from a file, checked and resolved the same
way (docs/python-api.md#suites-and-cases).

A :class:`Suite` holds cases as authored (:class:`EvalCase`, exported as ``LoadedCase``);
:func:`open_suite` resolves them for a run exactly as the loader resolves an eval file's
cases, so a case sends the same request whichever way it was written.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pydantic import TypeAdapter, ValidationError

from evalwright.evalfile.cases import CaseBuilder
from evalwright.evalfile.evaluator_specs import EvaluatorList, EvaluatorSpec, default_judge
from evalwright.evalfile.loader import SuiteReader
from evalwright.evalfile.located import Located
from evalwright.evalfile.models import EvalCase, PromptsMap, PromptSpec, merged_tags
from evalwright.evalfile.references import FileResolver
from evalwright.evalfile.resolved import Evaluator, LoadedCase, PromptVariant, SuiteInfo
from evalwright.evalfile.template_cases import TemplateCase
from evalwright.evalfile.tools import Tools
from evalwright.files.diagnostics import Report, format_field
from evalwright.files.project import Project, display_path, find_project_root
from evalwright.files.source import Positions
from evalwright.files.validation import validate
from evalwright.targets.tools import McpTools, ToolSpec

DEFAULT_SUITE_NAME = "suite"


@dataclass(frozen=True, slots=True, init=False)
class Suite:
    """Eval cases and what they share: the dataset name, a default target and evaluators,
    the tools every case offers (docs/tools.md#declaring-tools), and the directory their file
    references resolve against.

    ``base_dir`` defaults to the directory of ``path`` (a loaded file), else the working
    directory. A suite built in Python has no ``path``: its rows name it by ``name``.
    """

    cases: tuple[EvalCase, ...]
    name: str | None
    description: str | None
    target: str | None
    evaluators: tuple[EvaluatorSpec, ...] | None
    tools: tuple[ToolSpec | McpTools, ...]
    base_dir: Path | None
    path: Path | None = field(repr=False)
    prompts: dict[str, PromptSpec] | None = None
    """Named prompt variants (docs/eval-files.md#prompt-variants)."""
    system_prompt: Literal["none"] | None = None
    """``"none"``: no default system prompt (docs/eval-files.md#system_prompt-none)."""

    def __init__(
        self,
        cases: Iterable[EvalCase],
        *,
        name: str | None = None,
        description: str | None = None,
        target: str | None = None,
        evaluators: Iterable[EvaluatorSpec] | None = None,
        tools: Iterable[ToolSpec | McpTools] = (),
        base_dir: str | os.PathLike[str] | None = None,
        path: str | os.PathLike[str] | None = None,
        prompts: Mapping[str, PromptSpec] | None = None,
        system_prompt: Literal["none"] | None = None,
    ) -> None:
        # Any iterable is accepted; the suite itself stays immutable.
        values = {
            "cases": tuple(cases),
            "name": name,
            "description": description,
            "target": target,
            "evaluators": tuple(evaluators) if evaluators is not None else None,
            "tools": tuple(tools),
            "base_dir": Path(base_dir) if base_dir is not None else None,
            "path": Path(path) if path is not None else None,
            "prompts": dict(prompts) if prompts is not None else None,
            "system_prompt": system_prompt,
        }
        for key, value in values.items():
            object.__setattr__(self, key, value)

    @property
    def dataset(self) -> str:
        """The rows' ``dataset``: ``name``, else the file's stem, else ``suite``."""
        if self.name:
            return self.name
        return self.path.stem if self.path is not None else DEFAULT_SUITE_NAME

    @property
    def directory(self) -> Path:
        """Where the cases' relative file references resolve."""
        if self.base_dir is not None:
            return Path(os.path.abspath(self.base_dir))
        if self.path is not None:
            return Path(os.path.abspath(self.path)).parent
        return Path.cwd()

    @property
    def file(self) -> Path:
        """The eval file, or for a suite built in Python a path named after it (rows'
        ``eval_file`` is this path relative to the project root)."""
        if self.path is not None:
            return Path(os.path.abspath(self.path))
        return self.directory / self.dataset


def load_suite(path: str | os.PathLike[str]) -> Suite:
    """Read an eval file (YAML or JSONL) whole; raise :class:`LoadError` with every error."""
    absolute = Path(os.path.abspath(path))
    project = checked_project(absolute)
    reader = SuiteReader(absolute, project, FileResolver(project))
    specs = tuple(case.spec for case in reader.cases())
    reader.report.raise_if_errors()
    header = reader.header
    if header is not None and header.tags:
        # A suite has no file-level tags: each case takes its file's (docs/eval-files.md#tags).
        specs = tuple(
            spec.model_copy(update={"tags": list(merged_tags(header.tags, spec.tags))})
            for spec in specs
        )
    evaluators = None
    if header is not None and header.execution is not None:
        evaluators = header.execution.evaluators
    return Suite(
        cases=specs,
        name=reader.info.dataset,
        description=reader.info.description,
        target=reader.default_target,
        evaluators=evaluators,
        tools=reader.file_tools,
        path=absolute,
        prompts=header.prompts if header is not None else None,
        system_prompt=header.system_prompt if header is not None else None,
    )


_EVALUATORS: TypeAdapter[list[EvaluatorSpec]] = TypeAdapter(EvaluatorList)


def open_suite(
    suite: Suite,
    project: Project,
    resolver: FileResolver,
    *,
    target_names: set[str] | None = None,
) -> tuple[SuiteInfo, list[LoadedCase], Report]:
    """Resolve a suite's cases as the loader resolves a file's: files read, templates
    parsed, every problem in the report (``suite.cases[N]...`` fields)."""
    shown = display_path(suite.path) if suite.path is not None else f"<suite {suite.dataset}>"
    report = Report(shown)
    builder = CaseBuilder(resolver, str(suite.directory), report, target_names)
    where = Located((), Positions(None))
    defaults = _defaults(suite, builder, where, report)
    builder.check_target(suite.target, where.at("target"))
    tools = builder.tools.declared(suite.tools, where.at("tools"))
    cases: list[LoadedCase] = []
    seen: set[str] = set()
    for index, spec in enumerate(suite.cases):
        here = where.at("cases", index)
        for case in _spec_cases(suite, spec, here, builder, defaults, tools):
            if case.id in seen:
                field_name = format_field((*here.path, "id"))
                report.error(1, 1, field_name, f"duplicate case id {case.id!r}")
            seen.add(case.id)
            none = suite.system_prompt == "none"
            cases.append(replace(case, system_prompt="") if none else case)
    variants = _variants(suite, builder, where, report)
    info = SuiteInfo(
        suite.file, shown, project, suite.dataset, suite.description, resolver, variants=variants
    )
    return info, cases, report


def _spec_cases(
    suite: Suite,
    spec: EvalCase,
    here: Located,
    builder: CaseBuilder,
    defaults: tuple[Evaluator, ...],
    tools: Tools,
) -> Iterator[LoadedCase]:
    """``spec`` resolved: one case, or one per record of a template case (``dataset:`` or
    ``vars:``), filled and recorded with its ``vars`` as a file's are
    (docs/eval-files.md#datasets-and-variables)."""
    if spec.dataset is None and spec.vars is None:
        case = builder.build(spec, here, defaults, suite.target, file_tools=tools)
        if case is not None:
            yield case
        return
    data = spec.model_dump(mode="json", by_alias=True, exclude_none=True)
    shared = (
        None
        if suite.evaluators is None
        else [_EVALUATORS.dump_python([e], mode="json", by_alias=True)[0] for e in suite.evaluators]
    )
    report = builder.report
    template = TemplateCase(data, here, builder.resolver, str(suite.directory), report, shared)
    for record in template.cases():
        start = len(report.items)
        filled = validate(EvalCase, record.data, here.positions, report, here.path)
        case = (
            builder.build(
                filled, here, defaults, suite.target, file_tools=tools, verbatim=record.verbatim
            )
            if filled is not None
            else None
        )
        template.relabel(start, record.label)
        if case is not None:
            yield replace(case, vars=record.vars)


_PROMPTS: TypeAdapter[dict[str, PromptSpec]] = TypeAdapter(PromptsMap)


def _variants(
    suite: Suite, builder: CaseBuilder, where: Located, report: Report
) -> tuple[PromptVariant, ...]:
    """The suite's prompt variants, checked as a file's ``prompts:`` is."""
    if suite.prompts is None:
        return ()
    try:
        prompts = _PROMPTS.validate_python(suite.prompts)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            report.error(1, 1, format_field(("prompts", *error["loc"])), error["msg"])
        return ()
    return builder.variants(prompts, where.at("prompts"))


def _defaults(
    suite: Suite, builder: CaseBuilder, where: Located, report: Report
) -> tuple[Evaluator, ...]:
    if suite.evaluators is None:
        return (Evaluator(default_judge()),)
    try:
        specs = _EVALUATORS.validate_python(list(suite.evaluators))
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            report.error(1, 1, "evaluators", error["msg"])
        return ()
    return builder.evaluators(specs, where.at("evaluators"))


def checked_project(path: Path) -> Project:
    """The project of the eval file (or suite) at ``path``; raise :class:`LoadError` for an
    error in its config."""
    project, config_report = Project.load(find_project_root(path))
    if config_report is not None:
        config_report.raise_if_errors()
    return project


def load_resolved(suite: Suite) -> tuple[SuiteInfo, list[LoadedCase]]:
    """The suite's identity and its cases resolved for prompt building; raise
    :class:`LoadError` on a problem."""
    project = checked_project(suite.file)
    info, cases, report = open_suite(suite, project, FileResolver(project))
    report.raise_if_errors()
    return info, cases
