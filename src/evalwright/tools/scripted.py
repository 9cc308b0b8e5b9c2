"""Scripted tool results (docs/tools.md#scripted-results): a fixed ``result:``, or the first
entry of ``results:`` whose ``when`` the call's arguments match, the way tau-bench makes an
environment deterministic."""

from __future__ import annotations

import json

from evalwright.jsontext import JsonObject, JsonValue, same
from evalwright.targets.tools import ToolSpec
from evalwright.tools.base import Outcome


def result_text(value: JsonValue) -> str:
    """What a scripted result sends back: a text as written, anything else as JSON text."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def scripted(tool: ToolSpec, arguments: JsonObject) -> Outcome:
    """The scripted answer of ``tool`` to a call with ``arguments``."""
    if tool.results is None:
        return Outcome(result_text(tool.result))
    for entry in tool.results:
        if entry.when is None or same(entry.when, arguments, partial=True):
            if entry.error is not None:
                return Outcome(entry.error, is_error=True)
            return Outcome(result_text(entry.result))
    shown = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    return Outcome(f"no scripted result of {tool.name} matches the arguments {shown}", True)
