"""Checking files: ``evalwright validate`` and :func:`evalwright.validate` (many paths at
once: eval files, and each project's config and targets)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from evalwright.errors import Diagnostic
from evalwright.evalfile.discovery import not_eval_file, survey, survey_notes
from evalwright.evalfile.loader import check_eval_file
from evalwright.evalfile.references import FileResolver
from evalwright.evalfile.resolved import LoadedCase
from evalwright.files.diagnostics import Report, format_field
from evalwright.files.project import CONFIG_DIRS, Project, display_path, find_project_root
from evalwright.files.reading import MAX_EVAL_FILE_BYTES, UnreadableFile, read_limited
from evalwright.files.source import Positions
from evalwright.files.variables import Environment
from evalwright.targets.commands import scripted_placeholders

if TYPE_CHECKING:
    from evalwright.targets.models import ChatTarget, CliTarget, Target, TargetsFile

# The targets, prompt and provider modules are imported only where a project has a targets
# file: checking eval files alone then starts without them (docs/eval-files.md).

PROMPT_ARG_LIMIT = 100 * 1024


def uses_placeholder(target: CliTarget, name: str) -> bool:
    """Whether a cli target's command mentions ``{NAME}`` or ``EVALWRIGHT_NAME``."""
    from evalwright.targets.models import split_command

    variable = re.compile(rf"\bEVALWRIGHT_{name}\b")
    return any(
        "{" + name + "}" in part or variable.search(part) for part in split_command(target.command)
    )


@dataclass(slots=True)
class ValidationResult:
    """What ``validate`` found: every diagnostic, in file order, and how many files it read."""

    diagnostics: list[Diagnostic] = field(default_factory=list[Diagnostic])
    files: int = 0
    notes: list[str] = field(default_factory=list[str])
    """What each file found in a directory was read as, and each skipped file and why
    (docs/running.md#directories)."""


def _expand(paths: Iterable[str], result: ValidationResult) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found, skipped = survey(path)
            result.notes.extend(survey_notes(found, skipped))
            yield from (f.path for f in found)
        elif (why := not_eval_file(path)) is not None:
            result.diagnostics.append(Diagnostic(raw, 1, 1, "error", "", why))
        elif path.exists():
            yield path
        else:
            result.diagnostics.append(
                Diagnostic(raw, 1, 1, "error", "", "no such file or directory")
            )


class _ProjectCheck:
    """One project's config and targets, checked once however many eval files use them."""

    def __init__(self, root: Path, result: ValidationResult, checked: set[Path]) -> None:
        self.project, report = Project.load(root)
        self.resolver = FileResolver(self.project)
        if report is not None and self.project.config_path not in checked:
            result.diagnostics.extend(report.items)
            checked.add(self.project.config_path or root)
        self.targets: TargetsFile | None = None
        targets_path = self.project.targets_path
        if targets_path is not None:
            self.targets = check_targets_file(targets_path, result, checked)

    @property
    def target_names(self) -> set[str] | None:
        """The names the targets file defines (None when there is no usable file)."""
        return {t.name for t in self.targets.targets} if self.targets else None

    def settings_warnings(self, display: str, case: LoadedCase) -> list[Diagnostic]:
        """A case's sampling setting its target cannot take (docs/targets.md#settings)."""
        if self.targets is None:
            return []
        from evalwright.orchestrator.plan import DEFAULT_TARGET
        from evalwright.providers.sampling import foreign_extra_body, unsupported_settings

        target = self.targets.get(case.target or DEFAULT_TARGET)
        if target is None:
            return []
        found: list[Diagnostic] = []
        for key, why in unsupported_settings(target.kind, case.spec.settings):
            message = (
                f"case {case.id!r}: settings.{key} is not sent to target '{target.name}': {why}"
            )
            found.append(Diagnostic(display, case.line, 1, "warning", "settings", message))
        for key, why in foreign_extra_body(target.kind, case.spec.settings):
            where = f"settings.extra_body.{key} (target '{target.name}')"
            message = f"case {case.id!r}: {where} is {why}"
            found.append(Diagnostic(display, case.line, 1, "warning", "settings", message))
        return found

    def tools_errors(self, display: str, case: LoadedCase) -> list[Diagnostic]:
        """Tools offered to a target that cannot take them, or a target's ``tool_choice``
        naming a tool the case does not offer (docs/tools.md#declaring-tools)."""
        if self.targets is None or not (case.tools or case.tool_servers):
            return []
        from evalwright.orchestrator.plan import DEFAULT_TARGET
        from evalwright.targets.kinds import tools_refusal
        from evalwright.targets.tools import ToolChoiceName

        target = self.targets.get(case.target or DEFAULT_TARGET)
        if target is None:
            return []
        refusal = tools_refusal(target.kind.name)
        if refusal is not None:
            message = f"case {case.id!r}: target '{target.name}': {refusal}"
            return [Diagnostic(display, case.line, 1, "error", "tools", message)]
        own = case.spec.settings.tool_choice if case.spec.settings else None
        settings = getattr(target, "settings", None)
        choice = getattr(settings, "tool_choice", None)
        names = [tool.name for tool in case.tools]
        if own is not None or not isinstance(choice, ToolChoiceName) or case.tool_servers:
            return []
        if choice.name in names:
            return []
        message = (
            f"case {case.id!r}: target '{target.name}' sets tool_choice {{name: {choice.name}}}, "
            f"not one of the case's tools ({', '.join(names)})"
        )
        return [Diagnostic(display, case.line, 1, "error", "tools", message)]

    def live_errors(self, display: str, case: LoadedCase) -> list[Diagnostic]:
        """A live conversation (``turns:`` or ``simulated_user:``) on a target that cannot
        hold one, or played by a simulator that is not a chat target
        (docs/conversations.md#targets)."""
        simulated = case.simulated_user
        if self.targets is None or not (case.turns or simulated):
            return []
        from evalwright.orchestrator.plan import DEFAULT_TARGET
        from evalwright.targets.kinds import live_turns_refusal, simulator_refusal

        found: list[Diagnostic] = []
        key = "turns" if case.turns else "simulated_user"
        target = self.targets.get(case.target or DEFAULT_TARGET)
        refusal = live_turns_refusal(target.kind.name) if target is not None else None
        if refusal is not None and target is not None:
            message = f"case {case.id!r}: target '{target.name}': {refusal}"
            found.append(Diagnostic(display, case.line, 1, "error", key, message))
        simulator = self.targets.get(simulated.target) if simulated else None
        refusal = simulator_refusal(simulator.kind.name) if simulator is not None else None
        if refusal is not None and simulator is not None:
            message = f"case {case.id!r}: simulated_user target '{simulator.name}': {refusal}"
            found.append(Diagnostic(display, case.line, 1, "error", "simulated_user", message))
        return found

    def media_errors(self, display: str, case: LoadedCase) -> list[Diagnostic]:
        """Media larger than the case's chat target takes (docs/delivery.md#media-limits)."""
        if self.targets is None:
            return []
        from evalwright.evalfile.resolved import MediaSegment
        from evalwright.orchestrator.plan import DEFAULT_TARGET
        from evalwright.providers.media import limits_problem, refusal
        from evalwright.targets.base import ChatTargetBase

        target = self.targets.get(case.target or DEFAULT_TARGET)
        if not isinstance(target, ChatTargetBase):
            return []
        messages = (*case.input_messages, *(turn.message for turn in case.turns))
        parts = [s for m in messages for s in m.segments if isinstance(s, MediaSegment)]
        api, accepts = target.kind.chat_api, target.accepts_media
        problem = limits_problem(api, parts, accepts) if parts else None
        if problem is None:
            return []
        message = f"case {case.id!r}: target '{target.name}': {problem}"
        kept = [part for part in parts if refusal(api, part, accepts) is None]
        if target.unsupported_media != "omit" or limits_problem(api, kept) is not None:
            return [Diagnostic(display, case.line, 1, "error", "input_messages", message)]
        # Only media it cannot take, which the target sends as markers with a note: said.
        message += " (sent as its marker text: unsupported_media: omit)"
        return [Diagnostic(display, case.line, 1, "warning", "input_messages", message)]

    def prompt_warnings(self, display: str, case: LoadedCase) -> list[Diagnostic]:
        """A ``cli`` target given an over-long ``{PROMPT}`` (use ``{PROMPT_FILE}``)."""
        if self.targets is None:
            return []
        from evalwright.orchestrator.plan import DEFAULT_TARGET
        from evalwright.prompts import build_prompt
        from evalwright.targets.models import CliTarget

        target = self.targets.get(case.target or DEFAULT_TARGET)
        if not isinstance(target, CliTarget) or not uses_placeholder(target, "PROMPT"):
            return []
        size = len(build_prompt(case).question.encode("utf-8"))
        if size <= PROMPT_ARG_LIMIT:
            return []
        message = (
            f"case {case.id!r}: the prompt for target '{target.name}' is {size} "
            f"bytes (over {PROMPT_ARG_LIMIT // 1024} KiB), too long for {{PROMPT}} "
            "or $EVALWRIGHT_PROMPT: use {PROMPT_FILE} or $EVALWRIGHT_PROMPT_FILE"
        )
        return [Diagnostic(display, case.line, 1, "warning", "", message)]


@dataclass(slots=True)
class _CaseWarnings:
    """The warnings about each case against the project's targets, gathered as the cases
    are built (so the cases themselves need not be kept)."""

    check: _ProjectCheck
    display: str
    prompt: list[Diagnostic] = field(default_factory=list[Diagnostic])
    settings: list[Diagnostic] = field(default_factory=list[Diagnostic])
    live: list[Diagnostic] = field(default_factory=list[Diagnostic])

    def __call__(self, case: LoadedCase) -> None:
        self.live.extend(self.check.tools_errors(self.display, case))
        self.live.extend(self.check.live_errors(self.display, case))
        self.live.extend(self.check.media_errors(self.display, case))
        self.prompt.extend(self.check.prompt_warnings(self.display, case))
        self.settings.extend(self.check.settings_warnings(self.display, case))


def check_targets_file(
    path: Path,
    result: ValidationResult,
    checked: set[Path],
) -> TargetsFile | None:
    """Validate a targets file once: errors, AgentV forms, unset variables."""
    from evalwright.targets.load import load_targets_located
    from evalwright.targets.models import ChatTarget, CliTarget
    from evalwright.targets.resolve import unset_variables

    if path in checked:
        return None
    checked.add(path)
    report = Report(display_path(path))
    loaded = load_targets_located(path, report)
    if loaded is not None:
        targets, positions = loaded
        env = Environment(find_project_root(path))
        for index, target in enumerate(targets.targets):
            if isinstance(target, CliTarget):
                _warn_shell_placeholders(target, index, positions, report)
            if isinstance(target, ChatTarget):
                _warn_settings(target, index, positions, report)
            _check_sandbox(target, index, positions, report)
            for field_path, name in unset_variables(target, env):
                full = ("targets", index, *field_path)
                line, col = positions.value(full)
                message = f"variable {name} is not set (in the environment or .env)"
                report.warning(line, col, format_field(full), message)
    result.diagnostics.extend(sorted(report.items, key=lambda d: (d.line, d.col)))
    result.files += 1
    return loaded[0] if loaded else None


def _warn_settings(target: ChatTarget, index: int, positions: Positions, report: Report) -> None:
    """A target's sampling setting its API cannot take: noted on every request, so said now."""
    from evalwright.providers.sampling import foreign_extra_body, unsupported_settings

    for key, why in unsupported_settings(target.kind, target.settings):
        at = ("targets", index, "settings", key)
        line, col = positions.key(at)
        report.warning(line, col, format_field(at), f"not sent: {why}")
    for key, why in foreign_extra_body(target.kind, target.settings):
        at = ("targets", index, "settings", "extra_body", key)
        line, col = positions.key(at)
        report.warning(line, col, format_field(at), why)


def _check_sandbox(target: Target, index: int, positions: Positions, report: Report) -> None:
    """A sandbox this machine cannot run: every case of the target would fail, so it is an
    error now (docs/agents.md#sandboxes)."""
    from evalwright.providers.sandbox import bwrap_problem
    from evalwright.targets.base import AgentTargetBase

    if not isinstance(target, AgentTargetBase) or target.sandbox is None:
        return
    problem = bwrap_problem() if target.sandbox.type == "bwrap" else None
    if problem is not None:
        at = ("targets", index, "sandbox")
        line, col = positions.value(at)
        report.error(line, col, format_field(at), problem)


def _warn_shell_placeholders(
    target: CliTarget, index: int, positions: Positions, report: Report
) -> None:
    """A placeholder inside a shell script works, but the script the shell gets differs from
    the one written: say what it gets (docs/agents.md#shells)."""
    from evalwright.targets.models import split_command

    for element, dialect, names in scripted_placeholders(split_command(target.command)):
        at = ("targets", index, "command")
        line, col = positions.value((*at, element) if isinstance(target.command, list) else at)
        shown = ", ".join(dict.fromkeys(f"{{{name}}}" for name in names))
        if dialect == "sh":
            variables = " ".join(dict.fromkeys(f'"$EVALWRIGHT_{name}"' for name in names))
            message = (
                f"{shown} inside a shell script: the shell gets a reference to the environment "
                f"variable instead, never the value; write it so: {variables}"
            )
        else:
            variables = ", ".join(dict.fromkeys(f"EVALWRIGHT_{name}" for name in names))
            message = (
                f"{shown} after cmd /c is escaped best effort; prefer a script that reads "
                f"the environment: {variables}"
            )
        report.warning(line, col, format_field(at), message)


_TARGETS_KEY = re.compile(r"^targets\s*:", re.MULTILINE)
_EVALCASES_KEY = re.compile(r"^evalcases\s*:", re.MULTILINE)


def _project_file(path: Path) -> str | None:
    """``targets.yaml`` or ``config.yaml`` for a project file; a YAML file that has
    ``targets:`` and no ``evalcases:`` is a targets file wherever it lives."""
    if path.parent.name in CONFIG_DIRS and path.name in ("targets.yaml", "config.yaml"):
        return path.name
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            text = read_limited(path, MAX_EVAL_FILE_BYTES).decode("utf-8", errors="replace")
        except UnreadableFile:
            return None
        # A plain search first: the regular expression is slow over a large eval file.
        maybe = text.startswith("targets") or "\ntargets" in text
        if maybe and _TARGETS_KEY.search(text) and not _EVALCASES_KEY.search(text):
            return "targets.yaml"
    return None


def validate_paths(paths: Iterable[str]) -> ValidationResult:
    """Check every eval file named or found, and once each project config and targets file."""
    result = ValidationResult()
    projects: dict[Path, _ProjectCheck] = {}
    checked: set[Path] = set()
    for path in _expand(paths, result):
        absolute = Path(os.path.abspath(path))
        kind = _project_file(absolute)
        if kind == "targets.yaml":
            check_targets_file(absolute, result, checked)
            continue
        root = absolute.parent.parent if kind else find_project_root(absolute)
        if root not in projects:
            projects[root] = _ProjectCheck(root, result, checked)
        if kind == "config.yaml":
            result.files += 1
            continue
        check = projects[root]
        warned = _CaseWarnings(check, display_path(absolute)) if check.targets else None
        suite, diagnostics = check_eval_file(
            absolute,
            check.project,
            check.resolver,
            target_names=check.target_names,
            each=warned,
            keep_cases=False,
        )
        result.diagnostics.extend(diagnostics)
        if suite is not None and warned is not None:
            result.diagnostics.extend(warned.prompt)
            result.diagnostics.extend(warned.settings)
            result.diagnostics.extend(warned.live)
        result.files += 1
    if not result.files and not result.diagnostics:
        shown = ", ".join(display_path(p) for p in paths)
        result.diagnostics.append(Diagnostic(shown, 1, 1, "error", "", "no eval files found"))
    return result


PathArg = str | os.PathLike[str]


def validate(paths: PathArg | Sequence[PathArg]) -> list[Diagnostic]:
    """Every problem in eval files, directories of them and targets files (and each
    project's config and targets), as ``evalwright validate`` reports them."""
    given = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    return validate_paths([os.fspath(p) for p in given]).diagnostics
