"""promptfoo providers as evalwright targets, their ``config`` as ``settings``
(docs/importing.md#providers)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalwright.importers.promptfoo import gemini
from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.sources import (
    FILE_PREFIX,
    as_list,
    file_path,
    load_yaml,
    mapping,
)

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


def read_targets(providers: Any, base: Path, shown: str, notes: Notes) -> list[Target]:
    """The config's ``providers`` as targets; one the mapping cannot carry is noted.
    ``base``: the config's directory, where a ``file://`` tools file is read."""
    targets: list[Target] = []
    names: set[str] = set()
    for index, item in enumerate(as_list(providers)):
        where = f"providers[{index}]"
        try:
            target = _target(item, where, _Place(base, shown), notes)
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


@dataclass(frozen=True, slots=True)
class _Place:
    """The config's directory and its path as shown in notes."""

    base: Path
    shown: str


def _target(item: Any, where: str, place: _Place, notes: Notes) -> Target:
    spec = {"id": item} if isinstance(item, str) else mapping(item)
    if spec is None or not isinstance(spec.get("id"), str):
        raise Uncarried(f"provider {item!r}: expected an id string or {{id, label, config}}")
    ident: str = spec["id"]
    config = mapping(spec.get("config") or {})
    if config is None:
        raise Uncarried(f"provider config {spec.get('config')!r}: expected a mapping")
    entry = _entry(ident, config)
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", str(spec.get("label") or ident)).strip("-")
    # promptfoo sends no system prompt of its own; Gemini's systemInstruction is the target's.
    entry["system_prompt"] = _system(config, f"{where}.config.systemInstruction", place, notes)
    # Azure's API version is a key of the target itself.
    own = {"systemInstruction", *(["apiVersion"] if "api_version" in entry else [])}
    own |= {"instructions"} if entry.get("api") == "responses" else set()
    rest = {k: v for k, v in config.items() if k not in own}
    settings, tools = _settings(rest, f"{where}.config", place, notes)
    for key in sorted(set(spec) - {"id", "label", "config"}):
        notes.add(place.shown, f"{where}.{key}", "not carried: every case runs on every target")
    if entry.get("api") == "responses" and isinstance(config.get("instructions"), str):
        # the Responses API's instructions, sent in the body as promptfoo sends them
        settings["extra_body"] = {"instructions": config["instructions"]}
    if settings:
        entry["settings"] = settings
    return Target(name or "target", entry, tools)


def _entry(ident: str, config: dict[str, Any]) -> dict[str, Any]:
    """The provider keys of a target for promptfoo's provider id ``ident``."""
    kind, _, rest = ident.partition(":")
    model = rest.split(":", 1)[1] if rest.startswith(("chat:", "messages:")) else rest
    base = _base_url(kind, config)
    if kind == "openai" and (rest.startswith(("chat:", "responses:", "ft:")) or ":" not in rest):
        return _openai(rest, base)
    if kind == "azure" and rest.startswith("chat:"):
        endpoint = base or "${{ AZURE_OPENAI_ENDPOINT }}"
        version = {"api_version": config["apiVersion"]} if "apiVersion" in config else {}
        return {"provider": "azure", "endpoint": endpoint, "deployment": model, **version}
    if kind == "anthropic" and model and not rest.startswith("completion:"):
        return {"provider": "anthropic", "model": model}
    if kind in ("google", "vertex") and model.startswith(("gemini", "gemma")):
        return {"provider": "gemini", "model": model}  # other models are not the Gemini API
    if kind == "ollama" and rest.startswith("chat:"):
        return {"provider": "openai", "model": model, "base_url": base or OLLAMA_URL}
    if kind in ("http", "https") and isinstance(config.get("url"), str):
        return _http(config)
    raise Uncarried(f"provider {ident!r} has no evalwright target it maps to")


_ENV = re.compile(r"\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def _env(value: Any) -> Any:
    """promptfoo's ``{{ env.NAME }}`` in a provider's config as evalwright's ``${{ NAME }}``
    (docs/targets.md)."""
    return _ENV.sub(r"${{ \1 }}", value) if isinstance(value, str) else value


def _base_url(kind: str, config: dict[str, Any]) -> str | None:
    """The URL promptfoo's provider reaches, as its code builds it: OpenAI's ``apiHost`` is
    ``https://HOST/v1`` and wins over ``apiBaseUrl``; Azure's ``apiBaseUrl`` wins over
    ``https://`` ``apiHost``; Ollama's ``apiBaseUrl`` is its server (``/v1`` for the OpenAI
    API). ``None``: the provider's default."""
    host, base = _env(config.get("apiHost")), _env(config.get("apiBaseUrl"))
    host = re.sub(r"^https?://", "", host).rstrip("/") if isinstance(host, str) and host else None
    base = base.rstrip("/") if isinstance(base, str) and base else None
    if kind == "openai":
        return f"https://{host}/v1" if host else base
    if kind == "azure":
        return base or (f"https://{host}" if host else None)
    return f"{base}/v1" if kind == "ollama" and base else None


def _openai(rest: str, base: str | None) -> dict[str, Any]:
    """``openai:MODEL``, ``openai:chat:MODEL`` (Chat Completions) or ``openai:responses:MODEL``
    (the Responses API); the other OpenAI APIs (assistants, realtime, images) are not chat."""
    chat = ":" not in rest or rest.startswith("ft:")  # a fine-tuned model is named ft:...
    api, _, model = ("chat", "", rest) if chat else rest.partition(":")
    if not model:
        raise Uncarried(f"provider 'openai:{rest}' names no model")
    entry: dict[str, Any] = {"provider": "openai", "model": model}
    if api == "responses":
        entry["api"] = "responses"
    return {**entry, **({"base_url": base} if base else {})}


def _http(config: dict[str, Any]) -> dict[str, Any]:
    """An ``http`` provider posting an OpenAI Chat Completions body."""
    url: str = config["url"]
    body = config.get("body")
    model = body.get("model") if isinstance(body, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not url.endswith("/chat/completions") or not isinstance(model, str):
        raise Uncarried(f"http provider {url!r} is not an OpenAI-compatible chat completions URL")
    return {"provider": "openai", "model": model, "base_url": url.removesuffix("/chat/completions")}


def case_settings(
    config: dict[str, Any], where: str, base: Path, shown: str, notes: Notes
) -> dict[str, Any]:
    """A prompt's provider ``config`` (its own, or one its function returns) as a case's
    ``settings``; a key evalwright has no setting for is noted (docs/importing.md#providers)."""
    settings, tools = _settings(config, where, _Place(base, shown), notes)
    if tools:
        notes.add(shown, f"{where}.tools", "not carried: a prompt's own tools")
    return settings


def _settings(
    config: dict[str, Any], where: str, place: _Place, notes: Notes
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    settings: dict[str, Any] = {}
    tools: list[dict[str, Any]] = []
    merged = {**config, **(mapping(config.get("generationConfig")) or {})}
    try:
        flat = gemini.normalized(merged, place.base)
    except Uncarried as exc:
        notes.add(place.shown, f"{where}.responseSchema", str(exc))
        flat = {k: v for k, v in merged.items() if k not in ("responseSchema", "response_schema")}
    for key, value in flat.items():
        try:
            if key == "tools":
                tools = _tools(value, f"{where}.tools", place, notes)
            elif key in _SETTINGS or key in _CONVERTED:
                name, converted = _setting(key, value)
                settings[name] = converted
            elif key in ("apiKey", "apiKeyEnvar"):
                raise Uncarried("not carried: set the key in the environment")
            elif key not in _CONNECTION and key != "generationConfig":
                raise Uncarried("not carried: evalwright has no such setting")
        except Uncarried as exc:
            notes.add(place.shown, f"{where}.{key}", str(exc))
    named = mapping(settings.get("tool_choice")) or {}
    if named and named["name"] not in [tool["name"] for tool in tools]:
        del settings["tool_choice"]
        notes.add(place.shown, f"{where}.tool_choice", "not carried: the tool it names was not")
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
    if spec is None and given.get("type") == "json_schema" and "schema" in given:
        spec = given  # the Responses API's form: name and schema beside the type
    if spec is not None:
        out: dict[str, Any] = {"json_schema": spec.get("schema", {})}
        out.update({k: spec[k] for k in ("name", "strict") if k in spec})
        return out
    raise Uncarried(f"response_format {value!r} is not imported")


# Anthropic's tool_choice types, as evalwright's modes
_CHOICE_MODES = {"auto": "auto", "any": "required", "none": "none"}


def _tool_choice(value: Any) -> Any:
    if isinstance(value, str):
        return value
    given = mapping(value) or {}
    function = mapping(given.get("function")) or {}
    if isinstance(function.get("name"), str):
        return {"name": function["name"]}
    if given.get("type") == "tool" and isinstance(given.get("name"), str):
        return {"name": given["name"]}  # Anthropic's form
    if set(given) == {"type"} and given["type"] in _CHOICE_MODES:
        return _CHOICE_MODES[given["type"]]
    raise Uncarried(f"tool_choice {value!r} is not imported")


def _tools(value: Any, where: str, place: _Place, notes: Notes) -> list[dict[str, Any]]:
    """A provider's tools (inline, or a ``file://`` YAML or JSON list); each one that is
    not a function tool is noted and the others kept."""
    if isinstance(value, str) and value.startswith(FILE_PREFIX):
        found = file_path(place.base, value)
        if not found.is_file():
            raise Uncarried(f"tools file not found: {value!r}")
        value = load_yaml(found).data
    tools: list[dict[str, Any]] = []
    for index, item in enumerate(as_list(value)):
        try:
            functions = gemini.declarations(mapping(item) or {})
            tools += [_tool(item)] if functions is None else [_tool(f) for f in functions]
        except Uncarried as exc:
            notes.add(place.shown, f"{where}[{index}]", str(exc))
    return tools


def _system(config: dict[str, Any], where: str, place: _Place, notes: Notes) -> str:
    if "systemInstruction" not in config:
        return ""
    try:
        return gemini.system_instruction(config["systemInstruction"], place.base)
    except Uncarried as exc:
        notes.add(place.shown, where, str(exc))
        return ""


def _tool(value: Any) -> dict[str, Any]:
    """An OpenAI function tool as an evalwright tool (docs/tools.md#declaring-tools)."""
    given = mapping(value) or {}
    kind = given.get("type", "function")
    if kind != "function" and "input_schema" not in given:
        # a tool the provider itself runs (Anthropic's web search, OpenAI's file search)
        raise Uncarried(f"tool {value!r}: a {kind!r} tool is run by the provider, not carried")
    function = mapping(given.get("function", given)) or {}
    if not isinstance(function.get("name"), str):
        raise Uncarried(f"tool {value!r} is not an OpenAI function tool")
    keys = ("name", "description", "parameters", "strict")
    tool = {k: function[k] for k in keys if k in function}
    if "input_schema" in function and "parameters" not in function:
        tool["parameters"] = function["input_schema"]  # Anthropic's name for it
    return tool


_CONVERTED = {"response_format": _response_format, "tool_choice": _tool_choice}
