"""Finding eval files in directories."""

from __future__ import annotations

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
            if suffix == ".jsonl" or (suffix in EVAL_SUFFIXES and _looks_like_eval(path)):
                yield path


def _looks_like_eval(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return bool(_YAML_EVAL.search(handle.read(1 << 20)))
    except OSError:
        return True  # let the loader report why it cannot be read
