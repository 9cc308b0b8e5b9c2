"""Load eval files (YAML or JSONL) into :class:`EvalSuite` objects, reporting every problem."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from evalwright.errors import LoadError
from evalwright.evalfile.cases import CaseBuilder, Located
from evalwright.evalfile.diagnostics import Diagnostic, Report, format_field
from evalwright.evalfile.evaluator_specs import DEFAULT_JUDGE
from evalwright.evalfile.models import EvalCaseSpec, JsonlHeader, raw_field
from evalwright.evalfile.models import _FileHeader as FileHeader  # pyright: ignore[reportPrivateUsage]
from evalwright.evalfile.project import Project, display_path, find_project_root, read_text
from evalwright.evalfile.references import FileResolver
from evalwright.evalfile.resolved import EvalCase, EvalSuite, Evaluator
from evalwright.evalfile.source import Positions, parse_json_line, parse_yaml
from evalwright.evalfile.validation import type_name, validate

EVAL_SUFFIXES = (".yaml", ".yml", ".jsonl")


class _YamlHeader(FileHeader):
    """A YAML file's top level, validated apart from its cases so each case is checked alone."""

    evalcases: Annotated[list[Any], Field(min_length=1)]


def load_eval_file(
    path: str | os.PathLike[str],
    project: Project | None = None,
    resolver: FileResolver | None = None,
) -> EvalSuite:
    """Load one eval file; raise :class:`LoadError` with every error found."""
    suite, diagnostics = check_eval_file(path, project, resolver)
    if suite is None:
        raise LoadError([d for d in diagnostics if d.severity == "error"])
    return suite


def check_eval_file(
    path: str | os.PathLike[str],
    project: Project | None = None,
    resolver: FileResolver | None = None,
    *,
    target_names: set[str] | None = None,
) -> tuple[EvalSuite | None, list[Diagnostic]]:
    """Load one eval file, returning the suite (``None`` on errors) and every diagnostic.

    With ``target_names``, every target the file names must be one of them.
    """
    absolute = Path(os.path.abspath(path))
    diagnostics: list[Diagnostic] = []
    if project is None:
        project, config_report = Project.load(find_project_root(absolute))
        if config_report is not None:
            diagnostics.extend(config_report.items)
    resolver = resolver or FileResolver(project)
    report = Report(display_path(absolute))
    loaded = _load(absolute, resolver, report, target_names)
    diagnostics.extend(sorted(report.items, key=lambda d: (d.line, d.col)))
    if loaded is None or report.errors or any(d.severity == "error" for d in diagnostics):
        return None, diagnostics
    header, cases = loaded
    dataset = header.dataset if header and header.dataset else absolute.stem
    suite = EvalSuite(
        absolute,
        report.path,
        project,
        dataset,
        header.description if header else None,
        tuple(cases),
        resolver,
    )
    return suite, diagnostics


def _load(
    path: Path,
    resolver: FileResolver,
    report: Report,
    target_names: set[str] | None,
) -> tuple[FileHeader | None, list[EvalCase]] | None:
    if path.suffix.lower() not in EVAL_SUFFIXES:
        report.error(1, 1, "", "not an eval file: expected a .yaml, .yml or .jsonl file")
        return None
    text = read_text(path, report)
    if text is None:
        return None
    builder = CaseBuilder(resolver, str(path.parent), report, target_names)
    items = (
        _jsonl_items(text, report) if path.suffix.lower() == ".jsonl" else _yaml_items(text, report)
    )
    return _build(items, builder, report)


Item = tuple[Any, Located]


def _yaml_items(text: str, report: Report) -> Iterator[tuple[str, Any, Located]]:
    parsed = parse_yaml(text, report)
    if parsed is None:
        return
    data, root = parsed
    positions = Positions(root)
    if data is None:
        report.error(1, 1, "", "the file is empty: expected a mapping with 'evalcases'")
        return
    if not isinstance(data, dict):
        report.error(1, 1, "", f"expected a mapping with 'evalcases', got {type_name(data)}")
        return
    header: Any = validate(_YamlHeader, data, positions, report)
    yield "header", header, Located((), positions)
    cases: Any = data.get("evalcases")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if isinstance(cases, list):
        for index, case in enumerate(cases):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            yield "case", case, Located(("evalcases", index), positions)


def _jsonl_items(text: str, report: Report) -> Iterator[tuple[str, Any, Located]]:
    first = True
    seen_case = False
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        parsed = parse_json_line(line, number, report)
        is_first, first = first, False
        if parsed is None:
            continue
        data, positions = parsed
        where = Located((), positions)
        if not isinstance(data, dict):
            report.error(number, 1, "", f"expected a JSON object, got {type_name(data)}")
        elif is_first and "id" not in data:
            yield "header", validate(JsonlHeader, data, positions, report), where
        else:
            seen_case = True
            yield "case", data, where
    if not seen_case and not report.errors:
        report.error(1, 1, "", "the file has no eval cases")


def _build(
    items: Iterator[tuple[str, Any, Located]],
    builder: CaseBuilder,
    report: Report,
) -> tuple[FileHeader | None, list[EvalCase]] | None:
    header: FileHeader | None = None
    defaults: tuple[Evaluator, ...] = (Evaluator(DEFAULT_JUDGE),)
    file_target: str | None = None
    cases: list[EvalCase] = []
    ids: dict[str, int] = {}
    for kind, data, where in items:
        if kind == "header":
            if data is None:
                continue
            header = data
            defaults, file_target = _file_defaults(data, builder, where)
            continue
        spec: EvalCaseSpec | None = validate(
            EvalCaseSpec, data, where.positions, report, where.path
        )
        if spec is None:
            continue
        line, col = where.positions.value((*where.path, "id"))
        if spec.id in ids:
            report.error(
                line,
                col,
                _field(where, "id"),
                f"duplicate case id {spec.id!r} (first at line {ids[spec.id]})",
            )
        ids.setdefault(spec.id, line)
        case = builder.build(spec, where, defaults, file_target)
        if case is not None:
            cases.append(case)
    return header, cases


def _field(where: Located, key: str) -> str:
    return format_field((*where.path, key))


def _file_defaults(
    header: FileHeader,
    builder: CaseBuilder,
    where: Located,
) -> tuple[tuple[Evaluator, ...], str | None]:
    if raw_field(header, "evaluator") is not None:
        builder.warning(
            where.at("evaluator"),
            "legacy key 'evaluator': use 'execution.evaluators' (llm_judge is the default)",
            key=True,
        )
    execution = header.execution
    builder.check_target(header.target, where.at("target"))
    builder.check_target(execution.target if execution else None, where.at("execution", "target"))
    target = execution.target if execution and execution.target else header.target
    if execution and execution.evaluators is not None:
        return builder.evaluators(execution.evaluators, where.at("execution", "evaluators")), target
    return (Evaluator(DEFAULT_JUDGE),), target
