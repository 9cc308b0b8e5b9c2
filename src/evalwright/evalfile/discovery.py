"""Finding eval files in directories."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from evalwright import jsontext
from evalwright.evalfile.loader import EVAL_SUFFIXES
from evalwright.files.project import display_path
from evalwright.files.reading import (
    MAX_JSONL_LINE_BYTES,
    UnreadableFile,
    is_regular_file,
    open_regular,
)

_YAML_EVAL = re.compile(r"^evalcases\s*:", re.MULTILINE)
_AGENTV_SCHEMA = re.compile(r"^\$schema\s*:\s*['\"]?agentv", re.MULTILINE)
# AgentV's tests carry an ``id`` (promptfoo's do not); its suites borrowed promptfoo's keys.
_AGENTV_TEST = re.compile(r"^\s*-\s+id\s*:", re.MULTILINE)
_VARS_ASSERT = re.compile(r"^\s+-?\s*(vars|assert)\s*:", re.MULTILINE)
_NO_CASES = "no top-level 'evalcases' key"
_PROMPTFOO_KEYS = ("prompts", "providers", "tests")
PROMPTFOO_NAMES = frozenset({"promptfooconfig.yaml", "promptfooconfig.yml"})


@dataclass(frozen=True, slots=True)
class Found:
    """A file a directory search reads, and what it is read as (docs/running.md#directories)."""

    path: Path
    kind: str


@dataclass(frozen=True, slots=True)
class Skipped:
    """A YAML or JSON Lines file a directory search does not read, and why."""

    path: Path
    reason: str


def survey(directory: Path) -> tuple[list[Found], list[Skipped]]:
    """Every eval file under ``directory`` with what it is read as, and every other YAML or
    JSON Lines file with why it is skipped (docs/running.md#directories).

    Dot-directories (``.git``, ``.evalwright``, ...) and ``node_modules`` are not searched,
    and anything that is not a regular file is passed over (a stray FIFO or socket is not an
    eval file, and reading it would hang).
    """
    found: list[Found] = []
    skipped: list[Skipped] = []
    for current, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
        for name in sorted(names):
            path = Path(current, name)
            if path.suffix.lower() not in EVAL_SUFFIXES or not is_regular_file(path):
                continue
            kind, why = _classify(path)
            if kind is not None:
                found.append(Found(path, kind))
            else:
                skipped.append(Skipped(path, why))
    return found, skipped


def find_eval_files(directory: Path) -> Iterator[Path]:
    """Eval files under ``directory``: JSONL files, and YAML files with ``evalcases``."""
    yield from (found.path for found in survey(directory)[0])


_PLAIN_KINDS = ("evalwright YAML", "JSONL cases")
"""What most files are read as: ``eval`` names only the others (a run's log stays short)."""


def survey_notes(found: list[Found], skipped: list[Skipped], *, every: bool = True) -> list[str]:
    """The lines ``validate`` (``every`` file) and ``eval`` (the files read as something
    else than evalwright's own, and the skipped ones) print about a directory they searched."""
    shown = [f for f in found if every or f.kind not in _PLAIN_KINDS]
    return [f"{display_path(f.path)}: read as {f.kind}" for f in shown] + [
        f"{display_path(s.path)}: skipped: {s.reason}" for s in skipped
    ]


def not_eval_file(path: Path) -> str | None:
    """Why a file named on the command line is not an eval file to read, or ``None``: a
    results file, an AgentV baseline, a labels file, a promptfoo config or an AgentV suite
    with ``tests:`` (docs/running.md#directories). A YAML file that is none of these is left
    to the loader, which says what it lacks."""
    if path.suffix.lower() not in EVAL_SUFFIXES or not is_regular_file(path):
        return None
    kind, why = _classify(path)
    return None if kind is not None or why == _NO_CASES else why


def _classify(path: Path) -> tuple[str | None, str]:
    """What a file is read as, or ``None`` and why it is skipped."""
    if path.suffix.lower() == ".jsonl":
        if path.name.lower().endswith(".baseline.jsonl"):
            return None, "an AgentV baseline (results) file, not cases"
        if is_results_file(path):
            return None, "an evalwright results file (its rows have run_id and eval_id), not cases"
        if is_labels_file(path):
            return None, "a judge-check labels file, not cases"
        first = _first_row(path)
        if _is_agentv_result(first):
            return None, "an AgentV results file (its rows have test_id and score), not cases"
        if _is_agentv_transcript(first):
            return None, "an AgentV transcript (its rows have test_id and message_index), not cases"
        if _is_agentv_test(first):
            return None, (
                "AgentV tests (id, vars, assert): import the suite that names them with "
                "`evalwright import agentv SUITE`"
            )
        return "JSONL cases", ""
    head = _head(path)
    if head is None or _YAML_EVAL.search(head):
        # An unreadable file is read so that the loader reports why.
        return ("AgentV YAML" if head and _AGENTV_SCHEMA.search(head) else "evalwright YAML"), ""
    if re.search(r"^tests\s*:", head, re.MULTILINE) and _AGENTV_TEST.search(head):
        if not _is_promptfoo(path, head) and not _VARS_ASSERT.search(head):
            return "AgentV YAML", ""  # AgentV 0.26 to 2.5: 'tests:' for 'evalcases:'
        return None, _agentv_suite(path)
    if _names_agentv_tests(path, head):
        return None, _agentv_suite(path)
    if _is_promptfoo(path, head):
        return None, f"a promptfoo config: run `evalwright import promptfoo {path}`"
    return None, _NO_CASES


def _agentv_suite(path: Path) -> str:
    return f"an AgentV suite (tests, vars, assert): run `evalwright import agentv {path}`"


# ``tests: ./cases.jsonl`` (or ``file://...``): a suite whose tests are in another file.
_TESTS_FILE = re.compile(
    r"^tests\s*:\s*['\"]?(?:file://)?([^'\"\s]+\.(?:jsonl|ya?ml))", re.MULTILINE
)


def _names_agentv_tests(path: Path, head: str) -> bool:
    """Whether the tests file a suite names holds AgentV's tests (each with an ``id``;
    promptfoo's have none)."""
    named = _TESTS_FILE.search(head)
    if named is None:
        return False
    tests = path.parent / named.group(1)
    if tests.suffix.lower() == ".jsonl":
        return _is_agentv_test(_first_row(tests))
    text = _head(tests) if is_regular_file(tests) else None
    return text is not None and _AGENTV_TEST.search(text) is not None


def _head(path: Path) -> str | None:
    try:
        with open_regular(path) as handle:
            return handle.read(1 << 20).decode("utf-8", errors="replace")
    except (OSError, UnreadableFile):
        return None


def _is_promptfoo(path: Path, head: str | None) -> bool:
    """``promptfooconfig.yaml``, or YAML with top-level ``prompts``, ``providers`` and
    ``tests``."""
    if path.name.lower() in PROMPTFOO_NAMES:
        return True
    return head is not None and all(
        re.search(rf"^{key}\s*:", head, re.MULTILINE) for key in _PROMPTFOO_KEYS
    )


def _is_agentv_result(row: object) -> bool:
    return isinstance(row, dict) and {"test_id", "score"} <= row.keys()  # pyright: ignore[reportUnknownMemberType]


def _is_agentv_transcript(row: object) -> bool:
    return isinstance(row, dict) and {"test_id", "message_index"} <= row.keys()  # pyright: ignore[reportUnknownMemberType]


def _is_agentv_test(row: object) -> bool:
    """An AgentV test row: ``id`` and a mapping of ``vars``, no evalwright input."""
    if not isinstance(row, dict) or "id" not in row:
        return False
    fields: dict[str, object] = row  # pyright: ignore[reportUnknownVariableType]
    inputs = {"input", "input_messages", "turns"}
    return isinstance(fields.get("vars"), dict) and not inputs & fields.keys()


def is_results_file(path: str | os.PathLike[str]) -> bool:
    """Whether the first non-blank line is a results row (it has ``run_id`` and ``eval_id``)."""
    row = _first_row(path)
    return isinstance(row, dict) and "run_id" in row and "eval_id" in row


LABEL_KEYS = frozenset({"eval_id", "target", "pass", "score", "eval_file", "repeat"})
"""The keys of a human label (docs/judges.md#judge-check)."""


def is_labels_file(path: str | os.PathLike[str]) -> bool:
    """Whether the first non-blank line is a human label of ``judge-check``: only a label's
    keys, ``eval_id`` and ``target`` among them (docs/judges.md#judge-check)."""
    row = _first_row(path)
    return isinstance(row, dict) and {"eval_id", "target"} <= row.keys() <= LABEL_KEYS


def _first_row(path: str | os.PathLike[str]) -> object:
    """The first non-blank line of a JSON Lines file, parsed; ``None`` when it is not JSON."""
    try:
        with open_regular(path) as handle:
            first = b""
            while not first.strip() and (line := handle.readline(MAX_JSONL_LINE_BYTES)):
                first = line
        return jsontext.loads(first)
    except (OSError, ValueError, UnreadableFile):
        return None
