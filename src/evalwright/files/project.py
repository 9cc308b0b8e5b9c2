"""The project root, and where ``config.yaml`` and ``targets.yaml`` are read from
(docs/eval-files.md#the-project-root-and-evalwrightconfigyaml)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from evalwright.files.config import ProjectConfig
from evalwright.files.diagnostics import Report
from evalwright.files.globs import GlobSet
from evalwright.files.reading import MAX_EVAL_FILE_BYTES, UnreadableFile, read_limited
from evalwright.files.source import Positions, parse
from evalwright.files.text import normalize_newlines
from evalwright.files.validation import validate
from evalwright.jsontext import JsonValue

CONFIG_DIRS = (".evalwright", ".agentv")
AGENTV_PROVIDERS = ".agentv/providers.yaml"
"""AgentV HEAD's provider definitions, read as targets when the project has no targets file
(docs/agentv.md#providers)."""
ROOT_MARKERS = (
    *(f"{d}/{name}" for d in CONFIG_DIRS for name in ("config.yaml", "targets.yaml")),
    AGENTV_PROVIDERS,
)


def find_project_root(eval_file: str | os.PathLike[str]) -> Path:
    """The nearest ancestor holding a config or targets file, else ``.git``, else its directory."""
    start = Path(os.path.abspath(eval_file)).parent
    ancestors = (start, *start.parents)
    for directory in ancestors:
        if any((directory / marker).is_file() for marker in ROOT_MARKERS):
            return directory
    for directory in ancestors:
        if (directory / ".git").exists():
            return directory
    return start


def project_file(root: Path, name: str) -> Path | None:
    """``<root>/.evalwright/NAME`` when present, else ``<root>/.agentv/NAME``, else ``None``."""
    for directory in CONFIG_DIRS:
        candidate = root / directory / name
        if candidate.is_file():
            return candidate
    return None


def display_path(path: str | os.PathLike[str]) -> str:
    """A path as shown in messages: relative to the working directory when inside it."""
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute)
    return absolute if relative.startswith("..") else relative


def read_text(path: Path, report: Report) -> str | None:
    """A user file's text (UTF-8, BOM removed, LF line ends); ``None`` after an error."""
    try:
        data = read_limited(path, MAX_EVAL_FILE_BYTES)
    except UnreadableFile as exc:
        report.error(1, 1, "", str(exc))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        before = data[data.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8", "replace")
        report.error(line, len(before) + 1, "", "the file is not valid UTF-8")
        return None
    return normalize_newlines(text.removeprefix("\ufeff"))


def read_yaml(path: Path, report: Report) -> tuple[JsonValue, Positions] | None:
    """A user's YAML file as data and positions; ``None`` after reporting why it cannot be."""
    text = read_text(path, report)
    return parse(text, report) if text is not None else None


def load_config(path: Path, report: Report) -> ProjectConfig | None:
    """Load ``config.yaml``; an empty file means every default."""
    parsed = read_yaml(path, report)
    if parsed is None:
        return None
    data, positions = parsed
    if data is None:
        return ProjectConfig()
    if isinstance(data, dict) and path.parent.name == ".agentv":
        data = _without_agentv_keys(data, positions, report)
    config: ProjectConfig | None = validate(ProjectConfig, data, positions, report)
    return config


AGENTV_CONFIG_KEYS = {
    "providers": "targets are read from .agentv/targets.yaml, else .agentv/providers.yaml",
    "defaults": "name the target with --target or the eval file's 'target'",
    "eval_patterns": "evalwright finds eval files by their 'evalcases' key",
    "execution": "use evalwright's options (docs/running.md)",
    "tests": "evalwright does not read AgentV's shared tests",
}
"""AgentV's later ``.agentv/config.yaml`` keys evalwright reads past with a warning, and what
to do instead (docs/agentv.md#agentv-today)."""


def _without_agentv_keys(
    data: dict[str, JsonValue], positions: Positions, report: Report
) -> dict[str, JsonValue]:
    """An AgentV config without the keys evalwright ignores, each one warned about."""
    kept = dict(data)
    for key, instead in AGENTV_CONFIG_KEYS.items():
        if key in kept:
            del kept[key]
            line, col = positions.value((key,))
            report.warning(line, col, key, f"AgentV key '{key}' is ignored: {instead}")
    return kept


@dataclass(slots=True)
class Project:
    """A project root with its config; one per run, shared by every eval file."""

    root: Path
    config: ProjectConfig = field(default_factory=ProjectConfig)
    config_path: Path | None = None
    guidelines: GlobSet = field(init=False)

    def __post_init__(self) -> None:
        self.guidelines = GlobSet(self.config.guideline_patterns)

    @property
    def targets_path(self) -> Path | None:
        """Where this project's targets file is, if it has one: ``targets.yaml``, else
        AgentV's ``.agentv/providers.yaml``."""
        providers = self.root / AGENTV_PROVIDERS
        found = project_file(self.root, "targets.yaml")
        return found or (providers if providers.is_file() else None)

    @classmethod
    def load(cls, root: Path) -> tuple[Project, Report | None]:
        """The project at ``root``; the report holds any problem of its config file."""
        config_path = project_file(root, "config.yaml")
        if config_path is None:
            return cls(root), None
        report = Report(display_path(config_path))
        config = load_config(config_path, report)
        return cls(root, config or ProjectConfig(), config_path), report
