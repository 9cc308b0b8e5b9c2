"""One (prompt, test) pair of a promptfoo config as one evalwright case
(docs/importing.md#cases)."""

from __future__ import annotations

import re
from typing import Any, cast

from evalwright.importers.promptfoo.asserts import LIMITS, Context, Scripts, evaluator
from evalwright.importers.promptfoo.media import MediaText
from evalwright.importers.promptfoo.media_rules import (
    MediaRules,
    check_refused,
    image_lines,
    sent_as_text,
)
from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.prompts import Prompt, render_messages
from evalwright.importers.promptfoo.sources import mapping
from evalwright.importers.promptfoo.templates import render
from evalwright.importers.promptfoo.tests import Test

CONVERSATION = "_conversation"
_NO_RULES = MediaRules()


def single_case(
    case_id: str,
    prompt: Prompt,
    test: Test,
    tools: list[dict[str, Any]],
    scripts: Scripts,
    notes: Notes,
    rules: MediaRules = _NO_RULES,
) -> dict[str, Any]:
    """The case of ``prompt`` rendered with ``test``'s variables, its assertions as
    evaluators; ``rules``: what the targets make of its media (docs/importing.md#media)."""
    messages = image_lines(render_messages(prompt, test.variables), test.variables, rules.lines)
    for n, message in enumerate(messages):
        if not _shows(message["content"]):
            # promptfoo sends the empty turn; evalwright sends none (docs/delivery.md)
            raise Uncarried(
                f"message {n + 1} ({message['role']}) renders empty text: not sent alike"
            )
    check_refused(messages, rules)
    for reference in sent_as_text(messages, test.variables):
        notes.add(test.file, test.where, f"{prompt.where}: {_AS_TEXT.format(reference)}")
    case: dict[str, Any] = {"id": case_id, "expected_outcome": outcome(test)}
    case["input_messages"] = messages
    found = evaluators(test, tools, scripts, notes)
    if found:
        case["execution"] = {"evaluators": found}
    case["metadata"] = metadata(prompt, test)
    return case


def _shows(content: str | list[Any]) -> bool:
    """Whether a message's content is sent whole: text beyond white space, and no part of
    it empty text (evalwright sends no empty turn or part; promptfoo does)."""
    if isinstance(content, str):
        return bool(content.strip())
    parts = cast("list[dict[str, Any]]", [p for p in content if isinstance(p, dict)])
    texts = [str(p.get("value", "")) for p in parts if p.get("type") == "text"]
    return bool(content) and all(text.strip() for text in texts)


_AS_TEXT = (
    "variable {!r}: its base64 is in the prompt's text and is sent as text, as promptfoo "
    "sends it to any provider but Gemini"
)


def outcome(test: Test) -> str:
    """What a good answer achieves: the test's description, else its first rubric."""
    if test.description:
        return test.description
    for spec in test.asserts:
        if isinstance(spec, dict) and spec.get("type") == "llm-rubric":  # pyright: ignore[reportUnknownMemberType]
            value = spec.get("value")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            if isinstance(value, str) and value.strip():
                try:
                    return render(value, test.variables)
                except Uncarried:
                    return value
    return "Passes the promptfoo test's assertions."


def metadata(prompt: Prompt, test: Test) -> dict[str, Any]:
    """The test's metadata, with where the case came from and its variables."""
    meta: dict[str, Any] = dict(test.metadata)
    origin: dict[str, Any] = {"prompt": prompt.label, "test": f"{test.file}: {test.where}"}
    plain = {k: _shown(v) for k, v in test.variables.items() if k != CONVERSATION}
    if plain:
        origin["vars"] = plain
    meta["promptfoo"] = origin
    return meta


def _shown(value: Any) -> Any:
    """A variable as the metadata shows it: a media file by its reference, not its base64."""
    return value.reference if isinstance(value, MediaText) else value


def evaluators(
    test: Test, tools: list[dict[str, Any]], scripts: Scripts, notes: Notes
) -> list[dict[str, Any]]:
    """The test's assertions as evaluators; an assertion that cannot be carried is noted and
    the others are kept."""
    context = Context(test.variables, tools, scripts)
    out: list[dict[str, Any]] = []
    for index, spec in enumerate(test.asserts):
        where = f"{test.where}.assert[{index}]"
        given = mapping(spec)
        try:
            if given is None:
                raise Uncarried(f"expected an assertion mapping, got {spec!r}")
            out.append(evaluator(_rendered(given, test.variables), _name(given, index), context))
        except Uncarried as exc:
            notes.add(test.file, where, str(exc))
            continue
        carried = {"type", "value", "weight", *_extra_keys(str(given["type"]))}
        for key in sorted(set(given) - carried):
            notes.add(test.file, f"{where}.{key}", "not carried: no evalwright equivalent")
    return out


def _extra_keys(kind: str) -> tuple[str, ...]:
    """The keys beyond type, value and weight an assertion of ``kind`` carries."""
    if kind == "python":
        return ("config",)
    return ("threshold",) if kind in (*LIMITS, "javascript", "not-javascript") else ()


def _name(spec: dict[str, Any], index: int) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{spec.get('type')}-{index + 1}")


def _rendered(spec: dict[str, Any], variables: dict[str, Any]) -> dict[str, Any]:
    """promptfoo renders an assertion's text values with the test's variables; a script's
    code is left as written."""
    value = spec.get("value")
    if spec.get("type") in ("python", "javascript", "not-javascript"):
        return spec  # code, not a template: promptfoo does not render it
    if isinstance(value, str):
        return {**spec, "value": render(value, variables)}
    if isinstance(value, list):
        items = [render(v, variables) if isinstance(v, str) else v for v in value]  # pyright: ignore[reportUnknownVariableType]
        return {**spec, "value": items}
    return spec
