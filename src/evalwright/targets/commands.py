"""Where a shell will read a ``cli`` command's text as code (docs/agents.md#shells).

Placeholders are replaced inside argv elements, which is safe wherever the element is an
argument. It is not safe in the script of ``sh -c SCRIPT`` (bash, zsh, dash, ksh too, under
any wrapper such as ``env``) or after ``cmd /c``: a shell parses that text. In a ``sh`` script
each placeholder becomes a reference to its environment variable
(:mod:`evalwright.targets.script_variables`); after ``cmd /c`` each value is escaped, best
effort.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

# ``{NAME}``, but not the inside of a ``${{ VAR }}`` variable or a shell's ``${NAME}``.
PLACEHOLDER = re.compile(r"(?<![{$])\{([A-Z][A-Z_]*)\}(?!\})")
SH_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh"})
# Options of those shells whose value is the next argument.
_LONG_WITH_VALUE = frozenset({"--rcfile", "--init-file"})
Dialect = Literal["sh", "cmd"]


class UnquotableValue(ValueError):
    """A value that cannot be written into a ``cmd /c`` command line."""


def program_name(element: str) -> str:
    """The program an argv element names: its base name (either slash), lowercase for
    Windows names (``C:\\Windows\\cmd.exe`` is ``cmd``)."""
    base = re.split(r"[\\/]", element)[-1]
    lowered = base.lower()
    return lowered.removesuffix(".exe") if lowered in ("cmd", "cmd.exe") else base


def shell_scripts(argv: Sequence[str]) -> dict[int, Dialect]:
    """The argv indexes a shell reads as code: the script after ``sh -c`` (and its kin,
    wherever they stand in the command), or everything after ``cmd /c``."""
    for index, element in enumerate(argv):
        if PLACEHOLDER.search(element):
            continue  # a program chosen by a value is not ours to guess
        name = program_name(element)
        if name in SH_SHELLS:
            script = _sh_script(argv, index + 1)
            if script is not None:
                return {script: "sh"}  # what follows are the script's $0, $1, ...
        elif name == "cmd":
            start = _cmd_command(argv, index + 1)
            if start is not None:
                return dict.fromkeys(range(start, len(argv)), "cmd")
    return {}


def _sh_script(argv: Sequence[str], start: int) -> int | None:
    """The index of the script when the shell's options include ``c``, else ``None``."""
    command = False
    index = start
    while index < len(argv):
        arg = argv[index]
        if arg in ("--", "-"):
            index += 1
            break
        if arg.startswith("--"):
            index += 2 if arg in _LONG_WITH_VALUE else 1
            continue
        if len(arg) < 2 or arg[0] not in "-+":
            break
        letters = arg[1:]
        # An option made of a placeholder might be -c: treat the next word as a script.
        command = command or "c" in letters or bool(PLACEHOLDER.search(arg))
        index += 2 if set(letters) & {"o", "O"} else 1
    return index if command and index < len(argv) else None


def _cmd_command(argv: Sequence[str], start: int) -> int | None:
    for index in range(start, len(argv)):
        switch = argv[index].lower()
        if switch in ("/c", "/k", "/r"):
            return index + 1
        if not switch.startswith("/"):
            return None
    return None


def quote_cmd(value: str) -> str:
    """``value`` for a ``cmd /c`` command line: every special character escaped with ``^``
    (best effort: a quote or a line break cannot be written there at all)."""
    if re.search(r'["\r\n]', value):
        raise UnquotableValue(
            "a value holding a double quote or a line break cannot be passed through cmd /c"
        )
    return re.sub(r"([\^&|<>()%!])", r"^\1", value)


def scripted_placeholders(argv: Sequence[str]) -> list[tuple[int, Dialect, list[str]]]:
    """``(argv index, dialect, placeholder names)`` for each shell script holding placeholders."""
    found: list[tuple[int, Dialect, list[str]]] = []
    for index, dialect in sorted(shell_scripts(argv).items()):
        names = PLACEHOLDER.findall(argv[index])
        if names:
            found.append((index, dialect, names))
    return found
