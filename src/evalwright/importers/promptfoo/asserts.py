"""promptfoo assertions as evalwright evaluators (docs/importing.md#assertions)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from evalwright.importers.promptfoo.notes import Uncarried
from evalwright.importers.promptfoo.sources import as_list

RUBRIC_PROMPT = """Grade the output against the rubric: score 1 when it meets the rubric fully, \
0 when it does not, a value between for partly.

<Output>
{{candidate_answer}}
</Output>
<Rubric>
%s
</Rubric>"""

ASSERT_SCRIPT = "promptfoo_assert.py"
"""The wrapper script, written beside the eval files, that runs a ``python`` assertion."""

JS_ASSERT_SCRIPT = "promptfoo_assert.mjs"
"""The wrapper script, written beside the eval files, that runs a ``javascript`` assertion
in ``node``."""

Scripts = Callable[[str], str]
"""Copies a ``file://`` assertion script into the output and returns its path there."""


@dataclass(frozen=True, slots=True)
class Context:
    """What an assertion may need beyond its value: the test's variables, the case's tools,
    and the copier of assertion scripts."""

    variables: dict[str, Any]
    tools: list[dict[str, Any]]
    scripts: Scripts
    config: dict[str, Any] | None = None


def evaluator(spec: dict[str, Any], name: str, context: Context) -> dict[str, Any]:
    """The evaluator for one assertion ``spec`` (its value already rendered)."""
    kind = str(spec.get("type", ""))
    negate = kind.startswith("not-")
    base = kind.removeprefix("not-")
    build = _BUILDERS.get(base)
    if "type" not in spec:
        raise Uncarried(f"assertion {spec!r} has no type ($ref is not resolved)")
    if base == "javascript":
        build = _javascript(negate, spec.get("threshold"))
        negate = False  # promptfoo inverts only a boolean result: the wrapper does
    if base in LIMITS:
        build = _limit(base, spec.get("threshold"))
    if build is None:
        raise Uncarried(f"assertion type {kind!r} has no evalwright evaluator")
    if base == "python":
        context = replace(context, config=spec.get("config"))
    out: dict[str, Any] = {"name": name, **build(spec.get("value"), context)}
    if negate:
        if out["type"] in ("llm_judge", "code", *LIMITS):
            raise Uncarried(f"assertion type {kind!r}: a judge, script or limit is not negated")
        out["negate"] = True
    weight = spec.get("weight")
    if weight is not None:
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise Uncarried(f"weight {weight!r}: evalwright weights are numbers of at least 0")
        out["weight"] = weight
    return out


LIMITS = ("latency", "cost")
"""promptfoo's threshold assertions, imported as evalwright's ``latency`` and ``cost``."""


def _limit(kind: str, threshold: Any) -> Callable[[Any, Context], dict[str, Any]]:
    # promptfoo refuses a missing or 0 threshold
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or threshold <= 0:
        raise Uncarried(f"{kind} assertion: threshold {threshold!r} is not a number above 0")
    field = "max_ms" if kind == "latency" else "max_usd"
    return lambda _value, _context: {"type": kind, field: threshold}


def _texts(value: Any) -> list[str]:
    values = as_list(value)
    if not values or not all(isinstance(v, (str, int, float)) for v in values):
        raise Uncarried(f"value {value!r}: expected text or a list of texts")
    return [v if isinstance(v, str) else json.dumps(v) for v in values]  # pyright: ignore[reportUnknownVariableType]


def _text(value: Any) -> str:
    texts = _texts(value)
    if isinstance(value, list):
        raise Uncarried(f"value {value!r}: expected one text")
    return texts[0]


def _contains(
    case: bool, every: bool, single: bool = False
) -> Callable[[Any, Context], dict[str, Any]]:
    def build(value: Any, _context: Context) -> dict[str, Any]:
        if isinstance(value, str) and not single:
            # promptfoo reads a string of an -any or -all assertion as comma-separated values
            value = [part.strip() for part in value.split(",")]
        kind = "contains" if every or not isinstance(value, list) else "includes"
        return {"type": kind, "value": _texts(value), "case_sensitive": case}

    return build


def _equals(value: Any, _context: Context) -> dict[str, Any]:
    return {"type": "equals", "value": _text(value)}


def _regex(value: Any, _context: Context) -> dict[str, Any]:
    return {"type": "regex", "value": _text(value)}


def _starts_with(value: Any, _context: Context) -> dict[str, Any]:
    return {"type": "regex", "value": r"\A" + re.escape(_text(value))}


def _is_json(value: Any, _context: Context) -> dict[str, Any]:
    if value is None:
        return {"type": "is_json"}
    if isinstance(value, dict):
        return {"type": "json_schema", "schema": value}
    raise Uncarried(f"is-json value {value!r}: only an inline schema is imported")


def _rubric(value: Any, _context: Context) -> dict[str, Any]:
    rubric = _text(value).replace("{{", "\\{{")
    return {"type": "llm_judge", "prompt": RUBRIC_PROMPT % rubric}


def _python(value: Any, context: Context) -> dict[str, Any]:
    code = _text(value)
    args = ["python3", ASSERT_SCRIPT, "--vars", json.dumps(context.variables, ensure_ascii=False)]
    config = context.config
    if config:
        args += ["--config", json.dumps(config, ensure_ascii=False)]
    if code.startswith("file://"):
        path, _, function = code.removeprefix("file://").partition(":")
        args += ["--file", context.scripts(path), "--function", function or "get_assert"]
    else:
        args += ["--inline", code]
    return {"type": "code", "script": args}


def _javascript(inverse: bool, threshold: Any) -> Callable[[Any, Context], dict[str, Any]]:
    """A ``javascript`` assertion as a ``code`` evaluator running it in ``node`` as promptfoo
    does (docs/importing.md#python-and-javascript-assertions)."""
    number = isinstance(threshold, (int, float)) and not isinstance(threshold, bool)
    if threshold is not None and not number:
        raise Uncarried(f"javascript assertion: threshold {threshold!r} is not a number")

    def build(value: Any, context: Context) -> dict[str, Any]:
        code = _text(value)
        variables = json.dumps(context.variables, ensure_ascii=False)
        args = ["node", JS_ASSERT_SCRIPT, "--vars", variables, "--inverse", str(inverse).lower()]
        if threshold is not None:
            args += ["--threshold", str(threshold)]
        if code.startswith("file://"):
            path, _, function = code.removeprefix("file://").partition(":")
            args += ["--file", context.scripts(path)]
            args += ["--function", function] if function else []
        else:
            args += ["--inline", code]
        return {"type": "code", "script": args}

    return build


def _openai_tools(value: Any, context: Context) -> dict[str, Any]:
    if value is not None or len(context.tools) != 1:
        raise Uncarried(
            "is-valid-openai-tools-call is imported only for a case offering exactly one tool"
        )
    tool = context.tools[0]
    out: dict[str, Any] = {"type": "tool_called", "tool": tool["name"]}
    if "parameters" in tool:
        out["arguments_schema"] = tool["parameters"]
    return out


def _tool_f1(value: Any, _context: Context) -> dict[str, Any]:
    return {"type": "tool_call_f1", "calls": _texts(value)}


_BUILDERS: dict[str, Callable[[Any, Context], dict[str, Any]]] = {
    "contains": _contains(True, True, single=True),
    "icontains": _contains(False, True, single=True),
    "contains-all": _contains(True, True),
    "icontains-all": _contains(False, True),
    "contains-any": _contains(True, False),
    "icontains-any": _contains(False, False),
    "equals": _equals,
    "regex": _regex,
    "starts-with": _starts_with,
    "is-json": _is_json,
    "llm-rubric": _rubric,
    "python": _python,
    "is-valid-openai-tools-call": _openai_tools,
    "tool-call-f1": _tool_f1,
}
