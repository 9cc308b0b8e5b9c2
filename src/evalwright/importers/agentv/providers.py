"""The targets of an AgentV project: the nearest ``.agentv/providers.yaml`` above a suite (or
the file ``.agentv/config.yaml`` names under ``providers``), each provider AgentV and
evalwright share carried, the rest noted (docs/agentv.md#providers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalwright.files.diagnostics import format_field
from evalwright.importers.promptfoo.notes import Notes
from evalwright.importers.promptfoo.sources import FILE_PREFIX, Source, load_yaml, mapping
from evalwright.targets.agentv_providers import Field, provider_targets


def providers_file(start: Path) -> Path | None:
    """The providers file of the nearest ``.agentv`` directory at or above ``start``."""
    for directory in (start.resolve(), *start.resolve().parents):
        settings = directory / ".agentv"
        if not settings.is_dir():
            continue
        named = _named_in_config(settings / "config.yaml")
        if named is not None:
            return named
        found = settings / "providers.yaml"
        return found if found.is_file() else None
    return None


def _named_in_config(config: Path) -> Path | None:
    if not config.is_file():
        return None
    value = (mapping(load_yaml(config).data) or {}).get("providers")
    if isinstance(value, str):
        named = config.parent / value.removeprefix(FILE_PREFIX)
        return named if named.is_file() else None
    return None


def project_targets(start: Path, notes: Notes) -> list[dict[str, Any]]:
    """The target entries of the providers file above ``start`` (none when there is none)."""
    path = providers_file(start)
    if path is None:
        return []
    source: Source = load_yaml(path)

    def report(where: Field, message: str) -> None:
        notes.add(source.shown, format_field(where), message)

    return [carried.entry for carried in provider_targets(source.data, report)]
