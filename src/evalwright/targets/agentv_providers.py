"""AgentV HEAD's provider definitions (``.agentv/providers.yaml``: entries of ``id``,
``label`` and settings) as evalwright target entries (docs/agentv.md#providers). What has an
evalwright form is carried; every other provider or setting is reported at its field."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from evalwright.files.source import Positions, PosNode
from evalwright.targets.kinds import provider_kind

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
_COMMON = {"grader_target": "judge_target", "timeout_seconds": "timeout_seconds"}
# AgentV's ``api_format`` as the OpenAI-wire ``api`` (docs/targets.md).
_APIS = {"chat": "chat_completions", "responses": "responses"}
# Settings that change nothing about what is sent or scored: dropped without a report.
_QUIET = frozenset({"label", "id", "runtime", "stream_log", "verbose"})


@dataclass(frozen=True, slots=True)
class Carried:
    """One provider carried as a target: where it is in the file (``("providers", 2)``), its
    target entry, and the field each of the entry's keys was read from."""

    at: Field
    entry: dict[str, Any]
    sources: dict[str, Field]


def provider_targets(data: Any, report: Report) -> list[Carried]:
    """The providers of a providers file's ``data`` (a list, or a mapping with the list under
    ``providers``) as evalwright target entries; what is not carried goes to ``report``."""
    prefix: Field = ()
    if isinstance(data, dict):
        prefix, data = ("providers",), cast(dict[str, Any], data).get("providers")
    if not isinstance(data, list):
        report(prefix, "expected a list of providers")
        return []
    found: list[Carried] = []
    for n, raw in enumerate(cast(list[Any], data)):
        carried = _target(raw, (*prefix, n), report)
        if carried is not None:
            found.append(carried)
    kinds = {str(c.entry["name"]): c.entry["provider"] for c in found}
    for carried in found:
        judge = carried.entry.get("judge_target")
        if judge is not None and (
            judge not in kinds or provider_kind(kinds[str(judge)]).family == "agent"
        ):
            why = "is not defined here" if judge not in kinds else "is not a chat API or mock"
            report(carried.sources["judge_target"], f"grader target {judge!r} {why}: not carried")
            del carried.entry["judge_target"]
    return found


def _target(raw: Any, at: Field, report: Report) -> Carried | None:
    if not isinstance(raw, dict):
        report(at, "expected a mapping with 'id' and 'label'")
        return None
    entry = cast(dict[str, Any], raw)
    nested = entry.get("config")
    inner = cast(dict[str, Any], nested) if isinstance(nested, dict) else {}
    settings = {k: v for k, v in {**entry, **inner}.items() if k != "config"}
    ident = str(settings.get("id", ""))
    if ident not in _KINDS:
        report((*at, "id"), f"provider {ident!r} has no evalwright target kind: not carried")
        return None
    kind, keys = _KINDS[ident]
    name = settings.get("label") or ident
    label: Field = (*at, "label") if "label" in settings else (*at, "id")
    target: dict[str, Any] = {"name": str(name), "provider": kind}
    sources: dict[str, Field] = {"name": label, "provider": (*at, "id")}
    if ident == "openrouter":
        target["base_url"] = OPENROUTER_URL
    for key, given in settings.items():
        where: Field = (*at, "config", key) if key in inner else (*at, key)
        new = keys.get(key) or _COMMON.get(key)
        value = given
        if new is None and key == "api_format" and kind in ("openai", "azure") and given in _APIS:
            new, value = "api", _APIS[given]
        if new is not None:
            target[new], sources[new] = _variables(value), where
        elif key == "healthcheck":
            _healthcheck(value, target, where, report)
            sources["healthcheck"] = where
        elif key not in _QUIET:
            report(where, f"setting {key!r} of provider {ident!r} has no evalwright form")
    return Carried(at, target, sources)


def targets_positions(found: list[Carried], positions: Positions) -> Positions:
    """Positions for ``{"targets": [entry, ...]}`` that point each key of an entry at the
    field of the providers file it was read from, so later errors name the line written."""
    entries: dict[str | int, PosNode] = {}
    for n, carried in enumerate(found):
        node = positions.node(carried.at) or PosNode(1, 1, 1, 1)
        children: dict[str | int, PosNode] = {}
        for key, source in carried.sources.items():
            child = positions.node(source)
            if child is not None:
                children[key] = child
        entries[n] = PosNode(node.line, node.col, node.key_line, node.key_col, children)
    top = PosNode(1, 1, 1, 1, {"targets": PosNode(1, 1, 1, 1, entries)})
    return Positions(top)


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
