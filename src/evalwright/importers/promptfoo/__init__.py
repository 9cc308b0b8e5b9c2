"""``evalwright import promptfoo``: a promptfoo config written out as an evalwright eval file,
a targets file and the notes of what was not carried over (docs/importing.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalwright.importers.promptfoo.asserts import ASSERT_SCRIPT, JS_ASSERT_SCRIPT
from evalwright.importers.promptfoo.build import Built, build_cases
from evalwright.importers.promptfoo.filters import read_filters
from evalwright.importers.promptfoo.functions import Calls
from evalwright.importers.promptfoo.media import save_media
from evalwright.importers.promptfoo.media_rules import media_rules
from evalwright.importers.promptfoo.notes import Note, Notes, Uncarried
from evalwright.importers.promptfoo.prompts import read_prompts
from evalwright.importers.promptfoo.scripts import provider_contexts
from evalwright.importers.promptfoo.sources import Source, load_yaml, mapping
from evalwright.importers.promptfoo.targets import Target, read_targets
from evalwright.importers.promptfoo.templates import config_filters
from evalwright.importers.promptfoo.tests import read_tests
from evalwright.importers.promptfoo.wrapper import JS_SCRIPT, SCRIPT
from evalwright.importers.promptfoo.write import (
    NOTES_FILE,
    check_free,
    copy,
    dump,
    notes_text,
    write,
)

__all__ = ["PromptfooImport", "import_config"]


@dataclass(frozen=True, slots=True)
class PromptfooImport:
    """What an import wrote and what it could not carry over (docs/importing.md). When no
    test could be carried, only the notes file is written: ``eval_file`` and
    ``targets_file`` are ``None``."""

    eval_file: Path | None
    targets_file: Path | None
    notes_file: Path
    files: tuple[Path, ...]
    notes: tuple[Note, ...]
    carried: int
    uncarried: int
    targets: tuple[str, ...]


# The config keys the importer reads; any other is noted.
_READ = frozenset(
    {"description", "prompts", "providers", "tests", "defaultTest", "scenarios", "nunjucksFilters"}
)


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where an import writes (docs/importing.md#what-is-written)."""

    root: Path
    stem: str

    @property
    def evals(self) -> Path:
        return self.root / "evals"

    @property
    def eval_file(self) -> Path:
        return self.evals / f"{self.stem}.yaml"

    @property
    def targets_file(self) -> Path:
        return self.root / ".evalwright" / "targets.yaml"

    @property
    def notes_file(self) -> Path:
        return self.root / NOTES_FILE


def import_config(config: str | os.PathLike[str], out: str | os.PathLike[str]) -> PromptfooImport:
    """Import the promptfoo config ``config`` into the directory ``out``."""
    source = load_yaml(Path(config))
    data = mapping(source.data)
    if data is None:
        raise source.fail((), "a promptfoo config is a mapping")
    layout = _Layout(Path(out), source.path.stem)
    check_free([layout.eval_file, layout.targets_file, layout.notes_file])
    notes = Notes()
    for key in sorted(set(data) - _READ):
        notes.add(source.shown, key, "not carried: the importer does not read this key")
    prompts = read_prompts(source, notes)
    providers: Any = data.get("providers") or []
    targets = read_targets(providers, source.path.parent, source.shown, notes)
    tests = read_tests(source, notes)
    copied: list[Path] = []

    def scripts(reference: str) -> str:
        found = source.path.parent / reference
        if not found.is_file():
            raise Uncarried(f"assertion script not found: {reference!r}")
        relative = Path("scripts") / found.name
        if not (layout.evals / relative).exists():
            copied.append(copy(found, layout.evals / relative))
        return relative.as_posix()

    tools = _tools(targets, source, notes)
    calls = Calls(provider_contexts(providers), source.path.parent, source.shown, bool(targets))
    with config_filters(read_filters(source, notes)):
        built = build_cases(prompts, tests, tools, scripts, notes, calls, media_rules(targets))
    return _write_all(layout, source, targets, tools, built, notes, copied)


def _write_all(
    layout: _Layout,
    source: Source,
    targets: list[Target],
    tools: list[dict[str, Any]],
    built: Built,
    notes: Notes,
    copied: list[Path],
) -> PromptfooImport:
    total = built.carried + built.uncarried
    if not built.cases:
        # An eval file needs a case: only the notes say what happened.
        write(layout.notes_file, notes_text(source.shown, notes.items, 0, total))
        files = (layout.notes_file,)
        return PromptfooImport(
            None, None, layout.notes_file, files, tuple(notes.items), 0, total, ()
        )
    media = save_media(built.cases, layout.evals)
    document = _document(source, targets, tools, built.cases)
    written = [write(layout.eval_file, dump(document)), *copied, *media]
    entries = _entries(targets, source, notes)
    written.append(write(layout.targets_file, dump({"targets": entries})))
    for name, script in ((ASSERT_SCRIPT, SCRIPT), (JS_ASSERT_SCRIPT, JS_SCRIPT)):
        if any(_uses_wrapper(case, name) for case in built.cases):
            written.append(write(layout.evals / name, script))
    text = notes_text(source.shown, notes.items, built.carried, total)
    written.append(write(layout.notes_file, text))
    names = tuple(str(entry["name"]) for entry in entries)
    return PromptfooImport(
        layout.eval_file,
        layout.targets_file,
        layout.notes_file,
        tuple(written),
        tuple(notes.items),
        built.carried,
        built.uncarried,
        names,
    )


def _tools(targets: list[Target], source: Source, notes: Notes) -> list[dict[str, Any]]:
    """The tools every case offers: the providers' (all alike, else the first's, noted)."""
    offered = [t.tools for t in targets if t.tools]
    if offered and any(t.tools != offered[0] for t in targets):
        notes.add(
            source.shown,
            "providers",
            "providers offer different tools: every target is offered the first's",
        )
    return offered[0] if offered else []


def _entries(targets: list[Target], source: Source, notes: Notes) -> list[dict[str, Any]]:
    if targets:
        return [t.entry for t in targets]
    notes.add(source.shown, "providers", "no provider carried: a mock target 'default' stands in")
    return [{"name": "default", "provider": "mock"}]


def _document(
    source: Source, targets: list[Target], tools: list[dict[str, Any]], cases: list[Any]
) -> dict[str, Any]:
    data: dict[str, Any] = source.data  # pyright: ignore[reportAssignmentType]
    document: dict[str, Any] = {"$schema": "evalwright-eval-v1"}
    if isinstance(data.get("description"), str):
        document["description"] = data["description"]
    document["target"] = targets[0].name if targets else "default"
    if tools:
        document["tools"] = tools
    document["evalcases"] = cases
    return document


def _uses_wrapper(case: dict[str, Any], name: str) -> bool:
    found = [*case.get("execution", {}).get("evaluators", [])]
    for turn in case.get("turns", []):
        found += turn.get("evaluators", [])
    return any(e.get("type") == "code" and name in e.get("script", [])[1:2] for e in found)
