"""Finding eval files in directories."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

from evalwright.evalfile.loader import EVAL_SUFFIXES

_YAML_EVAL = re.compile(r"^evalcases\s*:", re.MULTILINE)


def find_eval_files(directory: Path) -> Iterator[Path]:
    """Eval files under ``directory``: JSONL files, and YAML files with ``evalcases``.

    Dot-directories (``.git``, ``.evalwright``, ...) are skipped.
    """
    for current, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
        for name in sorted(names):
            path = Path(current, name)
            suffix = path.suffix.lower()
            if suffix == ".jsonl":
                if not is_results_file(path):  # a results file (--out) is not an eval file
                    yield path
            elif suffix in EVAL_SUFFIXES and _looks_like_eval(path):
                yield path


def _looks_like_eval(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return bool(_YAML_EVAL.search(handle.read(1 << 20)))
    except OSError:
        return True  # let the loader report why it cannot be read


def is_results_file(path: str | os.PathLike[str]) -> bool:
    """Whether the first non-blank line is a results row (it has ``run_id`` and ``eval_id``)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = next((line for line in handle if line.strip()), "")
        row = json.loads(first)
    except (OSError, ValueError):
        return False
    return isinstance(row, dict) and "run_id" in row and "eval_id" in row
