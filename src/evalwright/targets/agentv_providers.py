"""AgentV HEAD's provider definitions (``.agentv/providers.yaml``: entries of ``id``,
``label`` and settings) as evalwright target entries (docs/agentv.md#providers). What has an
evalwright form is carried; every other provider or setting is reported at its field."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

Field = tuple[str | int, ...]
Report = Callable[[Field, str], None]
"""Called with the field of an item not carried (``(3, "stream_log")``) and why."""

OPENROUTER_URL = "https://openrouter.ai/api/v1"
# AgentV writes ``{{ env.NAME }}``; evalwright's variables are ``${{ NAME }}``.
_ENV = re.compile(r"\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
# AgentV provider id -> evalwright provider, and the settings that carry over (AgentV name ->
# evalwright name) for each.
_CHAT = {"model": "model", "api_key": "api_key", "max_output_tokens": "max_output_tokens"}
_KINDS: dict[str, tuple[str, dict[str, str]]] = {
    "openai": ("openai", {**_CHAT, "base_url": "base_url", "endpoint": "base_url"}),
    "openrouter": ("openai", _CHAT),
    "azure": (
        "azure",
        {**_CHAT, "endpoint": "endpoint", "model": "deployment", "version": "api_version"},
    ),
    "anthropic": ("anthropic", {**_CHAT, "base_url": "base_url"}),
    "gemini": ("gemini", {**_CHAT, "base_url": "base_url"}),
    "cli": ("cli", {"command": "command", "files_format": "files_format", "cwd": "cwd"}),
    "codex": ("codex", {"cwd": "cwd", "log_dir": "log_dir"}),
    "agentv:codex-cli": ("codex", {"cwd": "cwd", "log_dir": "log_dir"}),
    "mock": ("mock", {}),
}
# The kinds above that are coding agents, which cannot judge (docs/targets.md).
_AGENTS = frozenset({"cli", "codex"})
_COMMON = {"grader_target": "judge_target", "timeout_seconds": "timeout_seconds"}
# AgentV's ``api_format`` as the OpenAI-wire ``api`` (docs/targets.md).
_APIS = {"chat": "chat_completions", "responses": "responses"}
# Settings that change nothing about what is sent or scored: dropped without a report.
_QUIET = frozenset({"label", "id", "runtime", "stream_log", "verbose"})


def provider_targets(entries: Any, report: Report) -> list[dict[str, Any]]:
    """The target entries of AgentV's provider list ``entries`` (the file's list, or the list
    under its ``providers`` key), each in evalwright's targets.yaml form."""
    if isinstance(entries, dict):
        entries = cast(dict[str, Any], entries).get("providers")
    if not isinstance(entries, list):
        report((), "expected a list of providers")
        return []
    found: list[tuple[int, dict[str, Any]]] = []
    for n, raw in enumerate(cast(list[Any], entries)):
        target = _target(raw, n, report)
        if target is not None:
            found.append((n, target))
    kinds = {str(target["name"]): target["provider"] for _, target in found}
    for n, target in found:
        judge = target.get("judge_target")
        if judge is not None and (judge not in kinds or kinds[str(judge)] in _AGENTS):
            why = "is not defined here" if judge not in kinds else "is not a chat API or mock"
            report((n, "grader_target"), f"grader target {judge!r} {why}: not carried")
            del target["judge_target"]
    return [target for _, target in found]


def _target(raw: Any, n: int, report: Report) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        report((n,), "expected a mapping with 'id' and 'label'")
        return None
    entry = cast(dict[str, Any], raw)
    nested = entry.get("config")
    settings = {**entry, **cast(dict[str, Any], nested)} if isinstance(nested, dict) else entry
    settings.pop("config", None)
    ident = str(settings.get("id", ""))
    name = settings.get("label") or ident
    if ident not in _KINDS:
        report((n, "id"), f"provider {ident!r} has no evalwright target kind: not carried")
        return None
    kind, keys = _KINDS[ident]
    target: dict[str, Any] = {"name": str(name), "provider": kind}
    if ident == "openrouter":
        target["base_url"] = OPENROUTER_URL
    for key, value in settings.items():
        new = keys.get(key) or _COMMON.get(key)
        where: Field = (
            (n, "config", key) if isinstance(nested, dict) and key in nested else (n, key)
        )
        if new is not None:
            target[new] = _variables(value)
        elif key == "api_format" and kind in ("openai", "azure") and value in _APIS:
            target["api"] = _APIS[value]
        elif key == "healthcheck":
            _healthcheck(value, target, (*where,), report)
        elif key not in _QUIET:
            report(where, f"setting {key!r} of provider {ident!r} has no evalwright form")
    return target


def _healthcheck(value: Any, target: dict[str, Any], where: Field, report: Report) -> None:
    check = cast(dict[str, Any], value) if isinstance(value, dict) else {}
    carried = {k: _variables(v) for k, v in check.items() if k in ("command", "url")}
    for key in sorted(set(check) - {"command", "url"}):
        report((*where, key), f"healthcheck setting {key!r} has no evalwright form")
    if carried:
        target["healthcheck"] = carried


def _variables(value: Any) -> Any:
    """``{{ env.NAME }}`` as ``${{ NAME }}``, in text and lists of text."""
    if isinstance(value, str):
        return _ENV.sub(r"${{ \1 }}", value)
    if isinstance(value, list):
        return [_variables(item) for item in cast(list[Any], value)]
    return value
