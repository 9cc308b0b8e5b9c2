"""Where a shell will read a ``cli`` command's text as code, and how a value is quoted there
(docs/agents.md#shells).

Placeholders are replaced inside argv elements, which is safe wherever the element is an
argument. It is not safe in the script of ``sh -c SCRIPT`` (bash, zsh, dash, ksh too, under
any wrapper such as ``env``) or after ``cmd /c``: a shell parses that text. There each value
is quoted for the exact spot it lands in (unquoted, inside ``"..."``, ``'...'`` or ``$'...'``,
inside backquotes), so it arrives as one literal word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

# ``{NAME}``, but not the inside of a ``${{ VAR }}`` variable or a shell's ``${NAME}``.
PLACEHOLDER = re.compile(r"(?<![{$])\{([A-Z][A-Z_]*)\}(?!\})")
SH_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh"})
# Options of those shells whose value is the next argument.
_LONG_WITH_VALUE = frozenset({"--rcfile", "--init-file"})
Dialect = Literal["sh", "cmd"]
Context = Literal["plain", "single", "double", "ansi", "comment", "heredoc"]
_WORD_BREAKS = frozenset(" \t\n;&|()<>")
_CONTEXTS: dict[str, Context] = {"S": "single", "D": "double", "A": "ansi", "C": "comment"}
_HEREDOC = re.compile(r"<<(-?)[ \t]*([^\s;&|()<>]+)")


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


@dataclass(frozen=True, slots=True)
class Site:
    """The shell's state where a placeholder stands in a script."""

    context: Context
    backquotes: int = 0  # how many `...` substitutions enclose it
    escaped: bool = False  # right after a backslash that escapes what follows


@dataclass(slots=True)
class _Frame:
    kind: str  # N: commands, P: $( ... ), B: `...`, D: "...", S: '...', A: $'...', C: comment
    depth: int = 0  # open parentheses inside a P frame


@dataclass(slots=True)
class _Heredoc:
    delimiter: str
    strip_tabs: bool


class _Lexer:
    """Follows the quoting state of a POSIX shell script, one piece of text at a time."""

    def __init__(self) -> None:
        self.stack = [_Frame("N")]
        self.escaped = False
        self.word_start = True
        self.pending: list[_Heredoc] = []  # here-documents whose body starts at the next line
        self.heredoc: _Heredoc | None = None
        self.line = ""  # the here-document line read so far
        self.tainted = False  # the line holds a value, so it cannot end the here-document

    def site(self) -> Site:
        kinds = [frame.kind for frame in self.stack]
        context = "heredoc" if self.heredoc is not None else _CONTEXTS.get(kinds[-1], "plain")
        return Site(context, kinds.count("B"), self.escaped)

    def value(self) -> None:
        """A quoted value was inserted: it is one complete piece of a word."""
        self.escaped = False
        self.word_start = False
        self.tainted = self.heredoc is not None

    def feed(self, text: str) -> None:
        index = 0
        while index < len(text):
            if self.heredoc is not None:
                self._heredoc_char(text[index])
                index += 1
                continue
            index += self._char(text, index)

    def _heredoc_char(self, char: str) -> None:
        assert self.heredoc is not None
        if char != "\n":
            self.line += char
            return
        line = self.line.lstrip("\t") if self.heredoc.strip_tabs else self.line
        if line == self.heredoc.delimiter and not self.tainted:
            self.heredoc = self.pending.pop(0) if self.pending else None
        self.line, self.tainted = "", False

    def _char(self, text: str, index: int) -> int:
        """Consume the character at ``index`` (and what belongs to it); how many were read."""
        char, frame = text[index], self.stack[-1]
        if self.escaped:
            self.escaped = False
            self.word_start = False
            return 1
        if frame.kind in "SAC":
            return self._quoted(char, frame)
        if char == "\\":
            self.escaped = True
            return 1
        if frame.kind == "D":
            return self._double(text, index)
        return self._command(text, index, frame)

    def _quoted(self, char: str, frame: _Frame) -> int:
        if frame.kind == "C":
            if char == "\n":
                self.stack.pop()
                self._newline()
        elif char == "'":
            self.stack.pop()
        elif frame.kind == "A" and char == "\\":
            self.escaped = True
        return 1

    def _double(self, text: str, index: int) -> int:
        char = text[index]
        if char == '"':
            self.stack.pop()
        elif char == "`":
            self.stack.append(_Frame("B"))
        elif text.startswith("$(", index):
            self.stack.append(_Frame("P"))
            return 2
        return 1

    def _command(self, text: str, index: int, frame: _Frame) -> int:
        char = text[index]
        start, self.word_start = self.word_start, char in _WORD_BREAKS
        if char == "#" and start:
            self.stack.append(_Frame("C"))
        elif char in "'\"":
            self.stack.append(_Frame("S" if char == "'" else "D"))
        elif char == "`" and frame.kind == "B":
            self.stack.pop()
        elif char == "`":
            self.stack.append(_Frame("B"))
        elif text.startswith("$'", index) or text.startswith("$(", index):
            self.stack.append(_Frame("A" if text[index + 1] == "'" else "P"))
            return 2
        elif char == "(" and frame.kind == "P":
            frame.depth += 1
        elif char == ")" and frame.kind == "P" and frame.depth == 0:
            self.stack.pop()
        elif char == ")" and frame.kind == "P":
            frame.depth -= 1
        elif char == "\n":
            self._newline()
        elif text.startswith("<<", index) and not text.startswith("<<<", index):
            return self._heredoc_operator(text, index)
        return 1

    def _newline(self) -> None:
        if self.pending:
            self.heredoc = self.pending.pop(0)
        self.word_start = True

    def _heredoc_operator(self, text: str, index: int) -> int:
        match = _HEREDOC.match(text, index)
        if match is None:
            return 2
        delimiter = re.sub(r"[\"'\\]", "", match.group(2))
        self.pending.append(_Heredoc(delimiter, match.group(1) == "-"))
        return match.end() - index


def script_sites(script: str) -> list[Site]:
    """The shell's state at each placeholder of ``script``, in order."""
    lexer = _Lexer()
    sites: list[Site] = []
    position = 0
    for match in PLACEHOLDER.finditer(script):
        lexer.feed(script[position : match.start()])
        sites.append(lexer.site())
        lexer.value()
        position = match.end()
    return sites


def _single(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def quote_sh(value: str, site: Site) -> str:
    """``value`` written so that the shell reads it back exactly, at ``site``."""
    if site.context == "plain":
        text = _single(value)
    elif site.context == "single":
        text = value.replace("'", "'\\''")
    elif site.context == "double":
        text = re.sub(r'([\\"$`])', r"\\\1", value)
    elif site.context == "ansi":
        text = value.replace("\\", "\\\\").replace("'", "\\'")
    elif site.context == "comment":
        return re.sub(r"[\r\n]", " ", value)
    else:
        raise UnquotableValue("a value cannot be quoted inside a here-document")
    if site.escaped:
        # A backslash and a newline vanish together, so the template's stray backslash
        # cannot take the value's first character.
        text = ("\\" if site.context == "ansi" else "\n") + text
    for _ in range(site.backquotes):
        text = re.sub(r"([\\`$])", r"\\\1", text)
    return text


def quote_sh_words(words: Sequence[str], site: Site) -> str:
    """Several words (``{FILES}``), each quoted, separated by spaces (unquoted sites only)."""
    return " ".join(quote_sh(word, site) for word in words)


def quote_cmd(value: str) -> str:
    """``value`` for a ``cmd /c`` command line: every special character escaped with ``^``
    (best effort: a quote or a line break cannot be written there at all)."""
    if re.search(r'["\r\n]', value):
        raise UnquotableValue(
            "a value holding a double quote or a line break cannot be passed through cmd /c"
        )
    return re.sub(r"([\^&|<>()%!])", r"^\1", value)


def script_problem(argv: Sequence[str]) -> str | None:
    """Why the placeholders inside a shell script cannot be quoted, or ``None``."""
    for index, dialect in shell_scripts(argv).items():
        element = argv[index]
        if dialect == "cmd" or not PLACEHOLDER.search(element):
            continue
        names = PLACEHOLDER.findall(element)
        for name, site in zip(names, script_sites(element), strict=True):
            if site.context == "heredoc":
                return f"{{{name}}} inside a here-document cannot be quoted: use $EVALWRIGHT_{name}"
            if name == "FILES" and site.context != "plain":
                return "{FILES} inside a shell script must stand outside quotes"
    return None


def scripted_placeholders(argv: Sequence[str]) -> list[tuple[int, list[str]]]:
    """``(argv index, placeholder names)`` for each shell script holding placeholders."""
    found: list[tuple[int, list[str]]] = []
    for index in sorted(shell_scripts(argv)):
        names = PLACEHOLDER.findall(argv[index])
        if names:
            found.append((index, names))
    return found
