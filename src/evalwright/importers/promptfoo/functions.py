"""promptfoo prompt functions, run at import time for each test's variables and each of the
config's providers, their prompts written out as static text
(docs/importing.md#code-the-config-names)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.prompts import Prompt
from evalwright.importers.promptfoo.scripts import Failed, Script, run, run_file
from evalwright.importers.promptfoo.targets import case_settings
from evalwright.importers.promptfoo.tests import Test


@dataclass(frozen=True, slots=True)
class Calls:
    """What a prompt function is called with besides a test's variables: the config's
    providers (promptfoo's ``provider``: id and label), and where the config is."""

    providers: list[dict[str, Any]]
    base: Path
    shown: str
    targets: bool = True
    """Whether any provider became a target (the mock standing in takes no settings)."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """A prompt function's prompt for one test, as a static prompt, and the settings its
    returned ``config`` maps to."""

    prompt: Prompt
    settings: dict[str, Any] = field(default_factory=dict[str, Any])


def rendered(prompt: Prompt, tests: list[Test], calls: Calls, notes: Notes) -> list[Rendered | str]:
    """For each test: ``prompt``'s function's prompt, or why the pair is not carried."""
    script = prompt.script
    assert script is not None
    if not calls.providers:
        why = "promptfoo hands a prompt function a provider, and the config names none"
        return [why] * len(tests)
    readable = [t for t in tests if not t.unread]
    contexts = [_context(prompt, t, p) for t in readable for p in calls.providers]
    try:
        values = _values(script, contexts)
    except Uncarried as exc:
        return [t.unread or str(exc) for t in tests]
    notes.add(calls.shown, prompt.where, f"rendered at import time by running {script.shown}")
    width = len(calls.providers)
    out: list[Rendered | str] = []
    for test in tests:
        if test.unread:
            out.append(test.unread)
            continue
        index = readable.index(test) * width
        try:
            out.append(_one(prompt, values[index : index + width], calls, notes))
        except Uncarried as exc:
            out.append(f"{script.shown}: {exc}")
    return out


def _context(prompt: Prompt, test: Test, provider: dict[str, Any]) -> dict[str, Any]:
    return {"vars": test.variables, "provider": provider, "config": prompt.config}


def _values(script: Script, contexts: list[dict[str, Any]]) -> list[Any]:
    if script.python and script.function is None:
        # promptfoo runs a Python prompt file named without a function whole, once per pair
        return [run_file(script, context) for context in contexts]
    return run(script, [[context] for context in contexts])


def _one(prompt: Prompt, values: list[Any], calls: Calls, notes: Notes) -> Rendered:
    failed = next((v for v in values if isinstance(v, Failed)), None)
    if failed is not None:
        raise Uncarried(f"failed: {failed.why}")
    if any(v != values[0] for v in values):
        names = ", ".join(repr(p.get("label") or p["id"]) for p in calls.providers)
        raise Uncarried(
            f"returns a different prompt for each provider ({names}): evalwright sends a case "
            "alike to every target"
        )
    value = values[0]
    config: dict[str, Any] = dict(prompt.config)
    if isinstance(value, dict) and "prompt" in value:
        config.update(value.get("config") or {})  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        value = value["prompt"]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, str):
        raw = value
    elif isinstance(value, dict | list):
        raw = json.dumps(value)
    else:
        raise Uncarried(f"returned {value!r}, not a string, a chat or {{prompt, config}}")
    settings = prompt_settings(config, prompt.where, calls, notes)
    return Rendered(Prompt(prompt.label, raw, prompt.where), settings)


def prompt_settings(
    config: dict[str, Any], where: str, calls: Calls, notes: Notes
) -> dict[str, Any]:
    """A prompt's provider ``config`` as a case's settings (docs/importing.md#providers)."""
    if not config:
        return {}
    if not calls.targets:
        notes.add(calls.shown, f"{where}.config", "not carried: no provider became a target")
        return {}
    return case_settings(config, f"{where}.config", calls.base, calls.shown, notes)
