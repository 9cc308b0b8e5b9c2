"""The tool-call checks and ``negate`` (docs/tools.md#scoring-tool-calls): each scores the
answer's calls, never its text."""

from __future__ import annotations

from typing import Any

import pytest

from evalwright.evalfile.action_specs import (
    ToolCalledSpec,
    ToolCallF1Spec,
    ToolSequenceSpec,
    TrajectoryMatchSpec,
)
from evalwright.evalfile.evaluator_specs import ContainsSpec
from evalwright.evaluators.base import EvaluatorFailure
from evalwright.evaluators.builtin import check
from evalwright.evaluators.tools import Call

SEARCH = Call("search_flights", {"origin": "SFO", "destination": "JFK", "date": "2024-05-01"})
BOOK = Call("book", {"flight": "UA1", "passenger": {"name": "Ada", "age": 36}})
CANCEL = Call("cancel", {"reservation": "R1"})


def called(**fields: Any) -> ToolCalledSpec:
    return ToolCalledSpec.model_validate({"name": "t", "type": "tool_called", **fields})


def sequence(calls: list[Any], mode: str = "in_order") -> ToolSequenceSpec:
    fields = {"name": "s", "type": "tool_sequence", "calls": calls, "mode": mode}
    return ToolSequenceSpec.model_validate(fields)


def f1(calls: list[Any]) -> ToolCallF1Spec:
    return ToolCallF1Spec.model_validate({"name": "f", "type": "tool_call_f1", "calls": calls})


def test_tool_called_by_name_needs_one_call() -> None:
    spec = called(tool="book")
    assert check(spec, "", [SEARCH, BOOK]).score == 1.0
    none = check(spec, "I booked it.", [])
    assert none.score == 0.0
    assert none.misses == ["0 matching call(s) of 'book' (at least 1 wanted)"]
    assert check(spec, "", [SEARCH]).score == 0.0


def test_tool_called_arguments_match_partially_and_recursively() -> None:
    assert check(called(tool="book", arguments={"flight": "UA1"}), "", [BOOK]).score == 1.0
    nested = called(tool="book", arguments={"passenger": {"name": "Ada"}})
    assert check(nested, "", [BOOK]).score == 1.0
    wrong = check(called(tool="book", arguments={"passenger": {"name": "Bob"}}), "", [BOOK])
    assert wrong.score == 0.0
    assert wrong.reasoning.endswith("; 1 other call(s) of it with other arguments")
    # JSON's true is not 1, and an extra expected key is a miss.
    assert check(called(tool="t", arguments={"a": 1}), "", [Call("t", {"a": True})]).score == 0
    assert check(called(tool="book", arguments={"seat": "1A"}), "", [BOOK]).score == 0.0


def test_tool_called_with_unparsed_arguments_matches_no_argument_check() -> None:
    broken = Call("book", None)
    assert check(called(tool="book"), "", [broken]).score == 1.0
    assert check(called(tool="book", arguments={"flight": "UA1"}), "", [broken]).score == 0.0
    schema = {"type": "object"}
    assert check(called(tool="book", arguments_schema=schema), "", [broken]).score == 0.0


def test_tool_called_arguments_schema() -> None:
    schema = {
        "type": "object",
        "required": ["date"],
        "properties": {"date": {"type": "string", "pattern": r"^\d{4}-\d\d-\d\d$"}},
    }
    spec = called(tool="search_flights", arguments_schema=schema)
    assert check(spec, "", [SEARCH]).score == 1.0
    bad_date = Call("search_flights", {"date": "May 1st"})
    assert check(spec, "", [bad_date]).score == 0.0


@pytest.mark.parametrize(
    ("fields", "count", "score"),
    [
        ({"min": 2}, 1, 0.0),
        ({"min": 2}, 2, 1.0),
        ({"max": 1}, 2, 0.0),
        ({"max": 1}, 0, 0.0),  # min is 1 unless max is 0
        ({"max": 0}, 0, 1.0),
        ({"max": 0}, 1, 0.0),
        ({"min": 0, "max": 2}, 0, 1.0),
        ({"min": 1, "max": 2}, 3, 0.0),
    ],
)
def test_tool_called_counts_duplicates(fields: dict[str, int], count: int, score: float) -> None:
    assert check(called(tool="book", **fields), "", [SEARCH, *[BOOK] * count]).score == score


@pytest.mark.parametrize(
    ("mode", "calls", "score"),
    [
        ("exact", [SEARCH, BOOK], 1.0),
        ("exact", [SEARCH, CANCEL, BOOK], 0.0),  # an extra call
        ("exact", [BOOK, SEARCH], 0.0),
        ("exact", [SEARCH], 0.0),
        ("in_order", [SEARCH, CANCEL, BOOK], 1.0),  # others may come between
        ("in_order", [BOOK, SEARCH], 0.0),
        ("in_order", [BOOK, SEARCH, BOOK], 1.0),
        ("any_order", [BOOK, CANCEL, SEARCH], 1.0),
        ("any_order", [BOOK], 0.0),
        ("any_order", [], 0.0),
        ("in_order", [], 0.0),
    ],
)
def test_tool_sequence_modes(mode: str, calls: list[Call], score: float) -> None:
    assert check(sequence(["search_flights", "book"], mode), "", calls).score == score


def test_tool_sequence_arguments_and_duplicates() -> None:
    spec = sequence([{"name": "book", "arguments": {"flight": "UA1"}}, "book"], "any_order")
    # Two expected calls of one tool need two calls: one call is not counted twice.
    assert check(spec, "", [BOOK]).score == 0.0
    assert check(spec, "", [BOOK, Call("book", {"flight": "UA2"})]).score == 1.0
    wrong = sequence([{"name": "book", "arguments": {"flight": "UA9"}}], "exact")
    verdict = check(wrong, "", [BOOK])
    assert verdict.score == 0.0
    assert verdict.reasoning == "call 1 is not the expected 'book': calls [book]"


def test_tool_call_f1_counts_duplicates_as_a_multiset() -> None:
    once = check(f1(["book", "book"]), "", [BOOK])
    assert once.score == pytest.approx(2 / 3)  # precision 1, recall 1/2
    assert once.reasoning.startswith("precision 1 (1 of 1 calls expected), recall 0.5")
    twice = check(f1(["book"]), "", [BOOK, BOOK])
    assert twice.score == pytest.approx(2 / 3)  # precision 1/2, recall 1
    assert twice.misses == ["1 unexpected call(s)"]
    assert check(f1(["book"]), "", []).score == 0.0
    assert check(f1(["search_flights", "book"]), "", [BOOK, SEARCH]).score == 1.0


def test_tool_call_f1_finds_the_best_pairing_not_the_first() -> None:
    """The first expected call (any arguments) could take the only call the second fits."""
    spec = f1(["book", {"name": "book", "arguments": {"flight": "UA1"}}])
    assert check(spec, "", [BOOK, Call("book", {"flight": "UA2"})]).score == 1.0


EXPECTED = [
    {"role": "user", "content": "Book UA1"},
    {
        "role": "assistant",
        "tool_calls": [{"id": "c1", "name": "search_flights", "arguments": SEARCH.arguments}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "UA1"},
    {
        "role": "assistant",
        "content": "Booking.",
        "tool_calls": [{"id": "c2", "name": "book", "arguments": {"flight": "UA1"}}],
    },
    {"role": "assistant", "content": "Done."},
]


def trajectory(**fields: str) -> TrajectoryMatchSpec:
    return TrajectoryMatchSpec.model_validate({"name": "tr", "type": "trajectory_match", **fields})


def test_trajectory_match_compares_arguments_exactly_by_default() -> None:
    expected = lambda: EXPECTED  # noqa: E731
    # BOOK has a passenger too: not exactly the expected arguments.
    assert check(trajectory(), "", [SEARCH, BOOK], expected).score == 0.0
    assert check(trajectory(arguments="partial"), "", [SEARCH, BOOK], expected).score == 1.0
    exact = [SEARCH, Call("book", {"flight": "UA1"})]
    assert check(trajectory(), "", exact, expected).score == 1.0
    assert check(trajectory(), "", [*exact, CANCEL], expected).score == 0.0
    assert check(trajectory(mode="in_order"), "", [*exact, CANCEL], expected).score == 1.0
    assert check(trajectory(arguments="ignore"), "", [SEARCH, BOOK], expected).score == 1.0


def test_trajectory_match_without_an_expected_assistant_turn_is_an_error() -> None:
    with pytest.raises(EvaluatorFailure, match="expected_messages have no assistant turn"):
        check(trajectory(), "", [SEARCH], list)
    # An assistant turn without calls expects none.
    text_only = lambda: [{"role": "assistant", "content": "No flights."}]  # noqa: E731
    assert check(trajectory(), "", [], text_only).score == 1.0
    assert check(trajectory(), "", [SEARCH], text_only).score == 0.0


def test_negate_flips_the_score_and_says_so() -> None:
    spec = ContainsSpec(name="c", type="contains", value="sorry", negate=True)
    kept = check(spec, "Here is your flight.")
    assert kept.score == 1.0
    assert kept.reasoning.startswith("negated (score 1 = 1 - 0): ")
    assert kept.hits == ["not: missing 'sorry'"]
    assert check(spec, "I am sorry.").score == 0.0
    never = called(tool="cancel", negate=True)
    assert check(never, "", [SEARCH, BOOK]).score == 1.0
    assert check(never, "", [CANCEL]).score == 0.0
    partly = check(f1(["book", "book"]).model_copy(update={"negate": True}), "", [BOOK])
    assert partly.score == pytest.approx(1 / 3)
