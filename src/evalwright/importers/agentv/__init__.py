"""``evalwright import agentv``: an AgentV HEAD suite (``tests``/``vars``/``assert``) written
out as an evalwright eval file, its project's ``.agentv/providers.yaml`` as a targets file,
and the notes of what was not carried over (docs/importing.md#from-agentv)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalwright.importers.agentv.cases import Cases, Suite, read_cases
from evalwright.importers.agentv.files import Copier
from evalwright.importers.agentv.providers import project_targets
from evalwright.importers.promptfoo.notes import Note, Notes, Uncarried
from evalwright.importers.promptfoo.sources import (
    Source,
    file_path,
    load_yaml,
    mapping,
    sequence,
)
from evalwright.importers.promptfoo.write import (
    NOTES_FILE,
    check_free,
    dump,
    notes_text,
    write,
)

__all__ = ["AgentvImport", "import_suite"]

# The suite keys the importer reads; any other is noted. ``prompts`` is read only as AgentV's
# one prompt, ``{{ input }}`` (the test's input sent as it is).
_READ = frozenset(
    {"name", "description", "prompts", "providers", "tests", "assert", "default_test"}
)
_INPUT_PROMPT = "{{ input }}"


@dataclass(frozen=True, slots=True)
class AgentvImport:
    """What an import wrote and what it could not carry over (docs/importing.md#from-agentv).
    When no test could be carried, only the notes file is written."""

    eval_file: Path | None
    targets_file: Path | None
    notes_file: Path
    files: tuple[Path, ...]
    notes: tuple[Note, ...]
    carried: int
    uncarried: int
    targets: tuple[str, ...]


def import_suite(suite: str | os.PathLike[str], out: str | os.PathLike[str]) -> AgentvImport:
    """Import the AgentV suite file ``suite`` into the directory ``out``."""
    source = load_yaml(Path(suite))
    data = mapping(source.data)
    if data is None or "tests" not in data:
        raise source.fail((), "an AgentV suite is a mapping with 'tests'")
    root = Path(out)
    stem = source.path.name.split(".")[0] or "suite"
    eval_file, notes_file = root / "evals" / f"{stem}.yaml", root / NOTES_FILE
    targets_file = root / ".evalwright" / "targets.yaml"
    check_free([eval_file, targets_file, notes_file])
    notes = Notes()
    for key in sorted(set(data) - _READ):
        notes.add(source.shown, key, "not carried: the importer does not read this key")
    files = Copier(source.path.parent, eval_file.parent, root, notes)
    built = _cases(source, data, files, notes)
    targets = project_targets(source.path.parent, notes)
    if not built.cases:
        write(notes_file, notes_text(source.shown, notes.items, 0, built.uncarried))
        return AgentvImport(
            None, None, notes_file, (notes_file,), tuple(notes.items), 0, built.uncarried, ()
        )
    document = _document(data, built.cases)
    written = [write(eval_file, dump(document)), *files.copied]
    entries = _entries(targets, document["target"], source, notes)
    written.append(write(targets_file, dump({"targets": entries})))
    total = built.carried + built.uncarried
    written.append(write(notes_file, notes_text(source.shown, notes.items, built.carried, total)))
    names = (document["target"], *_other_providers(data))
    return AgentvImport(
        eval_file,
        targets_file,
        notes_file,
        tuple(written),
        tuple(notes.items),
        built.carried,
        built.uncarried,
        names,
    )


def _cases(source: Source, data: dict[str, Any], files: Copier, notes: Notes) -> Cases:
    prompts = sequence(data.get("prompts"))
    if prompts is not None and prompts != [_INPUT_PROMPT]:
        notes.add(
            source.shown,
            "prompts",
            f"not carried: only the prompt {_INPUT_PROMPT!r} "
            "(the test's input as it is) is imported",
        )
        return Cases(uncarried=len(sequence(data.get("tests")) or []))
    given = data.get("default_test")
    if isinstance(given, str):  # ``file://default-test.yaml``
        given = load_yaml(file_path(source.path.parent, given)).data
    default = mapping(given)
    if given is not None and default is None:
        notes.add(source.shown, "default_test", "not carried: expected a mapping")
    for key in sorted(set(default or {}) - {"vars", "assert"}):
        notes.add(source.shown, f"default_test.{key}", "not carried: no evalwright equivalent")
    asserts = [
        *(sequence(data.get("assert")) or []),
        *(sequence((default or {}).get("assert")) or []),
    ]
    variables = mapping((default or {}).get("vars")) or {}
    try:
        return read_cases(source, Suite(asserts, variables), files, notes)
    except Uncarried as exc:
        notes.add(source.shown, "tests", f"not carried: {exc}")
        return Cases()


def _document(data: dict[str, Any], cases: list[dict[str, Any]]) -> dict[str, Any]:
    document: dict[str, Any] = {"$schema": "evalwright-eval-v1"}
    description = data.get("description") or data.get("name")
    if isinstance(description, str):
        document["description"] = description
    wanted = [str(p) for p in sequence(data.get("providers")) or []]
    document["target"] = wanted[0] if wanted else "default"
    document["evalcases"] = cases
    return document


def _other_providers(data: dict[str, Any]) -> list[str]:
    """The suite's providers after the first, each run with its own ``--target``."""
    return [str(p) for p in (sequence(data.get("providers")) or [])[1:]]


def _entries(
    targets: list[dict[str, Any]], wanted: str, source: Source, notes: Notes
) -> list[dict[str, Any]]:
    """The targets, with a mock standing in (noted) for the suite's provider when no
    providers file defines it."""
    if any(entry["name"] == wanted for entry in targets):
        return targets
    notes.add(
        source.shown,
        "providers",
        f"provider {wanted!r} is defined in no "
        ".agentv/providers.yaml above the suite: a mock target stands in",
    )
    return [*targets, {"name": wanted, "provider": "mock"}]
