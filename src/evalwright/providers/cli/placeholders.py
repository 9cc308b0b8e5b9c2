"""The ``cli`` placeholders (docs/agents.md#cli-any-command-line): replaced inside argv
elements, never split, so no value can become a command. ``{FILES}`` is a whole element
expanding to several. Inside a ``sh -c`` script each placeholder becomes a reference to its
``EVALWRIGHT_*`` variable, so no value enters the script (docs/agents.md#shells); after
``cmd /c`` each value is escaped for ``cmd``."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping, Sequence

from evalwright.targets.commands import PLACEHOLDER, UnquotableValue, quote_cmd, shell_scripts
from evalwright.targets.models import split_command
from evalwright.targets.script_variables import RefusedPlaceholder, script_with_variables

__all__ = ["RefusedPlaceholder", "UnquotableValue", "expand_files", "fill", "split_command", "uses"]

FILES = "{FILES}"
_TOKEN = PLACEHOLDER


def uses(argv: Sequence[str], name: str) -> bool:
    """Whether the command mentions ``{NAME}`` (the same way :func:`fill` sees it)."""
    return any(name in _TOKEN.findall(element) for element in argv)


def fill(
    argv: Sequence[str], values: Mapping[str, str], files: Sequence[str], files_format: str
) -> list[str]:
    """The argv with every placeholder replaced in place and ``{FILES}`` expanded; a ``sh``
    script gets references to the variables instead (the values are in the environment).

    Raises :class:`UnquotableValue` when a value cannot be written into a ``cmd /c`` line, and
    :class:`RefusedPlaceholder` for a script the targets file check would have refused.
    """
    scripts = shell_scripts(argv)
    out: list[str] = []
    for index, element in enumerate(argv):
        dialect = scripts.get(index)
        if dialect == "sh":
            out.append(script_with_variables(element))
        elif element == FILES:
            words = expand_files(files, files_format)
            out.extend([quote_cmd(word) for word in words] if dialect else words)
        else:
            out.append(_fill_element(element, values, quote_cmd if dialect else _as_is))
    return out


def _as_is(value: str) -> str:
    return value


def _fill_element(element: str, values: Mapping[str, str], quote: Callable[[str], str]) -> str:
    return _TOKEN.sub(lambda m: quote(values.get(m.group(1), m.group(0))), element)


def expand_files(files: Sequence[str], files_format: str) -> list[str]:
    """``files_format`` split into argv, once per file (``{path}``, ``{basename}``)."""
    parts = shlex.split(files_format)
    return [_file_part(part, path) for path in files for part in parts]


def _file_part(part: str, path: str) -> str:
    names = {"path": path, "basename": os.path.basename(path)}
    return re.sub(r"\{(path|basename)\}", lambda m: names[m.group(1)], part)
