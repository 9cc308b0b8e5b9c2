"""Load eval files (YAML or JSONL), reporting every problem.

:class:`SuiteReader` reads a file case by case, so a run can start on the first case and
never holds a large JSONL suite in memory; :func:`check_eval_file` reads a whole file for
``validate`` and ``prompt``.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Annotated

from pydantic import Field

from evalwright.errors import Diagnostic, LoadError
from evalwright.evalfile.agentv_shapes import upgrade_case
from evalwright.evalfile.cases import CaseBuilder
from evalwright.evalfile.evaluator_specs import default_judge
from evalwright.evalfile.jsonl_items import Item, count_lines, jsonl_items
from evalwright.evalfile.located import Located
from evalwright.evalfile.models import EvalCase, raw_field
from evalwright.evalfile.models import _FileHeader as FileHeader  # pyright: ignore[reportPrivateUsage]
from evalwright.evalfile.references import FileResolver
from evalwright.evalfile.resolved import (
    Evaluator,
    LoadedCase,
    LoadedSuite,
    PromptVariant,
    SuiteInfo,
)
from evalwright.evalfile.template_cases import (
    TemplateCase,
    estimated_records,
    file_evaluators,
    is_template,
)
from evalwright.evalfile.tools import Tools
from evalwright.files.diagnostics import Report, format_field
from evalwright.files.project import Project, display_path, find_project_root, read_text
from evalwright.files.source import Positions, collector_paused, parse
from evalwright.files.validation import type_name, validate
from evalwright.jsontext import JsonValue

EVAL_SUFFIXES = (".yaml", ".yml", ".jsonl")


class _YamlHeader(FileHeader):
    """A YAML file's top level, validated apart from its cases so each case is checked alone."""

    evalcases: Annotated[list[object], Field(min_length=1)]  # each case is validated alone


class SuiteReader:
    """Reads one eval file: its header at once, then its cases one by one.

    Problems go to :attr:`report`; a case with an error is not yielded. ``build_now=False``
    builds a YAML file's cases only as they are asked for, like a JSONL file's.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        project: Project,
        resolver: FileResolver,
        *,
        target_names: set[str] | None = None,
        build_now: bool = True,
    ) -> None:
        self.path = Path(os.path.abspath(path))
        self.report = Report(display_path(self.path))
        self.builder = CaseBuilder(resolver, str(self.path.parent), self.report, target_names)
        self.header: FileHeader | None = None
        self.estimated_cases = 0
        self.streams = self.path.suffix.lower() == ".jsonl"
        """Whether cases are read one by one as asked for (JSONL, or a YAML file with a
        template case), not from a whole file."""
        self._defaults: tuple[Evaluator, ...] = (Evaluator(default_judge()),)
        self._target: str | None = None
        self._tools: Tools = ()
        self._variants: tuple[PromptVariant, ...] = ()
        self._ids: dict[str, int | Located] = {}
        with collector_paused():
            items = self._open()
            first = next(items, None)
            if first is not None and first[0] == "header":
                self._take_header(first[1], first[2])
                first = None
            self._items = itertools.chain([first] if first else [], items)
            # A YAML file is in memory already, so its cases are built at once, before the
            # collector runs again and walks the whole parsed file; after a header error (or
            # without ``build_now``) they are read only if asked for, as a JSONL file's are.
            eager = build_now and not self.streams and not self.report.errors
            self._built = self._all_cases() if eager else None
        self.info = SuiteInfo(
            self.path,
            self.report.path,
            project,
            self.header.dataset if self.header and self.header.dataset else self.path.stem,
            self.header.description if self.header else None,
            resolver,
            variants=self._variants,
        )

    @property
    def default_target(self) -> str | None:
        """The file's own target (``execution.target``, else ``target``), if it names one."""
        return self._target

    @property
    def file_tools(self) -> Tools:
        """The tools the file's header offers every case (docs/tools.md#declaring-tools)."""
        return self._tools

    def cases(self) -> Iterator[LoadedCase]:
        """The file's valid cases, in order: a JSONL file's (and a template case's records,
        docs/eval-files.md#datasets-and-variables) read and checked one by one as they are
        asked for, a YAML file's built when it was read."""
        if self._built is not None:
            built, self._built = self._built, []
            yield from built
            return
        pending: Iterator[LoadedCase] = iter(())
        while True:
            # Paused per case, not across the ``yield``: the caller's code runs as usual.
            with collector_paused():
                case = next(pending, None)
                while case is None:
                    item = next(self._items, None)
                    if item is None:
                        break
                    pending = self._item_cases(item)
                    case = next(pending, None)
            if case is None:
                return
            yield case

    def _all_cases(self) -> list[LoadedCase]:
        return [case for item in self._items for case in self._item_cases(item)]

    def _item_cases(self, item: Item) -> Iterator[LoadedCase]:
        if item[0] != "case":
            return
        data, where = item[1], item[2]
        if not is_template(data):
            case = self._case(data, where)
            if case is not None:
                yield case
            return
        assert isinstance(data, dict)
        base = str(self.path.parent)
        template = TemplateCase(
            data, where, self.builder.resolver, base, self.report, file_evaluators(self.header)
        )
        for record in template.cases():
            start = len(self.report.items)
            case = self._case(record.data, record.where, verbatim=record.verbatim)
            template.relabel(start, record.label)
            if case is not None:
                yield dataclasses.replace(case, vars=record.vars)

    def _open(self) -> Iterator[Item]:
        suffix = self.path.suffix.lower()
        if suffix not in EVAL_SUFFIXES:
            self.report.error(1, 1, "", "not an eval file: expected a .yaml, .yml or .jsonl file")
            return iter(())
        if suffix == ".jsonl":
            self.estimated_cases = count_lines(self.path)
            return jsonl_items(self.path, self.report)
        text = read_text(self.path, self.report)
        return _yaml_items(text, self) if text is not None else iter(())

    def _take_header(self, header: FileHeader | None, where: Located) -> None:
        if header is None:
            return
        self.header = header
        if raw_field(header, "evaluator") is not None:
            self.builder.warning(
                where.at("evaluator"),
                "legacy key 'evaluator': use 'execution.evaluators' (llm_judge is the default)",
                key=True,
            )
        execution = header.execution
        self.builder.check_target(header.target, where.at("target"))
        self.builder.check_target(
            execution.target if execution else None, where.at("execution", "target")
        )
        self._target = execution.target if execution and execution.target else header.target
        if header.tools is not None:
            self._tools = self.builder.tools.declared(header.tools, where.at("tools"))
        if header.prompts is not None:
            self._variants = self.builder.variants(header.prompts, where.at("prompts"))
        self.builder.file_execution = execution
        self.builder.file_workspace = self.builder.workspace(
            header.workspace, where.at("workspace")
        )
        if execution and execution.evaluators is not None:
            self._defaults = self.builder.evaluators(
                execution.evaluators, where.at("execution", "evaluators")
            )

    def _case(
        self, data: JsonValue, where: Located, *, verbatim: bool = False
    ) -> LoadedCase | None:
        data = upgrade_case(
            data, where, lambda at, message: self.builder.warning(at, message, key=True)
        )
        spec: EvalCase | None = validate(EvalCase, data, where.positions, self.report, where.path)
        if spec is None:
            return None
        first = self._ids.get(spec.id)
        if first is not None:
            line, col = where.positions.value((*where.path, "id"))
            if isinstance(first, Located):
                first = first.positions.line((*first.path, "id"))
            message = f"duplicate case id {spec.id!r} (first at line {first})"
            self.report.error(line, col, format_field((*where.path, "id")), message)
        else:
            # A YAML case's line is looked up only for a duplicate: it may need every position
            # of the file; a JSONL line's is at hand, and the line itself is not kept.
            kept = where.positions.line((*where.path, "id")) if self.streams else where
            self._ids[spec.id] = kept
        errors = len(self.report.errors)
        tags = self.header.tags if self.header else None
        case = self.builder.build(
            spec, where, self._defaults, self._target, tags, self._tools, verbatim=verbatim
        )
        if case is not None and self.header is not None and self.header.system_prompt == "none":
            case = replace(case, system_prompt="")
        return case if len(self.report.errors) == errors else None


def _yaml_items(text: str, reader: SuiteReader) -> Iterator[Item]:
    report = reader.report
    parsed = parse(text, report, large=True)
    if parsed is None:
        return
    data, positions = parsed
    if data is None:
        report.error(1, 1, "", "the file is empty: expected a mapping with 'evalcases'")
        return
    if not isinstance(data, dict):
        report.error(1, 1, "", f"expected a mapping with 'evalcases', got {type_name(data)}")
        return
    _agentv_tests(data, positions, report)
    header = validate(_YamlHeader, data, positions, report)
    cases = data.get("evalcases")
    if isinstance(cases, list) and any(is_template(case) for case in cases):
        # A dataset's records are read as the run asks for cases; known before the header is
        # taken, as is their estimated count (the run's progress).
        reader.streams = True
        base, resolver = str(reader.path.parent), reader.builder.resolver
        reader.estimated_cases = sum(estimated_records(c, resolver, base) for c in cases)
    yield "header", header, Located((), positions)
    if isinstance(cases, list):
        if not reader.streams:
            reader.estimated_cases = len(cases)
        for index in range(len(cases)):
            # Each case's data is let go once it is built: the file is not held twice.
            case, cases[index] = cases[index], None
            yield "case", case, Located(("evalcases", index), positions)


def _agentv_tests(data: dict[str, JsonValue], positions: Positions, report: Report) -> None:
    """AgentV 0.26 to 2.5 wrote ``tests:`` for ``evalcases:`` (docs/agentv.md)."""
    if isinstance(data.get("tests"), list) and "evalcases" not in data:
        line, col = positions.key(("tests",))
        report.warning(line, col, "tests", "legacy key 'tests': use 'evalcases'")
        data["evalcases"] = data.pop("tests")
        positions.rename((), "tests", "evalcases")


def check_eval_file(
    path: str | os.PathLike[str],
    project: Project | None = None,
    resolver: FileResolver | None = None,
    *,
    target_names: set[str] | None = None,
    each: Callable[[LoadedCase], None] | None = None,
    keep_cases: bool = True,
) -> tuple[LoadedSuite | None, list[Diagnostic]]:
    """Read a whole eval file: the suite (``None`` on errors) and every diagnostic.

    With ``target_names``, every target the file names must be one of them. ``each`` sees
    every valid case as it is built; without ``keep_cases`` the suite holds none of them, so
    a large file is never in memory whole as cases.
    """
    absolute = Path(os.path.abspath(path))
    diagnostics: list[Diagnostic] = []
    if project is None:
        project, config_report = Project.load(find_project_root(absolute))
        if config_report is not None:
            diagnostics.extend(config_report.items)
    kept: list[LoadedCase] = []
    with collector_paused():
        reader = SuiteReader(
            absolute,
            project,
            resolver or FileResolver(project),
            target_names=target_names,
            build_now=False,
        )
        for case in reader.cases():
            if each is not None:
                each(case)
            if keep_cases:
                kept.append(case)
    cases = tuple(kept)
    diagnostics.extend(sorted(reader.report.items, key=lambda d: (d.line, d.col)))
    if any(d.severity == "error" for d in diagnostics):
        return None, diagnostics
    info = reader.info
    suite = LoadedSuite(
        info.path,
        info.display_path,
        info.project,
        info.dataset,
        info.description,
        info.resolver,
        cases,
        variants=info.variants,
    )
    return suite, diagnostics


def load_eval_file(
    path: str | os.PathLike[str],
    project: Project | None = None,
    resolver: FileResolver | None = None,
) -> LoadedSuite:
    """Read a whole eval file; raise :class:`LoadError` with every error found."""
    suite, diagnostics = check_eval_file(path, project, resolver)
    if suite is None:
        raise LoadError([d for d in diagnostics if d.severity == "error"])
    return suite
