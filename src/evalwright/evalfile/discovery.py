"""Finding eval files in directories."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from evalwright import jsontext
from evalwright.evalfile.loader import EVAL_SUFFIXES
from evalwright.evalfile.reading import (
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
                if not is_results_file(path):  # a results file (--out) is not an eval file
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
    try:
        with open_regular(path) as handle:
            first = b""
            while not first.strip() and (line := handle.readline(MAX_JSONL_LINE_BYTES)):
                first = line
        row = jsontext.loads(first)
    except (OSError, ValueError, UnreadableFile):
        return False
    return isinstance(row, dict) and "run_id" in row and "eval_id" in row
