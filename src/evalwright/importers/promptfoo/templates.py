"""Nunjucks templates rendered with Jinja2 in its sandbox, strictly: an undefined variable is
an error, never an empty string (docs/importing.md#templates)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from evalwright.importers.promptfoo.notes import Uncarried


def render(text: str, variables: dict[str, Any]) -> str:
    """``text`` rendered with ``variables``; a template Jinja2 cannot render is
    :class:`Uncarried` saying why."""
    try:
        return _environment().from_string(text).render(variables)
    except Exception as exc:  # a template's own failure (undefined, 1/0, bad JSON to load)
        raise Uncarried(f"the template does not render: {exc}") from None


def _show(value: Any) -> Any:
    """A value as JavaScript shows it in a template: ``true``, ``1`` for ``1.0``, JSON for an
    object, a comma-joined list, nothing for null."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, list):
        return ",".join(str(_show(item)) for item in value)  # pyright: ignore[reportUnknownVariableType]
    return value


def _dump(value: Any, indent: int | None = None) -> str:
    """Nunjucks' ``dump`` filter: ``JSON.stringify``."""
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(value, indent=indent, separators=separators, ensure_ascii=False)


@cache
def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(
        undefined=StrictUndefined, keep_trailing_newline=True, finalize=_show, autoescape=False
    )
    env.filters["dump"] = _dump
    env.filters["load"] = json.loads  # promptfoo's own filter: JSON.parse
    return env
