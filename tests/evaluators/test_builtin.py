"""The built-in checks: each scores 1 or 0 and says why."""

from __future__ import annotations

from typing import get_args

import pytest

from evalwright.evalfile.evaluator_specs import (
    EVALUATOR_TYPES,
    LIMIT_TYPES,
    WORKSPACE_CHECK_TYPES,
    CodeSpec,
    ContainsSpec,
    EqualsSpec,
    IsJsonSpec,
    JsonSchemaSpec,
    RegexSpec,
)
from evalwright.evaluators.builtin import BuiltinSpec, check
from evalwright.evaluators.tools import Call


def test_contains_needs_every_value() -> None:
    spec = ContainsSpec(name="c", type="contains", value=["loop", "bug"])
    assert check(spec, "the loop has a bug").score == 1.0
    missing = check(spec, "the loop is fine")
    assert missing.score == 0.0
    assert missing.hits == ["contains 'loop'"]
    assert missing.misses == ["missing 'bug'"]
    assert missing.reasoning == "1 of 2 required values found"


def test_contains_case_and_single_value() -> None:
    insensitive = ContainsSpec(name="c", type="contains", value="LOOP", case_sensitive=False)
    assert check(insensitive, "a loop").score == 1.0
    assert check(ContainsSpec(name="c", type="contains", value="LOOP"), "a loop").score == 0.0


@pytest.mark.parametrize(
    ("pattern", "sensitive", "answer", "score"),
    [
        ("^Answer: \\d+$", True, "Answer: 42", 1.0),
        ("answer", True, "Answer", 0.0),
        ("answer", False, "ANSWER", 1.0),
        ("\\bzero\\b", True, "nonzero", 0.0),
    ],
)
def test_regex_searches(pattern: str, sensitive: bool, answer: str, score: float) -> None:
    spec = RegexSpec(name="r", type="regex", value=pattern, case_sensitive=sensitive)
    verdict = check(spec, answer)
    assert verdict.score == score
    assert (verdict.hits if score else verdict.misses)[0].endswith(f"/{pattern}/")


def test_equals_tidies_both_sides() -> None:
    spec = EqualsSpec(name="e", type="equals", value="\n  42  \r\n\n")
    assert check(spec, "  42\n\n").score == 1.0
    assert check(spec, "43").score == 0.0
    loose = EqualsSpec(name="e", type="equals", value="Paris", case_sensitive=False)
    assert check(loose, "PARIS").score == 1.0
    assert check(EqualsSpec(name="e", type="equals", value="Paris"), "paris").score == 0.0


def test_is_json() -> None:
    spec = IsJsonSpec(name="j", type="is_json")
    assert check(spec, ' {"a": [1, 2]} ').score == 1.0
    broken = check(spec, '{"a": ')
    assert broken.score == 0.0
    assert broken.misses[0].startswith("is not valid JSON")


def test_is_json_of_an_answer_too_deep_to_read_is_a_miss_not_a_crash() -> None:
    """Found by fuzzing: Python's parser raises RecursionError on deep input."""
    spec = IsJsonSpec(name="j", type="is_json")
    deep = check(spec, "[" * 100_000 + "]" * 100_000)
    assert deep.score == 0.0
    assert deep.misses == ["is not valid JSON (JSON nested too deeply to read)"]


ORDER = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"price": {"type": "number"}}},
        }
    },
    "required": ["items"],
}


def _order_check(**extra: object) -> JsonSchemaSpec:
    return JsonSchemaSpec.model_validate(
        {"name": "s", "type": "json_schema", "schema": ORDER} | extra
    )


def test_json_schema_scores_an_answer_that_parses_and_validates() -> None:
    verdict = check(_order_check(), '{"items": [{"price": 1}, {"price": 2.5}]}')
    assert (verdict.score, verdict.hits) == (1.0, ["matches the schema"])


def test_json_schema_names_each_error_by_its_path() -> None:
    answer = '{"items": [{"price": 1}, {"price": 2}, {"price": "x"}, {"price": null}]}'
    verdict = check(_order_check(), answer)
    assert verdict.score == 0.0
    assert verdict.misses == [
        "$.items[2].price: 'x' is not of type 'number'",
        "$.items[3].price: None is not of type 'number'",
    ]
    assert check(_order_check(), "{}").misses == ["$: 'items' is a required property"]


def test_json_schema_of_an_answer_that_is_not_json_is_a_miss() -> None:
    verdict = check(_order_check(), "Here is the order: {")
    assert verdict.score == 0.0
    assert verdict.misses[0].startswith("is not valid JSON")


def test_json_schema_negated_passes_an_answer_the_schema_refuses() -> None:
    refused = check(_order_check(negate=True), '{"items": [{"price": "x"}]}')
    accepted = check(_order_check(negate=True), '{"items": []}')
    assert (refused.score, refused.hits) == (
        1.0,
        ["not: $.items[0].price: 'x' is not of type 'number'"],
    )
    assert (accepted.score, accepted.misses) == (0.0, ["not: matches the schema"])


# Each built-in type's verdict on the answer "x" with one call of "x", given "x" (its own
# fields): its own hits and misses.
OWN_VERDICTS: dict[str, tuple[dict[str, object], list[str]]] = {
    "contains": ({"value": "x"}, ["contains 'x'"]),
    "regex": ({"value": "x"}, ["matches /x/"]),
    "equals": ({"value": "x"}, ["equals the expected text"]),
    "is_json": ({}, ["is not valid JSON (Expecting value: line 1 column 1 (char 0))"]),
    "json_schema": (
        {"schema": {"type": "object"}},
        ["is not valid JSON (Expecting value: line 1 column 1 (char 0))"],
    ),
    "match": ({"value": "x"}, ["starts with 'x'"]),
    "includes": ({"value": "x"}, ["includes 'x'"]),
    "fuzzy_match": ({"value": "x"}, ["fuzzily matches 'x'"]),
    "tool_called": ({"tool": "x"}, ["1 matching call(s) of 'x' (at least 1 wanted)"]),
    "tool_sequence": ({"calls": ["x"]}, ["the 1 expected call(s) in order"]),
    "tool_call_f1": ({"calls": ["x"]}, ["called 'x'"]),
    "trajectory_match": ({"arguments": "ignore"}, ["exactly the 1 expected call(s)"]),
}


def test_every_declared_built_in_type_is_checked_as_itself() -> None:
    # Not the judge, the script, a workspace's checks (tests/evaluators/test_workspace.py) nor
    # the limits on what the answer took (tests/evaluators/test_limits.py).
    declared = set(EVALUATOR_TYPES) - {"llm_judge", "code", *WORKSPACE_CHECK_TYPES, *LIMIT_TYPES}
    assert {cls.model_fields["type"].default for cls in get_args(BuiltinSpec)} == declared
    assert set(OWN_VERDICTS) == declared
    expected = [{"role": "assistant", "tool_calls": [{"id": "1", "name": "x"}]}]
    for cls in get_args(BuiltinSpec):
        kind = cls.model_fields["type"].default
        own, said = OWN_VERDICTS[kind]
        verdict = check(
            cls.model_validate({"name": "n", "type": kind} | own),
            "x",
            [Call("x", {})],
            lambda: expected,
        )
        assert [*verdict.hits, *verdict.misses] == said


def test_a_spec_of_no_built_in_type_is_refused_not_scored_as_json() -> None:
    script = CodeSpec(name="s", type="code", script=["true"])
    with pytest.raises(AssertionError):
        check(script, "{}")  # pyright: ignore[reportArgumentType]
