"""Validate plain data against a file model and report each problem as a located diagnostic.

pydantic's error locations include union tags (``user``, ``str``, ``llm_judge``); walking the
data along the location separates real keys from tags, so a field prints as
``evalcases[2].input_messages[0].role`` and points at the right line and column.
"""

from __future__ import annotations

import enum
import re
import types
from typing import Annotated, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from evalwright.files.base import FileModel
from evalwright.files.diagnostics import Report, format_field
from evalwright.files.source import DataPath, Positions
from evalwright.jsontext import JsonValue

_M = TypeVar("_M", bound=BaseModel)

_TYPE_NAMES = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
}
# Keys of later AgentV releases that we recognise but do not implement.
AGENTV_FEATURE_KEYS = frozenset({"rubrics", "expected_tool_calls", "tool_trajectory"})


def type_name(value: object) -> str:
    """How a YAML/JSON value's type is named in messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


def validate(
    model: type[_M], data: JsonValue, positions: Positions, report: Report, prefix: DataPath = ()
) -> _M | None:
    """Validate ``data`` as ``model``; ``None`` after reporting errors."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        for error in errors:
            _report(error, model, data, positions, report, prefix)
        if isinstance(data, dict) and issubclass(model, FileModel):
            reported = {_key_of(error) for error in errors}
            line, col = positions.value(prefix)
            for key, message in model.absent_keys(data):
                if key not in reported:
                    report.error(line, col, format_field((*prefix, key)), message)
        return None


def _key_of(error: ErrorDetails) -> object:
    """The top-level key an error is about (a model check's names it in its context)."""
    if error["loc"]:
        return error["loc"][0]
    return (error.get("ctx") or {}).get("field")


def _report(
    error: ErrorDetails,
    model: type[BaseModel],
    data: JsonValue,
    positions: Positions,
    report: Report,
    prefix: DataPath,
) -> None:
    kind = error["type"]
    path, value = _data_path(error["loc"], data, missing=kind == "missing")
    ctx: dict[str, object] = dict(error.get("ctx") or {})
    extra_field = ctx.get("field")
    if isinstance(extra_field, str):
        path = (*path, extra_field)
        value = value.get(extra_field) if isinstance(value, dict) else None
    message = _message(error, model, path, value, ctx)
    full = (*prefix, *path)
    if kind in ("missing", "extra_forbidden") or extra_field:
        line, col = positions.key(full) if kind != "missing" else positions.value(full[:-1])
    elif kind in ("union_tag_invalid", "union_tag_not_found", "variant"):
        discriminator = str(ctx.get("key", "role"))
        if kind == "union_tag_invalid" or (isinstance(value, dict) and discriminator in value):
            full = (*full, discriminator)
            path = (*path, discriminator)
        line, col = positions.value(full)
    else:
        line, col = positions.value(full)
    report.error(line, col, format_field(full), message)


def _data_path(
    loc: tuple[int | str, ...], data: JsonValue, *, missing: bool
) -> tuple[DataPath, JsonValue]:
    """The part of ``loc`` that names real keys and indexes, and the value found there."""
    path: list[str | int] = []
    current = data
    for index, part in enumerate(loc):
        child = _child(current, part)
        if child is not _ABSENT:
            current = child
        elif index == len(loc) - 1 and missing:
            path.append(part)
            return tuple(path), None
        else:
            continue  # a union tag, not a key
        path.append(part)
    return tuple(path), current


class _Absent(enum.Enum):
    ABSENT = enum.auto()


_ABSENT = _Absent.ABSENT  # no such key or index: the part of the location is a union tag


def _child(value: JsonValue, part: int | str) -> JsonValue | _Absent:
    if isinstance(value, dict) and isinstance(part, str):
        return value.get(part, _ABSENT)
    if isinstance(value, list) and isinstance(part, int):
        return value[part] if part < len(value) else _ABSENT
    return _ABSENT


def _message(
    error: ErrorDetails,
    model: type[BaseModel],
    path: DataPath,
    value: JsonValue,
    ctx: dict[str, object],
) -> str:
    kind = error["type"]
    if kind in _TYPE_NAMES:
        expected = _TYPE_NAMES[kind]
        quote = kind == "string_type" and isinstance(value, bool | int | float)
        return f"expected {expected}, got {type_name(value)}" + (": quote it" if quote else "")
    if kind == "missing":
        return f"missing required key '{path[-1]}'"
    if kind == "extra_forbidden":
        return _unknown_key(model, error["loc"], str(path[-1]))
    if kind == "literal_error":
        options = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return f"expected one of {', '.join(options)}, got {_show(value)}"
    if kind == "union_tag_invalid":
        options = re.findall(r"'([^']*)'", str(ctx.get("expected_tags", "")))
        given = value.get("role") if isinstance(value, dict) else ctx.get("tag")
        return f"expected one of {', '.join(options)}, got {_show(given)}"
    if kind == "union_tag_not_found":
        return (
            "missing required key 'role'"
            if isinstance(value, dict)
            else f"expected a mapping, got {type_name(value)}"
        )
    if kind == "variant":
        return _variant_message(value, ctx, str(error["msg"]))
    if kind == "content_type":
        quote = ": quote it" if isinstance(value, bool | int | float) else ""
        return f"{error['msg']}, got {type_name(value)}{quote}"
    if kind == "finite_number":
        return f"expected a finite number, got {_show(value)}"
    if kind in _BOUNDS:
        word, name = _BOUNDS[kind]
        return f"expected a number {word} {_show(ctx.get(name))}, got {_show(value)}"
    if kind == "too_short":
        return f"expected at least {ctx.get('min_length')} item(s), got none"
    message = str(error["msg"])
    return message.removeprefix("Value error, ")


_BOUNDS = {
    "greater_than": ("greater than", "gt"),
    "greater_than_equal": ("at least", "ge"),
    "less_than": ("less than", "lt"),
    "less_than_equal": ("at most", "le"),
}
"""pydantic's bound errors: the words of the message, and the bound's key in the context."""


def _show(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        text = str(value)
        return text if len(text) <= 20 else f"{text[:8]}...{text[-4:]} ({len(text)} digits)"
    if isinstance(value, float):
        # A whole bound reads as written (1000000, not 1e+06).
        return str(int(value)) if value.is_integer() and abs(value) < 1e16 else f"{value:g}"
    return type_name(value)


def _variant_message(value: JsonValue, ctx: dict[str, object], unknown: str) -> str:
    key = str(ctx.get("key", "type"))
    if not isinstance(value, dict):
        return f"expected a mapping, got {type_name(value)}"
    if key not in value:
        return f"missing required key '{key}'"
    given = value[key]
    if not isinstance(given, str):
        return f"expected a string naming the {key}, got {type_name(given)}"
    if given in str(ctx.get("foreign", "")).split("\n") and given:
        return str(ctx.get("foreign_message", "")).format(given)
    return f"{unknown} {_show(given)} (supported: {ctx.get('supported', '')})"


def _unknown_key(model: type[BaseModel], loc: tuple[int | str, ...], key: str) -> str:
    if key in AGENTV_FEATURE_KEYS:
        return f"AgentV feature '{key}' is not supported"
    allowed = allowed_keys(model, loc[:-1])
    if not allowed:
        return f"unknown key '{key}'"
    close = suggestion(key, allowed)
    hint = f"did you mean '{close}'? " if close else ""
    return f"unknown key '{key}' ({hint}expected one of: {', '.join(allowed)})"


# Other tools' names for our keys (promptfoo, Inspect, the SDKs): suggested when allowed.
KEY_ALIASES: dict[str, tuple[str, ...]] = {
    "max_tokens": ("max_output_tokens",),
    "max_completion_tokens": ("max_output_tokens",),
    "max_new_tokens": ("max_output_tokens",),
    "api_base": ("base_url",),
    "apibase": ("base_url",),
    "base_uri": ("base_url",),
    "url": ("base_url",),
    "host": ("base_url",),
    "system": ("system_prompt",),
    "system_message": ("system_prompt",),
    "timeout": ("timeout_seconds",),
    "concurrency": ("workers",),
    "max_concurrency": ("workers",),
    "max_connections": ("workers",),
    "retries": ("retry", "max_retries"),
    "model_name": ("model",),
    "deployment_name": ("deployment",),
    "messages": ("input_messages",),
    "prompt": ("input",),
    "expected": ("expected_outcome",),
    "assert": ("evaluators",),
    "tags": ("metadata",),
    "cmd": ("command",),
}


def suggestion(key: str, allowed: list[str]) -> str | None:
    """The allowed key ``key`` was probably meant to be: a known alias, or one at most a
    typo or two away (never a merely similar key: ``max_tokens`` is not ``max_tokens_field``)."""
    lowered = key.lower()
    for alias in KEY_ALIASES.get(lowered, ()):
        if alias in allowed:
            return alias
    scored = sorted((_typos(lowered, name.lower()), name) for name in allowed)
    if scored and scored[0][0] <= max(1, len(key) // 5):
        return scored[0][1]
    return None


def _typos(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) that turn ``a`` into ``b``."""
    if abs(len(a) - len(b)) > 2:
        return 3
    previous: list[int] = []
    row = list(range(len(b) + 1))
    for i, char in enumerate(a, start=1):
        current = [i, *([0] * len(b))]
        for j, other in enumerate(b, start=1):
            cost = 0 if char == other else 1
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                current[j] = min(current[j], previous[j - 2] + 1)
        previous, row = row, current
    return row[-1]


def allowed_keys(model: object, loc: tuple[int | str, ...]) -> list[str]:
    """The keys ``model`` (a class or a type) accepts at ``loc`` (deprecated AgentV keys
    left out)."""
    current = model
    for part in loc:
        current = _step(_unwrap(current), part)
        if current is None:
            return []
    current = _unwrap(current)
    if get_origin(current) in (Union, types.UnionType):
        real = [m for m in get_args(current) if m is not type(None)]
        if len(real) == 1:
            current = _unwrap(real[0])
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [
            info.alias or name for name, info in current.model_fields.items() if not info.deprecated
        ]
    return []


def _unwrap(tp: object) -> object:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _step(tp: object, part: int | str) -> object:
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        for name, info in tp.model_fields.items():
            if part in (name, info.alias):
                return info.annotation
        return None
    origin = get_origin(tp)
    if origin is list and isinstance(part, int):
        return get_args(tp)[0]
    if origin is dict:
        return get_args(tp)[1]
    if origin in (Union, types.UnionType):
        return _member(get_args(tp), part)
    return None


def _member(members: tuple[object, ...], tag: int | str) -> object:
    """The member of a union selected by ``tag`` (a ``Tag`` or a ``role``/``type`` literal)."""
    for member in members:
        for meta in getattr(member, "__metadata__", ()):
            if getattr(meta, "tag", None) == tag:
                return member
        inner = _unwrap(member)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            for key in ("role", "type", "provider"):
                info = inner.model_fields.get(key)
                if info is not None and tag in get_args(info.annotation):
                    return inner
    real = [m for m in members if m is not type(None)]
    return _step(_unwrap(real[0]), tag) if len(real) == 1 else None
