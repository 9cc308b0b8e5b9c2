"""The Google (Gemini) forms of a promptfoo provider's config, read as the forms the rest of
the importer maps (docs/importing.md#providers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalwright.importers.promptfoo.notes import Uncarried
from evalwright.importers.promptfoo.sources import (
    FILE_PREFIX,
    file_path,
    load_yaml,
    mapping,
    read_plain,
    sequence,
)

# function_calling_config modes, as tool_choice modes
_MODES = {"AUTO": "auto", "ANY": "required", "NONE": "none"}


def normalized(config: dict[str, Any], base: Path) -> dict[str, Any]:
    """``config`` with Gemini's ``response_mime_type``/``response_schema`` (inline or a
    ``file://`` JSON or YAML file) as a ``response_format`` and ``tool_config`` as a
    ``tool_choice`` (OpenAI's forms)."""
    out = dict(config)
    schema = out.pop("response_schema", out.pop("responseSchema", None))
    mime = out.pop("response_mime_type", out.pop("responseMimeType", None))
    if isinstance(schema, str) and schema.startswith(FILE_PREFIX):
        found = file_path(base, schema)
        if not found.is_file():
            raise Uncarried(f"responseSchema file not found: {schema!r}")
        schema = load_yaml(found).data
    if schema is not None:
        schema = json_schema(schema)
        out["response_format"] = {"type": "json_schema", "json_schema": {"schema": schema}}
    elif mime == "application/json":
        out["response_format"] = {"type": "json_object"}
    elif mime is not None:
        out["response_mime_type"] = mime  # noted as not carried
    calling = mapping((mapping(out.get("tool_config")) or {}).get("function_calling_config"))
    mode = str((calling or {}).get("mode", "")).upper()
    if mode in _MODES and set(calling or {}) == {"mode"}:
        del out["tool_config"]
        out["tool_choice"] = _MODES[mode]
    return out


def declarations(tool: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The functions of a Gemini tool (``function_declarations``), or ``None`` when
    ``tool`` is not one."""
    found = tool.get("function_declarations", tool.get("functionDeclarations"))
    if found is None:
        return None
    listed = sequence(found)
    if listed is None or len(tool) != 1:
        raise Uncarried(f"tool {tool!r}: expected only a list of function_declarations")
    functions = [mapping(item) or {"invalid": item} for item in listed]
    return [
        {**f, "parameters": json_schema(f["parameters"])} if "parameters" in f else f
        for f in functions
    ]


_TYPES = frozenset({"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"})


def json_schema(schema: Any) -> Any:
    """A Gemini ``Schema`` as JSON Schema: its upper-case ``type`` names (``OBJECT``) are
    JSON Schema's lower-case ones; the rest is the same."""
    found = mapping(schema)
    if found is not None:
        out = {key: json_schema(value) for key, value in found.items()}
        kind = found.get("type")
        if isinstance(kind, str) and kind in _TYPES:
            out["type"] = kind.lower()
        return out
    listed = sequence(schema)
    return [json_schema(item) for item in listed] if listed is not None else schema


def system_instruction(value: Any, base: Path) -> str:
    """Gemini's ``systemInstruction`` (text, a ``file://`` reference or ``{parts: [{text}]}``)
    as the target's system prompt."""
    if isinstance(value, str):
        if not value.startswith(FILE_PREFIX):
            return value
        found = file_path(base, value)
        if not found.is_file():
            raise Uncarried(f"systemInstruction file not found: {value!r}")
        return read_plain(found)
    parts = sequence((mapping(value) or {}).get("parts"))
    texts = [(mapping(part) or {}).get("text") for part in parts or []]
    if not texts or not all(isinstance(text, str) for text in texts):
        raise Uncarried(f"systemInstruction {value!r}: expected text or {{parts: [{{text}}]}}")
    return "".join(str(text) for text in texts)
