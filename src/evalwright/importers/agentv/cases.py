"""AgentV HEAD tests (``id``, ``vars``, ``assert``; inline or in a test file) as evalwright
cases (docs/importing.md#from-agentv)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from evalwright.files.project import display_path
from evalwright.importers.agentv.asserts import map_asserts
from evalwright.importers.agentv.files import Copier
from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.sources import (
    FILE_PREFIX,
    Source,
    file_path,
    mapping,
    read_records,
    sequence,
)

DEFAULT_OUTCOME = "Passes the AgentV test's assertions."
CRITERIA_JUDGE = "criteria"
"""The name of the judge that grades a test's plain-text assertions beside its others."""
# Test keys the importer reads; any other key is noted with the test.
_READ = frozenset({"id", "vars", "assert", "conversation_id", "description"})


@dataclass(frozen=True, slots=True)
class Suite:
    """What every test of a suite shares: its assertions and the default variables."""

    asserts: list[Any]
    variables: dict[str, Any]


@dataclass(slots=True)
class Cases:
    """The cases of one suite, and how many of its tests were and were not carried."""

    cases: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    carried: int = 0
    uncarried: int = 0


def read_cases(source: Source, suite: Suite, files: Copier, notes: Notes) -> Cases:
    """Every test of ``source`` as a case, in the suite's order; a test that cannot be
    carried is noted, with why."""
    built = Cases()
    for file, where, test in _raw_tests(source):
        try:
            case = _case(test, file, where, suite, files, notes)
        except Uncarried as exc:
            notes.add(file, where, f"test not carried: {exc}")
            built.uncarried += 1
            continue
        built.cases.append(case)
        built.carried += 1
    return built


def _raw_tests(source: Source) -> list[tuple[str, str, Any]]:
    """(file, where, test) for each test: inline, or read from a test file ``tests`` (or an
    item of it) names."""
    value = (mapping(source.data) or {}).get("tests")
    if isinstance(value, str):
        return _file_tests(source, value, ("tests",))
    tests = sequence(value)
    if tests is None:
        raise source.fail(("tests",), "expected a list of tests or a test file's path")
    found: list[tuple[str, str, Any]] = []
    for n, test in enumerate(tests):
        if isinstance(test, str):
            found += _file_tests(source, test, ("tests", n))
        else:
            found.append((source.shown, f"tests[{n}]", test))
    return found


def _file_tests(source: Source, name: str, at: tuple[str | int, ...]) -> list[tuple[str, str, Any]]:
    path = file_path(source.path.parent, name.removeprefix(FILE_PREFIX))
    if not path.is_file():
        raise source.fail(at, f"test file not found: {name!r} (looked for {path})")
    records = read_records(path)
    return [(display_path(path), f"tests[{n}]", r) for n, r in enumerate(records)]


def _case(
    raw: Any, file: str, where: str, suite: Suite, files: Copier, notes: Notes
) -> dict[str, Any]:
    test = mapping(raw)
    if test is None or not isinstance(test.get("id"), str):
        raise Uncarried("a test is a mapping with an 'id'")
    unread = sorted(set(test) - _READ)
    if {"turns", "mode"} & set(unread):
        raise Uncarried("a live multi-turn test (mode: conversation, turns) is not imported")
    for key in unread:
        notes.add(file, f"{where}.{key}", "not carried: no evalwright equivalent")
    if test.get("vars") is not None and mapping(test.get("vars")) is None:
        raise Uncarried(f"vars {test.get('vars')!r}: expected a mapping")
    variables: dict[str, Any] = {**suite.variables, **(mapping(test.get("vars")) or {})}
    case: dict[str, Any] = {"id": test["id"], **_messages(variables, files, file, where)}
    if isinstance(test.get("conversation_id"), str):
        case["conversation_id"] = test["conversation_id"]
    own = test.get("assert")
    if own is not None and sequence(own) is None:
        raise Uncarried(f"assert {own!r}: expected a list of assertions")
    specs = [*suite.asserts, *(sequence(own) or [])]
    mapped = map_asserts(specs, f"{where}.assert", variables, files)
    for at, why in mapped.uncarried:
        notes.add(file, at, f"not carried: {why}")
    if specs and not mapped.criteria and not mapped.evaluators:
        raise Uncarried("none of its assertions has an evalwright form")
    case["expected_outcome"] = _outcome(mapped.criteria, test)
    found = mapped.evaluators
    if found and mapped.criteria:
        found = [{"name": CRITERIA_JUDGE, "type": "llm_judge"}, *found]
    if found:
        case["execution"] = {"evaluators": found}
    rest = {k: v for k, v in variables.items() if k not in ("input", "expected_output")}
    if rest:
        case["metadata"] = {"agentv_vars": rest}
    return case


def _outcome(criteria: list[str], test: dict[str, Any]) -> str:
    """The judge's criteria: the test's plain-text assertions, one per line."""
    if len(criteria) == 1:
        return criteria[0]
    if criteria:
        return "\n".join(f"- {line}" for line in criteria)
    description = test.get("description")
    return description if isinstance(description, str) and description else DEFAULT_OUTCOME


def _messages(variables: dict[str, Any], files: Copier, file: str, where: str) -> dict[str, Any]:
    """``vars.input`` and ``vars.expected_output`` as the case's input and expected answer:
    text as text, a message list as messages, structured output as its JSON text."""
    out: dict[str, Any] = {}
    given = variables.get("input")
    if isinstance(given, str):
        out["input"] = given
    elif (given := sequence(given)) is not None:
        out["input_messages"] = files.messages(given, file, f"{where}.vars.input")
    elif given is None:
        raise Uncarried("no vars.input: the test sends nothing")
    else:
        raise Uncarried(f"vars.input {given!r}: expected text or a list of messages")
    expected = variables.get("expected_output")
    if isinstance(expected, str):
        out["expected_output"] = expected
    elif (listed := sequence(expected)) is not None:
        out["expected_messages"] = files.messages(listed, file, f"{where}.vars.expected_output")
    elif isinstance(expected, dict):
        out["expected_output"] = json.dumps(expected, ensure_ascii=False)
    elif expected is not None:
        raise Uncarried(f"vars.expected_output {expected!r}: expected text or messages")
    return out
