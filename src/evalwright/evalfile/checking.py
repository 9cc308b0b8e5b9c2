"""Validate many paths at once: eval files, and each project's config (``validate``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from evalwright.evalfile.diagnostics import Diagnostic, Report, format_field
from evalwright.evalfile.loader import EVAL_SUFFIXES, check_eval_file
from evalwright.evalfile.project import CONFIG_DIRS, Project, display_path, find_project_root
from evalwright.evalfile.references import FileResolver
from evalwright.evalfile.targets import TargetsFile
from evalwright.evalfile.targets_load import load_targets_located
from evalwright.evalfile.targets_resolve import unset_variables
from evalwright.evalfile.variables import Environment

_YAML_EVAL = re.compile(r"^evalcases\s*:", re.MULTILINE)


@dataclass(slots=True)
class ValidationResult:
    """What ``validate`` found: every diagnostic, in file order, and how many files it read."""

    diagnostics: list[Diagnostic] = field(default_factory=list[Diagnostic])
    files: int = 0


def find_eval_files(directory: Path) -> Iterator[Path]:
    """Eval files under ``directory``: JSONL files, and YAML files with ``evalcases``.

    Dot-directories (``.git``, ``.evalwright``, ...) are skipped.
    """
    for current, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
        for name in sorted(names):
            path = Path(current, name)
            suffix = path.suffix.lower()
            if suffix == ".jsonl" or (suffix in EVAL_SUFFIXES and _looks_like_eval(path)):
                yield path


def _looks_like_eval(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return bool(_YAML_EVAL.search(handle.read(1 << 20)))
    except OSError:
        return True  # let the loader report why it cannot be read


def _expand(paths: Iterable[str], result: ValidationResult) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from find_eval_files(path)
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
        self.target_names: set[str] | None = None
        targets_path = self.project.targets_path
        if targets_path is not None:
            targets = check_targets_file(targets_path, result, checked)
            if targets is not None:
                self.target_names = {t.name for t in targets.targets}


def check_targets_file(
    path: Path,
    result: ValidationResult,
    checked: set[Path],
) -> TargetsFile | None:
    """Validate a targets file once: errors, AgentV forms, unset variables."""
    if path in checked:
        return None
    checked.add(path)
    report = Report(display_path(path))
    loaded = load_targets_located(path, report)
    if loaded is not None:
        targets, positions = loaded
        env = Environment(path.parent.parent)
        for index, target in enumerate(targets.targets):
            for field_path, name in unset_variables(target, env):
                full = ("targets", index, *field_path)
                line, col = positions.value(full)
                message = f"variable {name} is not set (in the environment or .env)"
                report.warning(line, col, format_field(full), message)
    result.diagnostics.extend(sorted(report.items, key=lambda d: (d.line, d.col)))
    result.files += 1
    return loaded[0] if loaded else None


def _project_file(path: Path) -> str | None:
    if path.parent.name in CONFIG_DIRS and path.name in ("targets.yaml", "config.yaml"):
        return path.name
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
        _, diagnostics = check_eval_file(
            absolute, check.project, check.resolver, target_names=check.target_names
        )
        result.diagnostics.extend(diagnostics)
        result.files += 1
    if not result.files and not result.diagnostics:
        shown = ", ".join(display_path(p) for p in paths)
        result.diagnostics.append(Diagnostic(shown, 1, 1, "error", "", "no eval files found"))
    return result
