"""The tools an eval file and its cases offer the model, read and checked
(docs/tools.md#declaring-tools): inline tools and tools files, each parameters schema
against its meta-schema, names once per list, and ``tool_choice`` against what is offered."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from evalwright.evalfile.action_specs import TrajectoryMatchSpec
from evalwright.evalfile.located import Located, report_at
from evalwright.evalfile.models import EvalCase, ToolItem, ToolsFile
from evalwright.evalfile.references import FileResolver, ReferenceProblem
from evalwright.evalfile.resolved import CaseMessage, Evaluator
from evalwright.files.base import FileModel
from evalwright.files.diagnostics import Report
from evalwright.files.project import display_path
from evalwright.files.reading import UnreadableFile, read_limited
from evalwright.files.source import parse
from evalwright.files.text import normalize_newlines
from evalwright.files.validation import type_name, validate
from evalwright.jsontext import JsonValue
from evalwright.targets.tools import (
    McpTools,
    SchemaProblem,
    ToolChoiceName,
    ToolSpec,
    parameters_problems,
)

Tools = tuple[ToolSpec | McpTools, ...]
"""A ``tools:`` list read: tools, and MCP servers whose tools are listed when the run starts."""
_Entry = tuple[ToolSpec, Located]
"""A tool and where the list names it: its own ``name``, or the ``file`` it came from."""


class _FunctionTool(FileModel):
    """OpenAI's form of a tool in a tools file: ``{type: function, function: {...}}``."""

    type: Literal["function"]
    function: ToolSpec


@dataclass(frozen=True, slots=True)
class Offered:
    """What a case offers: its declared tools, and the MCP servers whose tools join them."""

    tools: tuple[ToolSpec, ...] = ()
    servers: tuple[McpTools, ...] = ()


def offered(inherited: Tools, own: Tools, *, replace: bool) -> Offered:
    """A case's tools: the inherited ones (none with ``replace``) in their order, a tool of the
    same name replaced where it stands, then the case's new ones in order; the inherited MCP
    servers, then the case's."""
    both = (*(() if replace else inherited), *own)
    merged: dict[str, ToolSpec] = {}
    for tool in both:
        if isinstance(tool, ToolSpec):
            merged[tool.name] = tool
    servers = tuple(server for server in both if isinstance(server, McpTools))
    return Offered(tuple(merged.values()), servers)


class ToolDeclarations:
    """Reads ``tools:`` lists of one eval file, reporting problems into its report; each tools
    file is read once."""

    def __init__(self, resolver: FileResolver, base_dir: str, report: Report) -> None:
        self.resolver = resolver
        self.base_dir = base_dir
        self.report = report
        self._files: dict[str, tuple[ToolSpec, ...] | None] = {}

    def declared(self, items: Sequence[ToolItem | McpTools], where: Located) -> Tools:
        """The tools of one ``tools:`` list, files expanded in place, each command's directory
        resolved; problems reported."""
        entries: list[_Entry] = []
        servers: list[McpTools] = []
        for index, item in enumerate(items):
            here = where.at(index)
            if isinstance(item, ToolsFile):
                tools = self._file(item.file, here.at("file"))
                entries.extend((tool, here.at("file")) for tool in tools or ())
            elif isinstance(item, McpTools):
                servers.append(self._server(item, here))
            else:
                _check_tool(item, here, self.report)
                tool = self._placed(item, self.base_dir, here)
                entries.append((tool, here.at("name")))
        _check_names(entries, self.report)
        return (*(tool for tool, _ in entries), *servers)

    def case_tools(self, spec: EvalCase, inherited: Tools, where: Located) -> Offered:
        """A case's effective tools, its ``tool_choice`` checked against them (a name only
        when no MCP server may list it)."""
        own = self.declared(spec.tools, where.at("tools")) if spec.tools is not None else ()
        found = offered(inherited, own, replace=bool(spec.tools_replace))
        tools = found.tools
        choice = spec.settings.tool_choice if spec.settings else None
        at = where.at("settings", "tool_choice")
        if choice is not None and not tools and not found.servers:
            severity = "warning" if choice in ("auto", "none") else "error"
            report_at(self.report, at, severity, "the case offers no tools (give 'tools:')")
        elif (
            isinstance(choice, ToolChoiceName)
            and not found.servers
            and choice.name not in {t.name for t in tools}
        ):
            names = ", ".join(t.name for t in tools)
            message = f"{choice.name!r} is not one of the case's tools ({names})"
            report_at(self.report, at.at("name"), "error", message)
        return found

    def _placed(self, tool: ToolSpec, base_dir: str, where: Located) -> ToolSpec:
        """A tool whose command runs in its resolved directory (docs/tools.md#commands)."""
        if tool.command is None:
            return tool
        return tool.model_copy(update={"cwd": self._directory(tool.cwd, base_dir, where)})

    def _server(self, item: McpTools, where: Located) -> McpTools:
        """An MCP server entry whose command runs in its resolved directory."""
        if item.mcp.command is None:
            return item
        cwd = self._directory(item.mcp.cwd, self.base_dir, where.at("mcp"))
        return item.model_copy(update={"mcp": item.mcp.model_copy(update={"cwd": cwd})})

    def _directory(self, cwd: str | None, base_dir: str, where: Located) -> str:
        if cwd is None:
            return base_dir
        try:
            return self.resolver.resolve_dir(cwd, base_dir)
        except ReferenceProblem as exc:
            report_at(self.report, where.at("cwd"), "error", str(exc))
            return base_dir

    def _file(self, reference: str, where: Located) -> tuple[ToolSpec, ...] | None:
        try:
            resolved = self.resolver.resolve(reference, self.base_dir, classify=False)
        except ReferenceProblem as exc:
            report_at(self.report, where, "error", str(exc))
            return None
        if resolved.path not in self._files:
            errors = len(self.report.errors)
            tools = self._read(resolved.path, where)
            if tools is not None:
                here = os.path.dirname(resolved.path)
                tools = tuple(self._placed(tool, here, where) for tool in tools)
            self._files[resolved.path] = tools if len(self.report.errors) == errors else None
        tools = self._files[resolved.path]
        if tools is None:
            # Its own errors are reported once, in it; each list using it says so here.
            message = f"the tools file {reference!r} has errors (each reported in it)"
            report_at(self.report, where, "error", message)
        return tools

    def _read(self, real: str, where: Located) -> tuple[ToolSpec, ...] | None:
        """A tools file's tools; its problems reported at their place in it."""
        limit = self.resolver.project.config.max_file_bytes
        try:
            # Read again as written (the resolver's copy is tidied): lines stay exact.
            text = read_limited(real, limit, "max_file_bytes").decode("utf-8")
        except (UnreadableFile, UnicodeDecodeError) as exc:
            report_at(self.report, where, "error", f"cannot read the tools file: {exc}")
            return None
        own = Report(display_path(real))
        tools = _file_tools(normalize_newlines(text.removeprefix("\ufeff")), own)
        self.report.items.extend(own.items)
        return tools


def _file_tools(text: str, report: Report) -> tuple[ToolSpec, ...] | None:
    """The tools of a tools file's text: a list of tools, each as evalwright writes one or in
    OpenAI's ``{type: function, function: ...}`` form."""
    parsed = parse(text, report)
    if parsed is None:
        return None
    data, positions = parsed
    if not isinstance(data, list):
        report.error(1, 1, "", f"expected a list of tools, got {type_name(data)}")
        return None
    entries: list[_Entry] = []
    for index, item in enumerate(data):
        here = Located((index,), positions)
        tool = _file_tool(item, here, report)
        if tool is not None:
            entries.append(tool)
    _check_names(entries, report)
    return tuple(tool for tool, _ in entries)


def _file_tool(item: JsonValue, where: Located, report: Report) -> _Entry | None:
    if isinstance(item, dict) and ("function" in item or item.get("type") == "function"):
        wrapped = validate(_FunctionTool, item, where.positions, report, where.path)
        if wrapped is None:
            return None
        tool, where = wrapped.function, where.at("function")
    else:
        tool = validate(ToolSpec, item, where.positions, report, where.path)
        if tool is None:
            return None
    _check_tool(tool, where, report)
    return tool, where.at("name")


def _check_tool(tool: ToolSpec, where: Located, report: Report) -> None:
    """A tool's written ``parameters`` must be a JSON Schema of an object."""
    if "parameters" not in tool.model_fields_set:
        return
    for path, message in _schema_problems(tool.parameters):
        report_at(report, where.at("parameters", *path), "error", message)


_CHECKED: dict[str, list[SchemaProblem]] = {}
_CHECKED_SIZE = 4096


def _schema_problems(parameters: dict[str, JsonValue]) -> list[SchemaProblem]:
    """:func:`parameters_problems`, once per schema: a large JSONL suite repeats the same
    inline tools in every case, and a meta-schema check takes about a millisecond."""
    key = json.dumps(parameters, sort_keys=True, separators=(",", ":"))
    found = _CHECKED.get(key)
    if found is None:
        if len(_CHECKED) >= _CHECKED_SIZE:
            _CHECKED.clear()
        found = _CHECKED[key] = parameters_problems(parameters)
    return found


def _check_names(entries: Sequence[_Entry], report: Report) -> None:
    first: dict[str, Located] = {}
    for tool, where in entries:
        seen = first.setdefault(tool.name, where)
        if seen is not where:
            line = seen.positions.line(seen.path)
            message = f"duplicate tool name {tool.name!r} (first at line {line})"
            report_at(report, where, "error", message)


def trajectory_check(
    spec: EvalCase,
    evaluators: Sequence[Evaluator],
    expected: Sequence[CaseMessage],
    where: Located,
    report: Report,
) -> None:
    """``trajectory_match`` needs an expected assistant turn, whose calls are the trajectory
    (docs/tools.md#trajectory_match): an error at each one a case without it has."""
    if any(m.role == "assistant" for m in expected):
        return
    own = spec.execution is not None and spec.execution.evaluators is not None
    for index, evaluator in enumerate(evaluators):
        if isinstance(evaluator.spec, TrajectoryMatchSpec):
            at = where.at("execution", "evaluators", index) if own else where.at("id")
            message = (
                f"{'' if own else 'the file evaluator '}trajectory_match needs the expected "
                "trajectory: give expected_messages with an assistant turn holding its tool_calls"
            )
            report_at(report, at, "error", message)
