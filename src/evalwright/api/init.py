"""``evalwright init``: write a small working project to start from
(docs/running.md#evalwright-init).

The files are the package's ``project_template`` data; the example eval file's ``code``
evaluator runs the Python that wrote it, so the project works wherever that Python does.
"""

from __future__ import annotations

import json
import os
import sys
from importlib import resources
from pathlib import Path

from evalwright.errors import ConfigError
from evalwright.files.project import display_path

EVAL_FILE = "evals/support.yaml"
"""The example eval file, relative to the project."""

# destination in the project -> template file in the package
_FILES: dict[str, str] = {
    ".evalwright/targets.yaml": "targets.yaml",
    ".evalwright/config.yaml": "config.yaml",
    ".evalwright/.gitignore": "gitignore",
    EVAL_FILE: "support.yaml",
    "guidelines/support.instructions.md": "support.instructions.md",
    "files/order-1042.txt": "order-1042.txt",
    "scripts/word_limit.py": "word_limit.py",
}
_PYTHON = "__PYTHON__"


def init_project(path: str | os.PathLike[str] = ".") -> list[Path]:
    """Write a working example project into ``path`` (created if missing) and return the
    files written (docs/running.md#evalwright-init).

    Nothing is overwritten: when any of the files exists already, :class:`ConfigError`
    names it and no file is written.
    """
    root = Path(path)
    if root.exists() and not root.is_dir():
        raise ConfigError(f"{display_path(root)} is not a directory")
    for relative in _FILES:
        target = root / relative
        if target.exists() or target.is_symlink():
            raise ConfigError(
                f"{display_path(target)} already exists: init overwrites nothing and wrote "
                "nothing; choose an empty directory"
            )
    written: list[Path] = []
    for relative, name in _FILES.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("x", encoding="utf-8", newline="") as handle:
            handle.write(_template(name))
        written.append(target)
    return written


def _template(name: str) -> str:
    text = (resources.files("evalwright.api") / "project_template" / name).read_text("utf-8")
    # A JSON string is a YAML double-quoted scalar: any path, spaces and quotes included.
    return text.replace(_PYTHON, json.dumps(sys.executable))
