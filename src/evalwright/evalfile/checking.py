"""Validate many paths at once: eval files, and each project's config (``validate``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from evalwright.evalfile.diagnostics import Diagnostic
from evalwright.evalfile.loader import EVAL_SUFFIXES, check_eval_file
from evalwright.evalfile.project import Project, display_path, find_project_root
from evalwright.evalfile.references import FileResolver

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


def validate_paths(paths: Iterable[str]) -> ValidationResult:
    """Check every eval file named or found, and once each project config they use."""
    result = ValidationResult()
    projects: dict[Path, tuple[Project, FileResolver]] = {}
    for path in _expand(paths, result):
        root = find_project_root(path)
        if root not in projects:
            project, report = Project.load(root)
            projects[root] = (project, FileResolver(project))
            if report is not None:
                result.diagnostics.extend(report.items)
        project, resolver = projects[root]
        _, diagnostics = check_eval_file(path, project, resolver)
        result.diagnostics.extend(diagnostics)
        result.files += 1
    if not result.files and not result.diagnostics:
        shown = ", ".join(display_path(p) for p in paths)
        result.diagnostics.append(Diagnostic(shown, 1, 1, "error", "", "no eval files found"))
    return result
