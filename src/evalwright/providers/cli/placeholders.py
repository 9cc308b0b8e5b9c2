"""The ``cli`` placeholders (docs/agents.md#cli-any-command-line): replaced inside argv
elements, never split, so no value can become a command. ``{FILES}`` is a whole element
expanding to several."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping, Sequence

from evalwright.evalfile.targets import PLACEHOLDER, split_command

__all__ = ["expand_files", "fill", "split_command", "uses"]

FILES = "{FILES}"
_TOKEN = PLACEHOLDER


def uses(argv: Sequence[str], name: str) -> bool:
    """Whether the command mentions ``{NAME}`` (the same way :func:`fill` sees it)."""
    return any(name in _TOKEN.findall(element) for element in argv)


def fill(
    argv: Sequence[str], values: Mapping[str, str], files: Sequence[str], files_format: str
) -> list[str]:
    """The argv with every placeholder replaced in place and ``{FILES}`` expanded."""
    out: list[str] = []
    for element in argv:
        if element == FILES:
            out.extend(expand_files(files, files_format))
            continue
        out.append(_TOKEN.sub(lambda m: values.get(m.group(1), m.group(0)), element))
    return out


def expand_files(files: Sequence[str], files_format: str) -> list[str]:
    """``files_format`` split into argv, once per file (``{path}``, ``{basename}``)."""
    parts = shlex.split(files_format)
    return [_file_part(part, path) for path in files for part in parts]


def _file_part(part: str, path: str) -> str:
    names = {"path": path, "basename": os.path.basename(path)}
    return re.sub(r"\{(path|basename)\}", lambda m: names[m.group(1)], part)
