"""Load ``targets.yaml``: AgentV forms rewritten to ours (with a warning each), then validated.

Rewriting renames keys in the data and in its position tree alike, so every error still
points at the line the user wrote.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

from evalwright.evalfile.diagnostics import Report, format_field
from evalwright.evalfile.project import read_text
from evalwright.evalfile.source import Positions, PosNode, parse_yaml
from evalwright.evalfile.targets import TargetsFile
from evalwright.evalfile.validation import type_name, validate

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


def load_targets(path: Path, report: Report) -> TargetsFile | None:
    """Load a targets file; ``None`` after reporting its errors."""
    loaded = load_targets_located(path, report)
    return loaded[0] if loaded else None


def load_targets_located(path: Path, report: Report) -> tuple[TargetsFile, Positions] | None:
    """Load a targets file with the positions of its values (for later warnings)."""
    text = read_text(path, report)
    if text is None:
        return None
    parsed = parse_yaml(text, report)
    if parsed is None:
        return None
    data, root = parsed
    if not isinstance(data, dict):
        report.error(1, 1, "", f"expected a mapping with 'targets', got {type_name(data)}")
        return None
    root = root or PosNode(1, 1, 1, 1)
    entries = cast(dict[str, Any], data).get("targets")
    if isinstance(entries, list):
        for index, entry in enumerate(cast(list[Any], entries)):
            if isinstance(entry, dict):
                node = root.children.get("targets")
                child = node.children.get(index) if node else None
                _Normalizer(report, ("targets", index), child).run(cast(dict[str, Any], entry))
    positions = Positions(root)
    targets: TargetsFile | None = validate(TargetsFile, data, positions, report)
    return (targets, positions) if targets is not None else None


class _Normalizer:
    """Rewrites one AgentV target entry in place, warning once per legacy form."""

    def __init__(self, report: Report, path: tuple[str | int, ...], node: PosNode | None):
        self.report = report
        self.path = path
        self.node = node or PosNode(1, 1, 1, 1)

    def warn(self, key: str, message: str) -> None:
        child = self.node.children.get(key, self.node)
        self.report.warning(child.key_line, child.key_col, format_field((*self.path, key)), message)

    def error(self, key: str, message: str) -> None:
        child = self.node.children.get(key, self.node)
        self.report.error(child.key_line, child.key_col, format_field((*self.path, key)), message)

    def rename(self, entry: dict[str, Any], old: str, new: str) -> None:
        if new in entry:
            self.error(old, f"give '{new}' or its legacy form '{old}', not both")
            return
        entry[new] = entry.pop(old)
        if old in self.node.children:
            self.node.children[new] = self.node.children.pop(old)

    def run(self, entry: dict[str, Any]) -> None:
        for key in [k for k in entry if _CAMEL.search(k)]:
            snake = _CAMEL.sub(r"_\1", key).lower()
            self.warn(key, f"legacy key '{key}': use '{snake}'")
            self.rename(entry, key, snake)
        provider = entry.get("provider")
        if isinstance(provider, str) and provider in PROVIDER_ALIASES:
            canonical = PROVIDER_ALIASES[provider]
            self.warn("provider", f"legacy provider '{provider}': use '{canonical}'")
            entry["provider"] = provider = canonical
        kind = provider if isinstance(provider, str) else ""
        if kind == "azure" and "model" in entry:
            self.rename(entry, "model", "deployment")  # an alias, not a legacy form
        for old, new in _RENAMES.get(kind, {}).items():
            if old in entry:
                self.warn(old, f"legacy key '{old}': use '{new}'")
                self.rename(entry, old, new)
        for key in sorted((_IGNORED["*"] | _IGNORED.get(kind, set())) & set(entry)):
            self.warn(key, f"legacy key '{key}' is ignored")
            del entry[key]
        self._retry(entry)
        if kind == "cli" and isinstance(entry.get("healthcheck"), dict):
            self._healthcheck(cast(dict[str, Any], entry["healthcheck"]))

    def _retry(self, entry: dict[str, Any]) -> None:
        flat = [key for key in _RETRY_KEYS if key in entry]
        if not flat:
            return
        if "retry" in entry:
            self.error(flat[0], "give 'retry' or the flat retry keys, not both")
            return
        first = self.node.children.get(flat[0], self.node)
        retry_node = PosNode(first.line, first.col, first.key_line, first.key_col)
        retry: dict[str, Any] = {}
        for key in flat:
            self.warn(key, f"legacy key '{key}': use 'retry.{_RETRY_KEYS[key]}'")
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
        if "command_template" in check:
            inner.warn("command_template", "legacy key 'command_template': use 'command'")
            inner.rename(check, "command_template", "command")


def load_project_targets(path: Path) -> TargetsFile:
    """Load a targets file for a run; raise LoadError with every error."""
    from evalwright.evalfile.project import display_path

    report = Report(display_path(path))
    targets = load_targets(path, report)
    report.raise_if_errors()
    assert targets is not None  # no errors means it loaded
    return targets
