"""AgentV HEAD assertions as evalwright evaluators (docs/importing.md#from-agentv): the types
AgentV shares with promptfoo through promptfoo's mapping, ``script`` graders as ``code``
evaluators, plain strings as the criteria of the default judge."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from evalwright.importers.promptfoo.asserts import Context, Scripts, evaluator
from evalwright.importers.promptfoo.notes import Uncarried
from evalwright.importers.promptfoo.sources import mapping, sequence

# The keys of an assertion this importer reads; any other is noted, never dropped silently.
# ``id``, ``metric`` and ``name`` name the evaluator; ``required: true`` is evalwright's too.
_NAMING = frozenset({"type", "weight", "metric", "name", "id", "required"})
_SHARED_KEYS = _NAMING | {"value"}
_SCRIPT_KEYS = _NAMING | {"command", "cwd"}
# A command argument that may name a grader file beside the suite: copied into the import.
_SCRIPT_FILE = re.compile(r"\.(py|ts|js|mjs|cjs|sh)\Z")


@dataclass(frozen=True, slots=True)
class Mapped:
    """A test's assertions: the criteria its plain-string assertions give the default judge,
    the evaluators of the others, and why each uncarried one was not carried."""

    criteria: list[str]
    evaluators: list[dict[str, Any]]
    uncarried: list[tuple[str, str]]


def map_asserts(
    specs: list[Any], where: str, variables: dict[str, Any], scripts: Scripts
) -> Mapped:
    """Each assertion in ``specs`` (found at ``where``, e.g. ``tests[2].assert``)."""
    criteria: list[str] = []
    found: list[dict[str, Any]] = []
    uncarried: list[tuple[str, str]] = []
    for n, spec in enumerate(specs):
        if isinstance(spec, str):
            criteria.append(spec)
            continue
        try:
            found.append(_one(spec, n, variables, scripts))
        except Uncarried as exc:
            uncarried.append((f"{where}[{n}]", str(exc)))
    return Mapped(criteria, found, uncarried)


def _one(raw: Any, n: int, variables: dict[str, Any], scripts: Scripts) -> dict[str, Any]:
    spec = mapping(raw)
    if spec is None:
        raise Uncarried(f"assertion {raw!r}: expected text or a mapping")
    kind = str(spec.get("type", ""))
    name = spec.get("metric") or spec.get("name") or spec.get("id") or f"{kind or 'assert'}-{n + 1}"
    required = spec.get("required", False)
    if not isinstance(required, bool):
        raise Uncarried(f"required {required!r}: evalwright's 'required' is true or false")
    out = (
        _script(spec, str(name), scripts)
        if kind == "script"
        else _shared(spec, str(name), variables, scripts)
    )
    return {**out, "required": True} if required else out


def _shared(
    spec: dict[str, Any], name: str, variables: dict[str, Any], scripts: Scripts
) -> dict[str, Any]:
    """An assertion type AgentV shares with promptfoo, through promptfoo's mapping."""
    kind = str(spec.get("type", ""))
    extra = sorted(set(spec) - _SHARED_KEYS)
    if extra:
        raise Uncarried(f"assertion type {kind!r}: keys {extra} have no evalwright form")
    if kind == "llm-rubric" and not isinstance(spec.get("value"), str):
        raise Uncarried("llm-rubric with a list of weighted outcomes has no evalwright form")
    context = Context(variables=variables, tools=[], scripts=scripts)
    return evaluator(
        {k: v for k, v in spec.items() if k in ("type", "value", "weight")}, name, context
    )


def _script(spec: dict[str, Any], name: str, scripts: Scripts) -> dict[str, Any]:
    """A ``script`` grader as a ``code`` evaluator; the grader file it names is copied."""
    extra = sorted(set(spec) - _SCRIPT_KEYS)
    if extra:
        # AgentV hands these to the grader as its ``config``; evalwright's payload has none.
        raise Uncarried(f"script grader: config keys {extra} are not passed to evalwright graders")
    command = spec.get("command")
    argv = shlex.split(command) if isinstance(command, str) else sequence(command)
    if not argv or not all(isinstance(arg, str) for arg in argv):
        raise Uncarried(f"script grader command {command!r}: expected a list of arguments")
    for arg in argv:
        if _SCRIPT_FILE.search(arg):
            scripts(arg)  # copied beside the eval file as the command names it
    # What AgentV sends and nothing more: its Python SDK refuses evalwright's other names.
    out: dict[str, Any] = {"name": name, "type": "code", "script": argv, "payload": "agentv"}
    for key in ("weight", "cwd"):
        if spec.get(key) is not None:
            out[key] = spec[key]
    return out
