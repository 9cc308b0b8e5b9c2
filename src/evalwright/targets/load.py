"""Load ``targets.yaml``: AgentV forms rewritten to ours (with a warning each), then validated.

Rewriting renames keys in the data and in its position tree alike, so every error still
points at the line the user wrote.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

from evalwright.errors import Diagnostic
from evalwright.files.diagnostics import Report, format_field
from evalwright.files.project import read_yaml
from evalwright.files.source import Positions, PosNode
from evalwright.files.validation import type_name, validate
from evalwright.targets.agentv_providers import Field, provider_targets, targets_positions
from evalwright.targets.models import TargetsFile

PROVIDER_ALIASES = {
    "azure-openai": "azure",
    "google": "gemini",
    "google-gemini": "gemini",
    "codex-cli": "codex",
}
_RETRY_KEYS = {
    "max_retries": "max_retries",
    "retry_initial_delay_ms": "initial_delay_ms",
    "retry_max_delay_ms": "max_delay_ms",
    "retry_backoff_factor": "backoff_factor",
    "retry_status_codes": "retryable_status_codes",
}
_RENAMES: dict[str, dict[str, str]] = {
    "azure": {
        "resource": "endpoint",
        "resource_name": "endpoint",
        "version": "api_version",
        "deployment_name": "deployment",
    },
    "cli": {"command_template": "command", "attachments_format": "files_format"},
    "vscode": {"vscode_cmd": "command"},
    "vscode-insiders": {"vscode_cmd": "command"},
}
_IGNORED: dict[str, set[str]] = {
    "*": {"provider_batching"},
    "codex": {"log_format"},
    "vscode": {"wait", "subagent_root"},
    "vscode-insiders": {"wait", "subagent_root"},
}
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")
# camelCase keys whose snake_case form is not ours (AgentV: ``max_output_tokens ?? maxTokens``).
_CAMEL_KEYS = {"maxTokens": "max_output_tokens"}


def load_targets(path: Path, report: Report) -> TargetsFile | None:
    """Load a targets file; ``None`` after reporting its errors."""
    loaded = load_targets_located(path, report)
    return loaded[0] if loaded else None


def load_targets_located(path: Path, report: Report) -> tuple[TargetsFile, Positions] | None:
    """Load a targets file with the positions of its values (for later warnings)."""
    errors = len(report.errors)
    parsed = read_yaml(path, report)
    if parsed is None:
        return None
    data, positions = parsed
    if path.name == "providers.yaml" and path.parent.name == ".agentv":
        data, positions = _from_providers(data, positions, report)
    if not isinstance(data, dict):
        report.error(1, 1, "", f"expected a mapping with 'targets', got {type_name(data)}")
        return None
    entries = cast(dict[str, Any], data).get("targets")
    if isinstance(entries, list):
        for index, entry in enumerate(cast(list[Any], entries)):
            if isinstance(entry, dict):
                child = positions.node(("targets", index))
                _Normalizer(report, ("targets", index), child).run(cast(dict[str, Any], entry))
    targets: TargetsFile | None = validate(TargetsFile, data, positions, report)
    if targets is not None:
        _check_judges(targets, positions, report)
    if targets is None or len(report.errors) > errors:
        return None
    return targets, positions


def _from_providers(
    data: Any, positions: Positions, report: Report
) -> tuple[dict[str, Any], Positions]:
    """AgentV HEAD's providers file as a targets file, a warning at each provider or setting
    not carried (docs/agentv.md#providers)."""

    def warn(where: Field, message: str) -> None:
        line, col = positions.value(where)
        report.warning(line, col, format_field(where), message)

    found = provider_targets(data, warn)
    return {"targets": [c.entry for c in found]}, targets_positions(found, positions)


def _check_judges(targets: TargetsFile, positions: Positions, report: Report) -> None:
    """Every ``judge_target`` names a target of the file, and not a coding agent."""
    for index, target in enumerate(targets.targets):
        if target.judge_target is None:
            continue
        path = ("targets", index, "judge_target")
        judge = targets.get(target.judge_target)
        if judge is None:
            known = ", ".join(t.name for t in targets.targets)
            message = f"unknown target {target.judge_target!r} (the file defines: {known})"
        elif judge.is_agent:
            message = f"a judge must be a chat API or mock, not {judge.provider}"
        else:
            continue
        line, col = positions.value(path)
        report.error(line, col, format_field(path), message)


class _Normalizer:
    """Rewrites one AgentV target entry in place, warning once per legacy form."""

    def __init__(self, report: Report, path: tuple[str | int, ...], node: PosNode | None):
        self.report = report
        self.path = path
        self.node = node or PosNode(1, 1, 1, 1)

    def warn(self, key: str, message: str, shown: str | None = None) -> None:
        child = self.node.children.get(key, self.node)
        field = format_field((*self.path, shown or key))
        self.report.warning(child.key_line, child.key_col, field, message)

    def error(self, key: str, message: str, shown: str | None = None) -> None:
        child = self.node.children.get(key, self.node)
        field = format_field((*self.path, shown or key))
        self.report.error(child.key_line, child.key_col, field, message)

    def drop(self, entry: dict[str, Any], key: str) -> None:
        del entry[key]
        self.node.children.pop(key, None)

    def rename(self, entry: dict[str, Any], old: str, new: str) -> bool:
        """Rename ``old`` to ``new``; when both are given, report one error and drop ``old``."""
        if new in entry:
            self.error(old, f"give '{new}' or its legacy form '{old}', not both")
            self.drop(entry, old)
            return False
        entry[new] = entry.pop(old)
        if old in self.node.children:
            self.node.children[new] = self.node.children.pop(old)
        return True

    def run(self, entry: dict[str, Any]) -> None:
        provider = entry.get("provider")
        if isinstance(provider, str) and provider in PROVIDER_ALIASES:
            canonical = PROVIDER_ALIASES[provider]
            self.warn("provider", f"legacy provider '{provider}': use '{canonical}'")
            entry["provider"] = provider = canonical
        kind = provider if isinstance(provider, str) else ""
        renames = _RENAMES.get(kind, {})
        ignored = _IGNORED["*"] | _IGNORED.get(kind, set())
        written: dict[str, str] = {}  # a key renamed silently here -> the key as written
        for key in list(entry):
            snake = _CAMEL_KEYS.get(key) or _CAMEL.sub(r"_\1", key).lower()
            new = renames.get(snake, snake)
            if new == key or not self.rename(entry, key, new):
                continue
            if new in ignored or new in _RETRY_KEYS:
                written[new] = key  # warned about below
            else:
                self.warn(new, f"legacy key '{key}': use '{new}'", shown=key)
        if kind == "azure" and "model" in entry and "deployment" not in entry:
            self.rename(entry, "model", "deployment")  # an alias, not a legacy form
        for key in sorted(ignored & set(entry)):
            shown = written.get(key, key)
            self.warn(key, f"legacy key '{shown}' is ignored", shown=shown)
            self.drop(entry, key)
        self._retry(entry, written)
        if kind == "cli" and isinstance(entry.get("healthcheck"), dict):
            self._healthcheck(cast(dict[str, Any], entry["healthcheck"]))

    def _retry(self, entry: dict[str, Any], written: dict[str, str]) -> None:
        flat = [key for key in _RETRY_KEYS if key in entry]
        if not flat:
            return
        if "retry" in entry:
            shown = written.get(flat[0], flat[0])
            self.error(flat[0], "give 'retry' or the flat retry keys, not both", shown=shown)
            for key in flat:
                self.drop(entry, key)
            return
        first = self.node.children.get(flat[0], self.node)
        retry_node = PosNode(first.line, first.col, first.key_line, first.key_col)
        retry: dict[str, Any] = {}
        for key in flat:
            shown = written.get(key, key)
            self.warn(key, f"legacy key '{shown}': use 'retry.{_RETRY_KEYS[key]}'", shown=shown)
            retry[_RETRY_KEYS[key]] = entry.pop(key)
            if key in self.node.children:
                retry_node.children[_RETRY_KEYS[key]] = self.node.children.pop(key)
        entry["retry"] = retry
        self.node.children["retry"] = retry_node

    def _healthcheck(self, check: dict[str, Any]) -> None:
        node = self.node.children.get("healthcheck")
        inner = _Normalizer(self.report, (*self.path, "healthcheck"), node)
        kind = check.get("type")
        if kind in ("command", "http"):
            inner.warn("type", "legacy key 'type' is not needed: give 'command' or 'url'")
            del check["type"]
            inner.node.children.pop("type", None)
        if "command_template" in check and inner.rename(check, "command_template", "command"):
            message = "legacy key 'command_template': use 'command'"
            inner.warn("command", message, shown="command_template")


def load_project_targets(path: Path) -> tuple[TargetsFile, list[Diagnostic]]:
    """Load a targets file for a run, with its warnings; raise LoadError with every error."""
    from evalwright.files.project import display_path

    report = Report(display_path(path))
    targets = load_targets(path, report)
    report.raise_if_errors()
    assert targets is not None  # no errors means it loaded
    return targets, report.warnings
