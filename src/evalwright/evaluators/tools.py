"""The tool-call checks: ``tool_called``, ``tool_sequence``, ``tool_call_f1`` and
``trajectory_match`` over the answer's calls (docs/tools.md#scoring-tool-calls)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evalwright.evalfile.action_specs import (
    ExpectedCall,
    Order,
    ToolCalledSpec,
    ToolCallF1Spec,
    ToolSequenceSpec,
    TrajectoryMatchSpec,
)
from evalwright.evaluators.base import Verdict
from evalwright.jsontext import JsonValue, same


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call as the checks see it: the tool's name and its parsed arguments (``None``
    when the model's arguments were no JSON object)."""

    name: str
    arguments: Mapping[str, JsonValue] | None


Matches = Callable[[ExpectedCall, Call], bool]


def matcher(arguments: Literal["exact", "partial", "ignore"] = "partial") -> Matches:
    """Whether a call is the expected one: the same name, and arguments compared as said
    (an expected call without ``arguments`` takes any)."""

    def matches(expected: ExpectedCall, call: Call) -> bool:
        if expected.name != call.name:
            return False
        if expected.arguments is None or arguments == "ignore":
            return True
        if call.arguments is None:
            return False
        return same(expected.arguments, dict(call.arguments), partial=arguments == "partial")

    return matches


def tool_called(spec: ToolCalledSpec, calls: Sequence[Call]) -> Verdict:
    """Count the calls of ``spec.tool`` whose arguments match; pass within [least, max]."""
    named = [c for c in calls if c.name == spec.tool]
    found = [c for c in named if _arguments_fit(spec, c)]
    low, high = spec.least, spec.max
    wanted = f"at least {low}" if high is None else f"{low} to {high}"
    said = f"{len(found)} matching call(s) of '{spec.tool}' ({wanted} wanted)"
    if len(named) > len(found):
        said += f"; {len(named) - len(found)} other call(s) of it with other arguments"
    passed = low <= len(found) and (high is None or len(found) <= high)
    return _binary(passed, said)


def _arguments_fit(spec: ToolCalledSpec, call: Call) -> bool:
    if spec.arguments is not None:
        return call.arguments is not None and same(
            spec.arguments, dict(call.arguments), partial=True
        )
    if spec.arguments_schema is not None:
        from jsonschema.validators import validator_for  # lazily: only a schema check needs it

        if call.arguments is None:
            return False
        validator = validator_for(spec.arguments_schema)
        return validator(spec.arguments_schema).is_valid(dict(call.arguments))
    return True


def tool_sequence(spec: ToolSequenceSpec, calls: Sequence[Call]) -> Verdict:
    """Whether the calls follow ``spec.calls`` as ``spec.mode`` says."""
    return follows(spec.calls, calls, spec.mode, matcher("partial"))


def trajectory_match(
    spec: TrajectoryMatchSpec, calls: Sequence[Call], expected: Sequence[Call]
) -> Verdict:
    """Whether the calls follow the expected trajectory (its calls' arguments compared as
    ``spec.arguments`` says)."""
    wanted = [ExpectedCall(name=c.name, arguments=dict(c.arguments or {})) for c in expected]
    return follows(wanted, calls, spec.mode, matcher(spec.arguments))


def follows(
    expected: Sequence[ExpectedCall], calls: Sequence[Call], mode: Order, matches: Matches
) -> Verdict:
    """``exact``: position by position, no more, no fewer; ``in_order``: a subsequence;
    ``any_order``: each expected call matched to a call of its own."""
    shown = f"calls [{', '.join(c.name for c in calls)}]"
    if mode == "exact":
        if len(expected) != len(calls):
            return _binary(False, f"{len(calls)} call(s), {len(expected)} expected: {shown}")
        for n, (want, call) in enumerate(zip(expected, calls, strict=True), 1):
            if not matches(want, call):
                return _binary(False, f"call {n} is not the expected '{want.name}': {shown}")
        return _binary(True, f"exactly the {len(expected)} expected call(s)")
    if mode == "in_order":
        at = 0
        for call in calls:
            if at < len(expected) and matches(expected[at], call):
                at += 1
        if at < len(expected):
            said = f"'{expected[at].name}' (expected call {at + 1}) not found in order: {shown}"
            return _binary(False, said)
        return _binary(True, f"the {len(expected)} expected call(s) in order")
    pairs = pairing(expected, calls, matches)
    missing = [e.name for n, e in enumerate(expected) if n not in pairs]
    if missing:
        return _binary(False, f"missing {', '.join(repr(m) for m in missing)}: {shown}")
    return _binary(True, f"each of the {len(expected)} expected call(s)")


def tool_call_f1(spec: ToolCallF1Spec, calls: Sequence[Call]) -> Verdict:
    """F1 of the expected calls against the answer's; duplicates count as a multiset: each
    expected call is matched to at most one call and each call to at most one expected."""
    pairs = pairing(spec.calls, calls, matcher("partial"))
    matched = len(pairs)
    precision = matched / len(calls) if calls else 0.0
    recall = matched / len(spec.calls)
    f1 = 2 * precision * recall / (precision + recall) if matched else 0.0
    reasoning = (
        f"precision {precision:.3g} ({matched} of {len(calls)} calls expected), "
        f"recall {recall:.3g} ({matched} of {len(spec.calls)} expected calls made), F1 {f1:.3g}"
    )
    hits = [f"called '{e.name}'" for n, e in enumerate(spec.calls) if n in pairs]
    misses = [f"did not call '{e.name}'" for n, e in enumerate(spec.calls) if n not in pairs]
    extra = len(calls) - matched
    return Verdict(f1, hits, misses + ([f"{extra} unexpected call(s)"] if extra else []), reasoning)


def pairing(
    expected: Sequence[ExpectedCall], calls: Sequence[Call], matches: Matches
) -> dict[int, int]:
    """The most expected calls that can each be given a call of their own (a maximum
    bipartite matching: a greedy one may miss, when partial arguments let one call match
    several expected ones). Maps an expected call's index to its call's."""
    owner: dict[int, int] = {}  # call index -> expected index

    def place(e: int, seen: set[int]) -> bool:
        for c, call in enumerate(calls):
            if c in seen or not matches(expected[e], call):
                continue
            seen.add(c)
            if c not in owner or place(owner[c], seen):
                owner[c] = e
                return True
        return False

    for e in range(len(expected)):
        place(e, set())
    return {e: c for c, e in owner.items()}


def expected_trajectory(messages: Sequence[Mapping[str, Any]]) -> list[Call]:
    """The tool calls of the authored assistant turns, in order."""
    return [
        Call(str(call["name"]), call.get("arguments") or {})
        for message in messages
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or ()
    ]


def _binary(passed: bool, said: str) -> Verdict:
    return Verdict(1.0, [said], [], said) if passed else Verdict(0.0, [], [said], said)
