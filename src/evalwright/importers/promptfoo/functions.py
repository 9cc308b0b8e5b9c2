"""promptfoo prompt functions, run at import time for each test's variables and each of the
config's providers, their prompts written out as static text
(docs/importing.md#code-the-config-names)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.prompts import Prompt
from evalwright.importers.promptfoo.scripts import Failed, Script, run, run_file
from evalwright.importers.promptfoo.sources import mapping
from evalwright.importers.promptfoo.targets import case_settings
from evalwright.importers.promptfoo.tests import ScriptVariable, Test


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
    return {"vars": _plain(test.variables), "provider": provider, "config": prompt.config}


def _plain(variables: dict[str, Any]) -> dict[str, Any]:
    """The variables as a script is handed them: a script variable not yet run is still its
    ``file://`` reference, as in promptfoo."""
    return {k: v.reference if isinstance(v, ScriptVariable) else v for k, v in variables.items()}


def with_script_variables(prompt: Prompt, test: Test, calls: Calls) -> Test:
    """``test`` with each script variable's value for ``prompt``: its script run now, called
    as promptfoo calls it (name, prompt, variables; a JavaScript one with the provider)."""
    if not any(isinstance(v, ScriptVariable) for v in test.variables.values()):
        return test
    variables = dict(test.variables)
    provider = calls.providers[0] if calls.providers else None
    for name, value in test.variables.items():
        if not isinstance(value, ScriptVariable):
            continue
        script = value.script
        args: list[Any] = [name, prompt.raw, _plain(variables)]
        found = run(script, [args if script.python else [*args, provider]])[0]
        variables[name] = _output(script, found)
    return replace(test, variables=variables)


def _output(script: Script, found: Any) -> str:
    if isinstance(found, Failed):
        raise Uncarried(f"variable script {script.shown} failed: {found.why}")
    given = mapping(found) or {}
    if given.get("error"):
        raise Uncarried(f"variable script {script.shown} failed: {given['error']}")
    output = given.get("output")
    if not output:
        raise Uncarried(f"variable script {script.shown} gave no output: {found!r}")
    # promptfoo trims a Python script's output and keeps a JavaScript one's as given
    return str(output).strip() if script.python else str(output)


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
