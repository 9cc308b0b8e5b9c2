"""Scripted tool results (docs/tools.md#scripted-results): the first ``results`` entry whose
``when`` the arguments match, a fixed ``result``, and an error for a call nothing matches."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from evalwright.jsontext import JsonObject
from evalwright.targets.tools import ToolSpec
from evalwright.tools.base import Outcome
from evalwright.tools.scripted import scripted

FLIGHTS = ToolSpec.model_validate(
    {
        "name": "search",
        "results": [
            {"when": {"origin": "JFK", "filters": {"direct": True}}, "result": ["HAT083"]},
            {"when": {"origin": "JFK"}, "result": "any JFK flight"},
            {"when": {"origin": "ZZZ"}, "error": "no such airport"},
        ],
    }
)


@pytest.mark.parametrize(
    ("arguments", "outcome"),
    [
        ({"origin": "JFK", "filters": {"direct": True, "max": 2}}, Outcome('["HAT083"]')),
        ({"origin": "JFK", "filters": {"direct": 1}}, Outcome("any JFK flight")),  # 1 is no true
        ({"origin": "JFK"}, Outcome("any JFK flight")),
        ({"origin": "ZZZ"}, Outcome("no such airport", is_error=True)),
    ],
)
def test_the_first_matching_entry_answers(arguments: JsonObject, outcome: Outcome) -> None:
    assert scripted(FLIGHTS, arguments) == outcome


def test_a_call_no_entry_matches_is_an_error_naming_its_arguments() -> None:
    outcome = scripted(FLIGHTS, {"origin": "SFO"})
    assert outcome == Outcome(
        'no scripted result of search matches the arguments {"origin": "SFO"}', True
    )


@pytest.mark.parametrize(
    ("result", "text"),
    [
        ("plain text", "plain text"),
        ({"ok": True, "ü": 1}, '{"ok": true, "ü": 1}'),
        ([1, 2], "[1, 2]"),
        (None, "null"),
        (3.5, "3.5"),
    ],
)
def test_a_fixed_result_is_sent_as_text_or_json(result: JsonValue, text: str) -> None:
    tool = ToolSpec.model_validate({"name": "t", "result": result})
    assert tool.implemented
    assert scripted(tool, {"anything": 1}) == Outcome(text)


def test_an_entry_without_when_matches_every_call() -> None:
    tool = ToolSpec.model_validate({"name": "t", "results": [{"result": "default"}]})
    assert scripted(tool, {}) == Outcome("default")


def test_a_tool_without_an_implementation_is_not_implemented() -> None:
    assert not ToolSpec(name="t").implemented
    assert ToolSpec.model_validate({"name": "t", "result": None}).implemented
