"""promptfoo providers as evalwright targets, their ``config`` as ``settings``
(docs/importing.md#providers)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.sources import as_list, mapping

OLLAMA_URL = "http://localhost:11434/v1"

# promptfoo config key -> evalwright setting, sent as the same field
_SETTINGS = {
    "temperature": "temperature",
    "max_tokens": "max_output_tokens",
    "max_completion_tokens": "max_output_tokens",
    "maxOutputTokens": "max_output_tokens",
    "top_p": "top_p",
    "topP": "top_p",
    "seed": "seed",
    "stop": "stop",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "reasoning_effort": "reasoning_effort",
}
# keys that say where or how to connect, handled by the provider mapping itself
_CONNECTION = frozenset({"apiHost", "apiBaseUrl", "url", "body", "method", "headers"})


@dataclass(slots=True)
class Target:
    """One imported target: its entry in targets.yaml and the tools its provider offers."""

    name: str
    entry: dict[str, Any]
    tools: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])


def read_targets(providers: Any, shown: str, notes: Notes) -> list[Target]:
    """The config's ``providers`` as targets; one the mapping cannot carry is noted."""
    targets: list[Target] = []
    names: set[str] = set()
    for index, item in enumerate(as_list(providers)):
        where = f"providers[{index}]"
        try:
            target = _target(item, where, shown, notes)
        except Uncarried as exc:
            notes.add(shown, where, str(exc))
            continue
        target.name = _unique(target.name, names)
        target.entry = {"name": target.name, **target.entry}
        targets.append(target)
    return targets


def _unique(name: str, names: set[str]) -> str:
    base, n = name, 1
    while name in names:
        n += 1
        name = f"{base}-{n}"
    names.add(name)
    return name


def _target(item: Any, where: str, shown: str, notes: Notes) -> Target:
    spec = {"id": item} if isinstance(item, str) else mapping(item)
    if spec is None or not isinstance(spec.get("id"), str):
        raise Uncarried(f"provider {item!r}: expected an id string or {{id, label, config}}")
    ident: str = spec["id"]
    config = mapping(spec.get("config") or {})
    if config is None:
        raise Uncarried(f"provider config {spec.get('config')!r}: expected a mapping")
    entry = _entry(ident, config)
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", str(spec.get("label") or ident)).strip("-")
    # promptfoo sends no system prompt of its own.
    entry["system_prompt"] = ""
    # Azure's API version is a key of the target itself.
    rest = {k: v for k, v in config.items() if not (k == "apiVersion" and "api_version" in entry)}
    settings, tools = _settings(rest, f"{where}.config", shown, notes)
    for key in sorted(set(spec) - {"id", "label", "config"}):
        notes.add(shown, f"{where}.{key}", "not carried: every case runs on every target")
    if settings:
        entry["settings"] = settings
    return Target(name or "target", entry, tools)


def _entry(ident: str, config: dict[str, Any]) -> dict[str, Any]:
    """The provider keys of a target for promptfoo's provider id ``ident``."""
    kind, _, rest = ident.partition(":")
    model = rest.split(":", 1)[1] if rest.startswith(("chat:", "messages:")) else rest
    base = config.get("apiBaseUrl") or config.get("apiHost")
    if kind == "openai" and model and not rest.startswith(("embedding", "completion", "image")):
        return {"provider": "openai", "model": model, **({"base_url": base} if base else {})}
    if kind == "azure" and rest.startswith("chat:"):
        endpoint = config.get("apiHost") or "${{ AZURE_OPENAI_ENDPOINT }}"
        version = {"api_version": config["apiVersion"]} if "apiVersion" in config else {}
        return {"provider": "azure", "endpoint": endpoint, "deployment": model, **version}
    if kind == "anthropic" and model and not rest.startswith("completion:"):
        return {"provider": "anthropic", "model": model}
    if kind in ("google", "vertex") and model:
        return {"provider": "gemini", "model": model}
    if kind == "ollama" and rest.startswith("chat:"):
        return {"provider": "openai", "model": model, "base_url": base or OLLAMA_URL}
    if kind in ("http", "https") and isinstance(config.get("url"), str):
        return _http(config)
    raise Uncarried(f"provider {ident!r} has no evalwright target it maps to")


def _http(config: dict[str, Any]) -> dict[str, Any]:
    """An ``http`` provider posting an OpenAI Chat Completions body."""
    url: str = config["url"]
    body = config.get("body")
    model = body.get("model") if isinstance(body, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not url.endswith("/chat/completions") or not isinstance(model, str):
        raise Uncarried(f"http provider {url!r} is not an OpenAI-compatible chat completions URL")
    return {"provider": "openai", "model": model, "base_url": url.removesuffix("/chat/completions")}


def _settings(
    config: dict[str, Any], where: str, shown: str, notes: Notes
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    settings: dict[str, Any] = {}
    tools: list[dict[str, Any]] = []
    flat: dict[str, Any] = {**config, **(mapping(config.get("generationConfig")) or {})}
    for key, value in flat.items():
        try:
            if key == "tools":
                tools = [_tool(t) for t in as_list(value)]
            elif key in _SETTINGS or key in _CONVERTED:
                name, converted = _setting(key, value)
                settings[name] = converted
            elif key in ("apiKey", "apiKeyEnvar"):
                raise Uncarried("not carried: set the key in the environment")
            elif key not in _CONNECTION and key != "generationConfig":
                raise Uncarried("not carried: evalwright has no such setting")
        except Uncarried as exc:
            notes.add(shown, f"{where}.{key}", str(exc))
    return settings, tools


def _setting(key: str, value: Any) -> tuple[str, Any]:
    if key in _CONVERTED:
        return key, _CONVERTED[key](value)
    if key == "reasoning_effort" and value not in _EFFORTS:
        raise Uncarried(f"reasoning_effort {value!r}: evalwright takes {', '.join(_EFFORTS)}")
    return _SETTINGS[key], value


_EFFORTS = ("minimal", "low", "medium", "high")


def _response_format(value: Any) -> dict[str, Any]:
    given = mapping(value) or {}
    if given.get("type") == "json_object":
        return {"json": True}
    spec = mapping(given.get("json_schema"))
    if spec is not None:
        out: dict[str, Any] = {"json_schema": spec.get("schema", {})}
        out.update({k: spec[k] for k in ("name", "strict") if k in spec})
        return out
    raise Uncarried(f"response_format {value!r} is not imported")


def _tool_choice(value: Any) -> Any:
    if isinstance(value, str):
        return value
    function = mapping((mapping(value) or {}).get("function")) or {}
    if isinstance(function.get("name"), str):
        return {"name": function["name"]}
    raise Uncarried(f"tool_choice {value!r} is not imported")


def _tool(value: Any) -> dict[str, Any]:
    """An OpenAI function tool as an evalwright tool (docs/tools.md#declaring-tools)."""
    given = mapping(value) or {}
    function = mapping(given.get("function", given)) or {}
    if not isinstance(function.get("name"), str):
        raise Uncarried(f"tool {value!r} is not an OpenAI function tool")
    keys = ("name", "description", "parameters", "strict")
    tool = {k: function[k] for k in keys if k in function}
    if "input_schema" in function and "parameters" not in function:
        tool["parameters"] = function["input_schema"]  # Anthropic's name for it
    return tool


_CONVERTED = {"response_format": _response_format, "tool_choice": _tool_choice}
