"""Template cases: a case with ``dataset:`` or ``vars:`` is one case per record, its
``{{ name }}`` variables filled from the record by Jinja2's sandboxed environment
(docs/eval-files.md#variables).

Only a template case is filled: any other case is sent exactly as written, ``{{`` included.
Each template string is compiled once, when the first record needs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from evalwright.evalfile.dataset_spec import DatasetSpec
from evalwright.evalfile.located import Located
from evalwright.files.source import DataPath
from evalwright.jsontext import JsonObject, JsonValue

_WHOLE_VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_TEXT_KEYS = ("input", "expected_outcome", "outcome", "expected_output")
_MESSAGE_KEYS = ("input_messages", "expected_messages")
_FORMATS: dict[str, dict[str, str]] = {
    "openai-evals": {"input": "input", "target": "ideal"},
    "inspect": {"input": "input", "target": "target", "id": "id", "metadata": "metadata"},
    "mt-bench": {"turns": "turns", "id": "question_id", "category": "category"},
}
"""Each foreign format's fields (docs/eval-files.md#foreign-formats)."""


class VariableProblem(ValueError):
    """A template string that cannot be filled: ``path`` is where it sits in the case."""

    def __init__(self, message: str, path: DataPath) -> None:
        super().__init__(message)
        self.path = path


def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    # A trailing line end is part of what the author wrote; nothing is escaped.
    return SandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True
    )


class Filler:
    """Fills one template case's strings from a record; each string is compiled once."""

    def __init__(self) -> None:
        self._env: Any = None
        self._compiled: dict[str, Any] = {}

    def text(self, text: str, values: JsonObject, path: DataPath) -> str:
        """``text`` filled from ``values``; raise :class:`VariableProblem`."""
        if "{" not in text:
            return text
        from jinja2 import TemplateError, TemplateSyntaxError

        try:
            compiled = self._compiled.get(text)
            if compiled is None:
                if self._env is None:
                    self._env = _environment()
                compiled = self._compiled[text] = self._env.from_string(text)
            return str(compiled.render(values))
        except TemplateSyntaxError as exc:
            raise VariableProblem(f"template line {exc.lineno}: {exc.message}", path) from None
        except TemplateError as exc:
            raise VariableProblem(_undefined_message(exc), path) from None

    def case(self, template: JsonObject, values: JsonObject) -> JsonObject:
        """The template case's data with every templated string filled."""
        filled = dict(template)
        for key in _TEXT_KEYS:
            value = filled.get(key)
            if isinstance(value, str):
                filled[key] = self.text(value, values, (key,))
        for key in _MESSAGE_KEYS:
            messages = filled.get(key)
            if isinstance(messages, list):
                filled[key] = [self._message(m, values, (key, i)) for i, m in enumerate(messages)]
        turns = filled.get("turns")
        if isinstance(turns, list):
            filled["turns"] = [self._turn(t, values, ("turns", i)) for i, t in enumerate(turns)]
        execution = filled.get("execution")
        if isinstance(execution, dict):
            filled["execution"] = self._evaluators(execution, values, ("execution",))
        return filled

    def _message(self, message: JsonValue, values: JsonObject, path: DataPath) -> JsonValue:
        if not isinstance(message, dict):
            return message
        content = message.get("content")
        if isinstance(content, str):
            return {**message, "content": self.text(content, values, (*path, "content"))}
        if isinstance(content, list):
            parts = [self._part(p, values, (*path, "content", i)) for i, p in enumerate(content)]
            return {**message, "content": parts}
        return message

    def _part(self, part: JsonValue, values: JsonObject, path: DataPath) -> JsonValue:
        if isinstance(part, str):
            return self.text(part, values, path)
        if isinstance(part, dict) and part.get("type") == "text":
            value = part.get("value")
            if isinstance(value, str):
                return {**part, "value": self.text(value, values, (*path, "value"))}
        return part

    def _turn(self, turn: JsonValue, values: JsonObject, path: DataPath) -> JsonValue:
        if isinstance(turn, str):
            return self.text(turn, values, path)
        if not isinstance(turn, dict):
            return turn
        filled = self._message(turn, values, path)
        assert isinstance(filled, dict)
        return self._evaluators(filled, values, path)

    def _evaluators(self, holder: JsonObject, values: JsonObject, path: DataPath) -> JsonObject:
        """The ``value`` of each evaluator in ``holder['evaluators']`` filled."""
        evaluators = holder.get("evaluators")
        if not isinstance(evaluators, list):
            return holder
        filled: list[JsonValue] = []
        for index, spec in enumerate(evaluators):
            here = (*path, "evaluators", index, "value")
            if isinstance(spec, dict) and "value" in spec:
                filled.append({**spec, "value": self._value(spec["value"], values, here)})
            else:
                filled.append(spec)
        return {**holder, "evaluators": filled}

    def _value(self, value: JsonValue, values: JsonObject, path: DataPath) -> JsonValue:
        if isinstance(value, list):
            return [self._value(v, values, (*path, i)) for i, v in enumerate(value)]
        if not isinstance(value, str):
            return value
        whole = _WHOLE_VARIABLE.fullmatch(value)
        if whole and isinstance(answers := values.get(whole.group(1)), list):
            # ``value: "{{ ideal }}"`` with a list of accepted answers: the list itself.
            return [str(answer) for answer in answers]
        return self.text(value, values, path)


def _undefined_message(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    if message.endswith("is undefined"):
        return f"undefined variable {message.removesuffix(' is undefined')}"
    return message


def mapped_fields(spec: DatasetSpec | None) -> dict[str, str]:
    """Which record field gives the case's ``input``, ``target``, ``id``, ... : the
    format's, with the ones named in the mapping winning."""
    if spec is None:
        return {}
    fields = dict(_FORMATS.get(spec.format or "", {}))
    for key in ("input", "target", "id"):
        named = getattr(spec, key)
        if named is not None:
            fields[key] = named
    return fields


def apply_mapping(
    case: JsonObject,
    record: JsonObject,
    fields: dict[str, str],
    required: Callable[[str], bool],
) -> JsonObject:
    """The case with its input, reference answer and metadata taken from the record's
    mapped fields, exactly as they are; raise ``ValueError`` for a missing field.
    ``required(key)`` says whether a missing field is an error (a format's optional ``id``
    is not)."""
    out = dict(case)
    for key, name in fields.items():
        if name not in record:
            if required(key):
                shown = ", ".join(record) or "none"
                raise ValueError(f"the record has no field {name!r} (its fields: {shown})")
            continue
        _take(out, key, record[name])
    return out


def _take(out: JsonObject, key: str, value: JsonValue) -> None:
    if key == "input":
        if isinstance(value, list):
            out["input_messages"] = value
        else:
            out["input"] = value if isinstance(value, str) else _text(value)
    elif key == "target":
        answers = value if isinstance(value, list) else [value]
        texts = [a if isinstance(a, str) else _text(a) for a in answers]
        if texts:
            out["expected_output"] = texts[0]
        if "expected_outcome" not in out and "outcome" not in out:
            out["expected_outcome"] = (
                texts[0] if len(texts) == 1 else "One of: " + " | ".join(texts)
            )
    elif key == "turns":
        out["turns"] = value
    elif key in ("metadata", "category"):
        extra = value if isinstance(value, dict) else {key: value}
        old = out.get("metadata")
        out["metadata"] = {**(old if isinstance(old, dict) else {}), **extra}


def _text(value: JsonValue) -> str:
    from evalwright import jsontext

    return jsontext.dumps_line(value)


def case_id(record: JsonObject, fields: dict[str, str], template_id: str, number: int) -> str:
    """The case's id: the mapped id field's value, else ``TEMPLATEID-<record number>``."""
    name = fields.get("id")
    if name is not None and name in record and record[name] is not None:
        value = record[name]
        return value if isinstance(value, str) else _text(value)
    return f"{template_id}-{number}"


def record_label(number: int, ident: str | None) -> str:
    """How a message names a record: its number, and its id when it has one."""
    return f"record {number}" + (f" (id {ident!r})" if ident else "")


def where_of(where: Located) -> Located:
    """A record case sits where its template does."""
    return Located(where.path, where.positions)
