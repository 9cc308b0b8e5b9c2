"""Built-in checks: ``contains``, ``regex``, ``equals``, ``is_json``; each scores 1 or 0."""

from __future__ import annotations

import re
from typing import assert_never

from evalwright import jsontext
from evalwright.evalfile.evaluator_specs import ContainsSpec, EqualsSpec, IsJsonSpec, RegexSpec
from evalwright.evaluators.base import Verdict
from evalwright.files.text import normalize_newlines, tidy

BuiltinSpec = ContainsSpec | RegexSpec | EqualsSpec | IsJsonSpec


def check(spec: BuiltinSpec, answer: str) -> Verdict:
    """Score ``answer`` with a built-in check (a spec of no built-in type is a bug: pyright
    fails on a type left out here, and it raises rather than be scored as another)."""
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
        case _:
            assert_never(spec)


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
