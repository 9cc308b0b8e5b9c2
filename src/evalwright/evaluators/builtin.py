"""Built-in checks: ``contains``, ``regex``, ``equals``, ``is_json``, ``json_schema`` on the
answer's text and the tool-call checks on its calls; each may be negated
(docs/tools.md#negate)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, assert_never

from evalwright import jsontext
from evalwright.evalfile.action_specs import (
    CostSpec,
    LatencySpec,
    ToolCalledSpec,
    ToolCallF1Spec,
    ToolSequenceSpec,
    TrajectoryMatchSpec,
)
from evalwright.evalfile.evaluator_specs import (
    ContainsSpec,
    EqualsSpec,
    FuzzyMatchSpec,
    IncludesSpec,
    IsJsonSpec,
    JsonSchemaSpec,
    MatchSpec,
    RegexSpec,
)
from evalwright.evaluators import matchers, tools
from evalwright.evaluators.base import EvaluatorFailure, Verdict
from evalwright.evaluators.tools import Call
from evalwright.files.text import normalize_newlines, tidy
from evalwright.targets.tools import instance_problems, json_path

BuiltinSpec = (
    ContainsSpec
    | RegexSpec
    | EqualsSpec
    | IsJsonSpec
    | JsonSchemaSpec
    | MatchSpec
    | IncludesSpec
    | FuzzyMatchSpec
    | ToolCalledSpec
    | ToolSequenceSpec
    | ToolCallF1Spec
    | TrajectoryMatchSpec
)
Messages = Callable[[], Sequence[dict[str, Any]]]


def check(
    spec: BuiltinSpec,
    answer: str,
    calls: Sequence[Call] = (),
    expected: Messages = list,
    reference: str = "",
) -> Verdict:
    """Score ``answer`` and its tool ``calls`` with a built-in check, negated when the spec
    says so; ``expected`` gives the case's expected messages (read by ``trajectory_match``
    only), ``reference`` its reference answer (the matchers' answers when they name none)."""
    verdict = _score(spec, answer, calls, expected, reference)
    return negated(verdict) if spec.negate else verdict


def limit(
    spec: LatencySpec | CostSpec, latency_ms: float | None, cost_usd: float | None
) -> Verdict:
    """Score 1 when the answer's latency (ms) or cost (USD) is at most the spec's
    ``max_ms`` or ``max_usd`` (docs/eval-files.md#latency-and-cost); unknown is an evaluator
    error, never a pass."""
    if isinstance(spec, LatencySpec):
        measured, unit, most = latency_ms, "ms", spec.max_ms
    else:
        measured, unit, most = cost_usd, "USD", spec.max_usd
    if measured is None:
        raise EvaluatorFailure(f"the answer's {spec.type} is unknown, so it cannot be checked")
    shown = f"{spec.type} {measured:g} {unit}"
    return _binary(measured <= most, f"{shown} <= {most:g}", f"{shown} > {most:g}")


def negated(verdict: Verdict) -> Verdict:
    """``verdict`` turned round (docs/tools.md#negate): ``1 - score``, its hits and misses
    swapped, each marked ``not:``."""
    return Verdict(
        1.0 - verdict.score,
        [f"not: {miss}" for miss in verdict.misses],
        [f"not: {hit}" for hit in verdict.hits],
        f"negated (score {1.0 - verdict.score:g} = 1 - {verdict.score:g}): {verdict.reasoning}",
    )


def _score(
    spec: BuiltinSpec, answer: str, calls: Sequence[Call], expected: Messages, reference: str
) -> Verdict:
    # A spec of no built-in type is a bug: pyright fails on a type left out here, and it
    # raises rather than be scored as another.
    match spec:
        case ContainsSpec():
            return _contains(spec, answer)
        case RegexSpec():
            flags = 0 if spec.case_sensitive else re.IGNORECASE
            found = re.search(spec.value, answer, flags) is not None
            return _binary(found, f"matches /{spec.value}/", f"does not match /{spec.value}/")
        case EqualsSpec():
            return _equals(spec, answer)
        case IsJsonSpec():
            return _is_json(answer)
        case JsonSchemaSpec():
            return _json_schema(spec, answer)
        case MatchSpec() | IncludesSpec() | FuzzyMatchSpec():
            return matchers.match(spec, answer, reference)
        case ToolCalledSpec():
            return tools.tool_called(spec, calls)
        case ToolSequenceSpec():
            return tools.tool_sequence(spec, calls)
        case ToolCallF1Spec():
            return tools.tool_call_f1(spec, calls)
        case TrajectoryMatchSpec():
            return tools.trajectory_match(spec, calls, _trajectory(expected()))
        case _:
            assert_never(spec)


def _trajectory(messages: Sequence[dict[str, Any]]) -> list[Call]:
    if not any(m.get("role") == "assistant" for m in messages):
        raise EvaluatorFailure(
            "trajectory_match needs the expected trajectory: the case's expected_messages "
            "have no assistant turn (write its tool_calls there)"
        )
    return tools.expected_trajectory(messages)


def _equals(spec: EqualsSpec, answer: str) -> Verdict:
    expected, actual = tidy(normalize_newlines(spec.value)), tidy(normalize_newlines(answer))
    if not spec.case_sensitive:
        expected, actual = expected.casefold(), actual.casefold()
    return _binary(expected == actual, "equals the expected text", "differs from the expected text")


def _is_json(answer: str) -> Verdict:
    try:
        jsontext.loads(answer)
    except ValueError as exc:
        return _binary(False, "", f"is not valid JSON ({exc})")
    return _binary(True, "is valid JSON", "")


MAX_SCHEMA_MISSES = 20
"""The schema errors listed in a verdict's misses; the reasoning counts them all."""


def _json_schema(spec: JsonSchemaSpec, answer: str) -> Verdict:
    try:
        value = jsontext.loads(answer)
    except ValueError as exc:
        return _binary(False, "", f"is not valid JSON ({exc})")
    problems = instance_problems(spec.json_schema, value)
    if not problems:
        return _binary(True, "matches the schema", "")
    misses = [f"{json_path(path)}: {message}" for path, message in problems]
    reasoning = f"{len(misses)} schema error(s); first: {misses[0]}"
    return Verdict(0.0, [], misses[:MAX_SCHEMA_MISSES], reasoning)


def _contains(spec: ContainsSpec, answer: str) -> Verdict:
    values = [spec.value] if isinstance(spec.value, str) else spec.value
    haystack = answer if spec.case_sensitive else answer.casefold()
    hits: list[str] = []
    misses: list[str] = []
    for value in values:
        needle = value if spec.case_sensitive else value.casefold()
        (hits if needle in haystack else misses).append(f"contains {value!r}")
    score = 0.0 if misses else 1.0
    reasoning = f"{len(hits)} of {len(values)} required values found"
    return Verdict(score, hits, [m.replace("contains", "missing", 1) for m in misses], reasoning)


def _binary(passed: bool, hit: str, miss: str) -> Verdict:
    if passed:
        return Verdict(1.0, [hit], [], hit)
    return Verdict(0.0, [], [miss], miss)
