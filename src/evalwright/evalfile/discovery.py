"""Finding eval files in directories."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from evalwright import jsontext
from evalwright.evalfile.loader import EVAL_SUFFIXES
from evalwright.files.reading import (
    MAX_JSONL_LINE_BYTES,
    UnreadableFile,
    is_regular_file,
    open_regular,
)

_YAML_EVAL = re.compile(r"^evalcases\s*:", re.MULTILINE)


def find_eval_files(directory: Path) -> Iterator[Path]:
    """Eval files under ``directory``: JSONL files, and YAML files with ``evalcases``.

    Dot-directories (``.git``, ``.evalwright``, ...) are skipped, and so is anything that is
    not a regular file (a stray FIFO or socket is not an eval file, and reading it would hang).
    """
    for current, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
        for name in sorted(names):
            path = Path(current, name)
            suffix = path.suffix.lower()
            if suffix not in EVAL_SUFFIXES or not is_regular_file(path):
                continue
            if suffix == ".jsonl":
                # A results file (--out) or a judge-check labels file is not an eval file.
                if not is_results_file(path) and not is_labels_file(path):
                    yield path
            elif _looks_like_eval(path):
                yield path


def _looks_like_eval(path: Path) -> bool:
    try:
        with open_regular(path) as handle:
            head = handle.read(1 << 20).decode("utf-8", errors="replace")
    except (OSError, UnreadableFile):
        return True  # let the loader report why it cannot be read
    return bool(_YAML_EVAL.search(head))


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
