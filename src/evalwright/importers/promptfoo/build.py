"""The cases of one promptfoo config: every prompt with every test, conversations chained
(docs/importing.md#cases)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evalwright.importers.promptfoo.asserts import Scripts
from evalwright.importers.promptfoo.cases import CONVERSATION, single_case
from evalwright.importers.promptfoo.conversations import conversation_case, groups
from evalwright.importers.promptfoo.functions import (
    Calls,
    Rendered,
    prompt_settings,
    rendered,
    with_script_variables,
)
from evalwright.importers.promptfoo.media_rules import MediaRules
from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.prompts import Prompt
from evalwright.importers.promptfoo.templates import undefined_variables
from evalwright.importers.promptfoo.tests import Test


@dataclass(slots=True)
class Built:
    """The cases of one config and how many (prompt, test) pairs were and were not carried."""

    cases: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    carried: int = 0
    uncarried: int = 0


def build_cases(
    prompts: list[Prompt],
    tests: list[Test],
    tools: list[dict[str, Any]],
    scripts: Scripts,
    notes: Notes,
    calls: Calls,
    rules: MediaRules | None = None,
) -> Built:
    """One case per (prompt, test), in promptfoo's order (prompts outermost); a prompt
    function is run for each test (``calls``: what it is called with besides); ``rules``:
    what the targets make of media (docs/importing.md#media)."""
    rules = rules or MediaRules()
    built = Built()
    for p, prompt in enumerate(prompts):
        prefix = f"p{p + 1}-" if len(prompts) > 1 else ""
        if prompt.unread:  # noted where the prompt is: each of its pairs is not carried
            built.uncarried += len(tests)
            continue
        if CONVERSATION in prompt.raw:
            _conversations(built, prompt, prefix, tests, tools, scripts, notes)
            continue
        if prompt.script is not None:
            each: list[Rendered | str] = rendered(prompt, tests, calls, notes)
        else:
            settings = prompt_settings(prompt.config, prompt.where, calls, notes)
            each = [Rendered(prompt, settings)] * len(tests)
        for t, (test, found) in enumerate(zip(tests, each, strict=True)):
            case_id = f"{prefix}test-{t + 1}"
            given = (tools, scripts, notes, calls, rules)
            _single(built, (case_id, prompt.where), found, test, given)
    return built


def _single(
    built: Built,
    names: tuple[str, str],
    found: Rendered | str,
    test: Test,
    given: tuple[list[dict[str, Any]], Scripts, Notes, Calls, MediaRules],
) -> None:
    """The case of one (prompt, test) pair, or the pair counted as not carried."""
    tools, scripts, notes, calls, rules = given
    case_id, where = names
    try:
        if isinstance(found, str):
            raise Uncarried(found)
        if test.unread:
            raise Uncarried(test.unread)
        test = with_script_variables(found.prompt, test, calls)
        with undefined_variables() as gaps:
            case = single_case(case_id, found.prompt, test, tools, scripts, notes, rules)
        _note_gaps(gaps, found.prompt, [test], notes)
    except Uncarried as exc:
        notes.add(test.file, test.where, f"{where}: {exc}")
        built.uncarried += 1
        return
    if found.settings:
        case["settings"] = found.settings
    built.cases.append(case)
    built.carried += 1


def _conversations(
    built: Built,
    prompt: Prompt,
    prefix: str,
    tests: list[Test],
    tools: list[dict[str, Any]],
    scripts: Scripts,
    notes: Notes,
) -> None:
    for n, chain in enumerate(groups(tests)):
        key = chain[0].metadata.get("conversationId")
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", str(key)).strip("-") if key else str(n + 1)
        try:
            if unread := next((t.unread for t in chain if t.unread), None):
                raise Uncarried(unread)
            with undefined_variables() as gaps:
                case = conversation_case(
                    f"{prefix}conversation-{slug}", prompt, chain, tools, scripts, notes
                )
            _note_gaps(gaps, prompt, chain, notes)
        except Uncarried as exc:
            for test in chain:
                notes.add(test.file, test.where, f"{prompt.where}: {exc}")
            built.uncarried += len(chain)
            continue
        built.cases.append(case)
        built.carried += len(chain)


def _note_gaps(gaps: set[str], prompt: Prompt, tests: list[Test], notes: Notes) -> None:
    """Undefined variables were rendered as empty text, as promptfoo renders them: said, once
    per test."""
    if not gaps:
        return
    names = ", ".join(repr(name) for name in sorted(gaps))
    for test in tests:
        message = (
            f"{prompt.where}: undefined variable {names} rendered as empty text, as in promptfoo"
        )
        notes.add(test.file, test.where, message)
