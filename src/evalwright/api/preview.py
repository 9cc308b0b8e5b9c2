"""What a case will send, with no network: ``evalwright prompt``, and
:func:`evalwright.preview` and :func:`evalwright.build_prompt`
(docs/python-api.md#checking-and-previewing)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import NotRequired, TypedDict

from pydantic import JsonValue

from evalwright.errors import ConfigError
from evalwright.evalfile.loader import load_eval_file
from evalwright.evalfile.models import EvalCase
from evalwright.evalfile.resolved import LoadedCase, SuiteInfo
from evalwright.evalfile.suite import Suite, load_resolved
from evalwright.orchestrator.requests import candidate_request, case_prompt
from evalwright.orchestrator.select import Selection
from evalwright.orchestrator.workspaces import PREVIEW_WORKSPACE, wanted
from evalwright.prompts import BuiltPrompt, ChatMessage
from evalwright.prompts import build_prompt as build_case_prompt
from evalwright.prompts.turns import first_turn
from evalwright.providers.media import with_bytes
from evalwright.providers.openai.template import check_renderable, render_all
from evalwright.providers.registry import TargetRegistry
from evalwright.providers.wire import WireRequest
from evalwright.results.rows import raw_request
from evalwright.targets.kind_facts import Mode
from evalwright.targets.models import Target


class PreviewItem(TypedDict):
    """One case as ``evalwright prompt --json`` prints it (docs/running.md#evalwright-prompt)."""

    eval_id: str
    eval_file: str
    mode: Mode
    question: str
    guidelines: str
    guideline_paths: list[str]
    input_files: list[str]
    chat_prompt: list[dict[str, JsonValue]] | None
    messages: list[dict[str, JsonValue]]
    target: NotRequired[str]
    wire_request: NotRequired[dict[str, JsonValue]]
    delivery_notes: NotRequired[list[dict[str, str]]]
    rendered: NotRequired[str]
    variant: NotRequired[str]


def select_cases(cases: Sequence[LoadedCase], shown: str, selection: Selection) -> list[LoadedCase]:
    """The cases ``selection`` selects (docs/running.md#selecting-cases)."""
    chosen = [case for case in cases if selection.matches(case)]
    if not chosen:
        raise ConfigError(f"no case of {shown} matches {selection.describe()}")
    return chosen


def _open(source: Suite | Path) -> tuple[SuiteInfo, tuple[LoadedCase, ...]]:
    if isinstance(source, Path):
        suite = load_eval_file(source)
        return suite, suite.cases
    info, cases = load_resolved(source)
    return info, tuple(cases)


def preview_suite(
    source: Suite | Path,
    *,
    eval_id: Sequence[str] = (),
    tags: Sequence[str] = (),
    skip_tags: Sequence[str] = (),
    mode: Mode = "lm",
    target: str | Target | None = None,
    targets_file: Path | None = None,
    rendered: bool = False,
    media: bool = False,
) -> list[PreviewItem]:
    """One object per selected case of an eval file or suite: its prompt inputs and the
    chat array.

    With ``target``, the case is built in that target's mode with its system prompt, and
    the object adds the exact ``wire_request`` and the ``delivery_notes`` (the target comes
    from ``targets_file`` when given, else the project's). A case matching any of the
    ``eval_id`` globs is selected (every case when there are none), if it has any of
    ``tags`` (when given) and none of ``skip_tags``. With ``rendered`` (and a
    target), the target's server renders its chat template for each request: the one call
    over the network; ``delivery_notes`` then add what the template drops
    (docs/local-models.md#seeing-what-the-model-sees). With ``media`` the wire body holds
    each media file's base64 instead of its placeholder (docs/delivery.md#media).
    """
    info, cases = _open(source)
    chosen = select_cases(
        cases, info.display_path, Selection(tuple(eval_id), tuple(tags), tuple(skip_tags))
    )
    # A live conversation's later turns depend on the replies: it is previewed at its first.
    runs = _variant_runs(info, [first_turn(case) for case in chosen])
    if target is None:
        return [_named(preview_case(info, case, mode), variant) for case, variant in runs]
    given = (target,) if not isinstance(target, str) else ()
    name = target if isinstance(target, str) else target.name
    registry = TargetRegistry(
        info.project, targets_path=targets_file, require_keys=False, given=given
    )
    provider = registry.provider(name)
    if rendered:
        check_renderable(registry.target(name))
    out: list[PreviewItem] = []
    wires: list[WireRequest] = []
    for case, variant in runs:
        inputs = case_prompt(case, registry.target(name))
        request = candidate_request(case, inputs)
        if wanted(case, name, registry) is not None:  # made only when the case runs
            request = dataclasses.replace(request, workspace=PREVIEW_WORKSPACE)
        prepared = provider.prepare(request)
        lm = inputs if inputs.mode == "lm" else build_case_prompt(case, mode="lm")
        item = _named(_item(info, case, inputs, lm.messages), variant)
        item["target"] = name
        wire = prepared.wire.model_dump(mode="json")
        if media and isinstance(wire.get("body"), dict):
            wire["body"] = with_bytes(wire["body"], prepared.request.messages)
        item["wire_request"] = wire
        item["delivery_notes"] = [note.model_dump() for note in prepared.notes]
        out.append(item)
        wires.append(prepared.wire)
    if rendered:
        for item, rendering in zip(out, render_all(registry.target(name), wires), strict=True):
            item["rendered"] = rendering.text
            # What the template drops is a delivery note here as in a checked row.
            dropped = [note.model_dump() for note in rendering.notes]
            item["delivery_notes"] = [*item.get("delivery_notes", []), *dropped]
    return out


def _variant_runs(
    info: SuiteInfo, cases: Sequence[LoadedCase]
) -> list[tuple[LoadedCase, str | None]]:
    # A file with prompt variants runs each case once per variant, as `eval` does, so each is
    # shown as it is sent (docs/eval-files.md#prompt-variants).
    if not info.variants:
        return [(case, None) for case in cases]
    return [(variant.apply(case), variant.name) for case in cases for variant in info.variants]


def _named(item: PreviewItem, variant: str | None) -> PreviewItem:
    if variant is not None:
        item["variant"] = variant
    return item


def preview_case(suite: SuiteInfo, case: LoadedCase, mode: Mode) -> PreviewItem:
    """The preview object of one case, without a target."""
    inputs = build_case_prompt(case, mode=mode)
    lm = inputs if mode == "lm" else build_case_prompt(case, mode="lm")
    return _item(suite, case, inputs, lm.messages)


def _item(
    suite: SuiteInfo, case: LoadedCase, inputs: BuiltPrompt, messages: Sequence[ChatMessage]
) -> PreviewItem:
    raw = raw_request(inputs).model_dump(mode="json")
    return {
        "eval_id": case.id,
        "eval_file": suite.relative_path,
        "mode": inputs.mode,
        "question": raw["question"],
        "guidelines": raw["guidelines"],
        "guideline_paths": raw["guideline_paths"],
        "input_files": raw["input_files"],
        "chat_prompt": raw["chat_prompt"],
        "messages": [m.to_json() for m in messages],
    }


PathArg = str | os.PathLike[str]


def build_prompt(
    case: EvalCase,
    mode: Mode = "lm",
    *,
    system_prompt: str | None = None,
    base_dir: PathArg | None = None,
) -> BuiltPrompt:
    """A case's question, guidelines and chat prompt in ``mode``, its files read from
    ``base_dir`` (default: the working directory). ``system_prompt`` is a target's
    (``None``: the default; ``""``: none)."""
    suite = Suite((case,), base_dir=Path(base_dir) if base_dir is not None else None)
    _, (resolved,) = load_resolved(suite)
    return build_case_prompt(first_turn(resolved), mode=mode, system_prompt=system_prompt)


def preview(
    source: EvalCase | Suite | PathArg,
    target: str | Target | None = None,
    *,
    mode: Mode = "lm",
    eval_id: str | Sequence[str] = (),
    tags: str | Sequence[str] = (),
    skip_tags: str | Sequence[str] = (),
    targets_file: PathArg | None = None,
    base_dir: PathArg | None = None,
    rendered: bool = False,
    media: bool = False,
) -> list[PreviewItem]:
    """What each case would send, with no network: the objects ``evalwright prompt --json``
    prints. With ``target``, built in that target's mode with its exact wire request and
    delivery notes; ``eval_id``, ``tags`` and ``skip_tags`` select cases as ``eval`` does.
    ``source`` is a case, a suite or an eval file; ``target`` is a name in
    the targets file or a target object. ``rendered`` adds the text the target's server renders
    with its chat template (a network call; docs/local-models.md#seeing-what-the-model-sees).
    ``media`` puts each media file's bytes in the wire body (docs/delivery.md#media)."""
    opened: Suite | Path
    if isinstance(source, EvalCase):
        base = Path(base_dir) if base_dir is not None else None
        opened = Suite((source,), base_dir=base)
    elif isinstance(source, Suite):
        opened = source
    else:
        opened = Path(os.fspath(source))
    return preview_suite(
        opened,
        eval_id=_strings(eval_id),
        tags=_strings(tags),
        skip_tags=_strings(skip_tags),
        mode=mode,
        target=target,
        targets_file=Path(targets_file) if targets_file is not None else None,
        rendered=rendered,
        media=media,
    )


def _strings(value: str | Sequence[str]) -> tuple[str, ...]:
    """One option's values: a string alone, or several."""
    return (value,) if isinstance(value, str) else tuple(value)
