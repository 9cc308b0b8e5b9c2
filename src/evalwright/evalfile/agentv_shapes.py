"""AgentV 0.26 to 2.5 case shapes, read as evalwright's with a warning each
(docs/agentv.md#agentv-026-to-25): ``criteria`` for ``expected_outcome``, message lists under
``input`` and ``expected_output``, a message's mapping ``content`` as JSON text, and
``{tool, input, output}`` tool calls as ``{id, name, arguments}`` plus a tool message."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from evalwright.evalfile.located import Located

Warn = Callable[[Located, str], None]

_RENAMED = (("criteria", "expected_outcome"),)
_LISTS = (("input", "input_messages"), ("expected_output", "expected_messages"))


def upgrade_case(data: Any, where: Located, warn: Warn) -> Any:
    """``data`` (one case, as parsed) in evalwright's shape; the positions follow each moved
    key so later errors still point into the file. Anything else is left for validation."""
    if not isinstance(data, dict):
        return data
    case: dict[str, Any] = dict(data)  # pyright: ignore[reportUnknownArgumentType]
    for old, new in _RENAMED:
        if old in case and new not in case:
            warn(where.at(old), f"legacy key '{old}': use '{new}'")
            _move(case, where, old, new)
    for old, new in _LISTS:
        if isinstance(case.get(old), list) and new not in case:
            warn(where.at(old), f"a message list under '{old}': use '{new}'")
            _move(case, where, old, new)
    for key in ("input_messages", "expected_messages"):
        messages = case.get(key)
        if isinstance(messages, list):
            items: list[Any] = messages  # pyright: ignore[reportUnknownVariableType]
            upgraded: list[Any] = []
            for n, message in enumerate(items):
                upgraded.extend(
                    _tool_calls(
                        _json_content(message, where.at(key, n), warn), where.at(key, n), warn
                    )
                )
            case[key] = upgraded
    return case


def _move(case: dict[str, Any], where: Located, old: str, new: str) -> None:
    case[new] = case.pop(old)
    where.positions.rename(where.path, old, new)


def _json_content(message: Any, where: Located, warn: Warn) -> Any:
    """A message whose ``content`` is a mapping (AgentV's structured output) gets it as JSON
    text: what a target would print."""
    if not isinstance(message, dict):
        return message
    fields: dict[str, Any] = message  # pyright: ignore[reportUnknownVariableType]
    if not isinstance(fields.get("content"), dict):
        return fields
    warn(where.at("content"), "a mapping as content is read as its JSON text")
    out: dict[str, Any] = {**fields}
    out["content"] = json.dumps(out["content"], ensure_ascii=False)
    return out


def _tool_calls(message: Any, where: Located, warn: Warn) -> list[Any]:
    """An assistant message with AgentV's ``{tool, input, output}`` calls: the calls as
    ``{id, name, arguments}``, each ``output`` as a tool message answering its call."""
    if not isinstance(message, dict):
        return [message]
    fields: dict[str, Any] = message  # pyright: ignore[reportUnknownVariableType]
    calls: Any = fields.get("tool_calls")
    if not isinstance(calls, list):
        return [message]
    upgraded: list[Any] = []
    results: list[dict[str, Any]] = []
    for n, call in enumerate(calls):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        if not isinstance(call, dict) or "tool" not in call or "name" in call:
            upgraded.append(call)
            continue
        warn(
            where.at("tool_calls", n),
            "AgentV tool call {tool, input, output}: use "
            "{id, name, arguments} and a tool message for its output",
        )
        item: dict[str, Any] = {**call}  # pyright: ignore[reportUnknownArgumentType]
        ident = str(item.pop("id", f"call-{n + 1}"))
        output = item.pop("output", None)
        upgraded.append(
            {"id": ident, "name": item.pop("tool"), "arguments": item.pop("input", {}), **item}
        )
        if output is not None:
            text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
            results.append({"role": "tool", "tool_call_id": ident, "content": text})
    return [{**fields, "tool_calls": upgraded}, *results]
