"""Placeholders inside a shell script become references to their environment variables
(docs/agents.md#shells).

No value ever enters a script's text. Each placeholder is replaced, once, by a fixed reference
to ``EVALWRIGHT_NAME`` written for the quoting it stands in: ``"${EVALWRIGHT_PROMPT?}"``
outside quotes, ``${EVALWRIGHT_PROMPT?}`` inside ``"..."``, ``'"${EVALWRIGHT_PROMPT?}"'`` inside
``'...'``. A shell does not read the result of an expansion as code, so no value can run there.

Where a placeholder stands is found by a real shell grammar (tree-sitter-bash, imported only
when a script holds a placeholder), and a placeholder is accepted only where that reference is
proven to mean the value as one word: an argument of a command named in the script, or the file
of a ``<``, ``>``, ``>>`` or ``>|`` redirection, at the top of the script or inside ``{ }``,
``( )``, ``if``, ``while``, a loop's body or a function, and only when the whole script parses.
Everything else is refused, with its position and the variable to read instead.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalwright.targets.commands import PLACEHOLDER, SH_SHELLS, program_name, shell_scripts

if TYPE_CHECKING:
    from tree_sitter import Language, Node

# A plain word the grammar reads like any other letters (placeholders are swapped for it).
_SENTINEL = b"evalwrightvalue"
# The grammar reads these as spaces; every shell reads them as part of a word.
_NOT_BLANKS = re.compile(r"[\r\f\v\0]")
# ``?``: a wrapper that drops the environment (``env -i``, ``sudo``, ``docker exec``) makes the
# shell stop with "parameter not set" rather than run with the value missing.
_REFERENCES = {
    "word": '"${{{}?}}"',
    "string_content": "${{{}?}}",
    "raw_string": "'\"${{{}?}}\"'",
}
# Nodes that only group commands: a command anywhere under them runs as written.
_STRUCTURE = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "redirected_statement",
        "negated_command",
        "compound_statement",
        "subshell",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "for_statement",
        "do_group",
        "function_definition",
    }
)
_REDIRECTIONS = frozenset({"<", ">", ">>", ">|"})
# The shells' own commands and reserved words (bash, dash, zsh, ksh). Many read an argument as
# code, as a command to run, as options that do either, or as a variable name (bash evaluates
# an array subscript there: ``read 'a[$(id)]'`` runs ``id``); only these few are known not to.
_SHELL_WORDS = """
. : [ [[ alias bg bind break builtin caller cd chdir command compgen complete compopt continue
declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs
kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift
shopt source suspend test times trap true type typeset ulimit umask unalias unset wait time
coproc function select autoload bindkey emulate float functions integer nameref noglob nocorrect
print private r repeat sched setopt unsetopt vared whence where zcompile zformat zle zmodload
zparseopts zstyle
"""
_SHELL_OWN = frozenset(_SHELL_WORDS.split())
_ARGUMENTS_ARE_DATA = frozenset({"echo", "printf", "cd", "true", "false", ":"})
_WRITTEN_NAME = re.compile(r"[\w./:+@%,\[-]+")
_PLACES = {
    "comment": "a comment",
    "heredoc_body": "a here-document",
    "heredoc_redirect": "a here-document",
    "herestring_redirect": "a here-string (<<<)",
    "command_substitution": "a command substitution ($(...) or `...`)",
    "process_substitution": "a process substitution",
    "arithmetic_expansion": "arithmetic",
    "expansion": "a parameter expansion ${...}",
    "simple_expansion": "a parameter expansion",
    "variable_assignment": "a variable assignment",
    "declaration_command": "declare, export, local or readonly",
    "unset_command": "unset",
    "test_command": "[ ], [[ ]] or (( ))",
    "case_statement": "a case statement",
    "for_statement": "a loop's word list",
    "c_style_for_statement": "a for (( )) loop",
    "command_name": "a command name",
    "ansi_c_string": "$'...'",
    "file_redirect": "a redirection other than <, >, >> or >|",
}


class RefusedPlaceholder(ValueError):
    """A placeholder inside a shell script where no variable reference is proven right."""


class _Refusal(Exception):
    """Why the placeholder being checked is refused (the caller adds which and where)."""


def variable(name: str) -> str:
    """The environment variable holding ``{NAME}`` (docs/agents.md#cli-any-command-line)."""
    return f"EVALWRIGHT_{name}"


@dataclass(frozen=True, slots=True)
class _Slot:
    name: str
    start: int  # byte offsets of its sentinel in the parsed text
    end: int
    position: int  # the placeholder's character offset in the script


@dataclass(frozen=True, slots=True)
class _Parsed:
    script: str
    source: bytes  # the script with each placeholder swapped for the sentinel
    slots: list[_Slot]

    def script_position(self, byte: int) -> int:
        """The script's character offset of a byte offset in ``source``."""
        offset = len(self.source[:byte].decode("utf-8", "surrogatepass"))
        for slot in self.slots:
            if slot.end <= byte:
                offset += len(slot.name) + 2 - len(_SENTINEL)
        return offset


def script_problem(argv: Sequence[str]) -> str | None:
    """Why a placeholder inside a shell script of ``argv`` is refused, or ``None``."""
    for index, dialect in shell_scripts(argv).items():
        if dialect == "sh" and PLACEHOLDER.search(argv[index]):
            try:
                script_with_variables(argv[index])
            except RefusedPlaceholder as exc:
                return str(exc)
    return None


@functools.lru_cache(maxsize=256)
def script_with_variables(script: str) -> str:
    """``script`` with each placeholder replaced by a reference to its environment variable.

    Raises :class:`RefusedPlaceholder` for a placeholder not proven to stand where the
    reference means its value as one word."""
    parsed = _swap(script)
    if not parsed.slots:
        return script
    for slot in parsed.slots:
        if slot.name == "FILES":
            raise RefusedPlaceholder(
                f"{{FILES}} ({_line_column(script, slot.position)}) cannot stand inside a shell "
                "script: pass it after the script (sh -c '... \"$@\"' sh {FILES}) or read "
                "$EVALWRIGHT_FILES (one path per line) (docs/agents.md#shells)"
            )
    root = _tree(parsed)
    pieces: list[str] = []
    last = 0
    for slot, match in zip(parsed.slots, PLACEHOLDER.finditer(script), strict=True):
        try:
            form = _form(root, parsed.source, slot)
        except _Refusal as exc:
            raise _refused(parsed, slot, f"it stands in {exc}") from None
        pieces += [script[last : match.start()], form.format(variable(slot.name))]
        last = match.end()
    return "".join([*pieces, script[last:]])


def _swap(script: str) -> _Parsed:
    source = bytearray()
    slots: list[_Slot] = []
    last = 0
    for match in PLACEHOLDER.finditer(script):
        source += script[last : match.start()].encode("utf-8", "surrogatepass")
        start = len(source)
        source += _SENTINEL
        slots.append(_Slot(match.group(1), start, len(source), match.start()))
        last = match.end()
    source += script[last:].encode("utf-8", "surrogatepass")
    return _Parsed(script, bytes(source), slots)


def _tree(parsed: _Parsed) -> Node:
    """The script's syntax tree; a script the grammar cannot read wholly is refused."""
    first = parsed.slots[0]
    odd = _NOT_BLANKS.search(parsed.script)
    if odd is not None:
        where = _line_column(parsed.script, odd.start())
        what = _NAMES[odd.group()]
        why = f"the script holds a {what} ({where}), read as a space by the grammar only"
        raise _refused(parsed, first, why)
    root = _parse(parsed.source)
    broken = _first_error(root)
    if broken is not None:
        where = _line_column(parsed.script, parsed.script_position(broken.start_byte))
        why = f"the script does not parse ({where}), so where it stands is unknown"
        raise _refused(parsed, first, why)
    return root


_NAMES = {"\r": "carriage return", "\f": "form feed", "\v": "vertical tab", "\0": "NUL"}


def _refused(parsed: _Parsed, slot: _Slot, why: str) -> RefusedPlaceholder:
    return RefusedPlaceholder(
        f"{{{slot.name}}} ({_line_column(parsed.script, slot.position)}) is refused inside a "
        f"shell script: {why}; write its environment variable there instead, quoted: "
        f'"${variable(slot.name)}" (docs/agents.md#shells)'
    )


@functools.cache
def _language() -> Language:
    import tree_sitter_bash
    from tree_sitter import Language

    return Language(tree_sitter_bash.language())


def _parse(source: bytes) -> Node:
    from tree_sitter import Parser

    return Parser(_language()).parse(source).root_node


def _first_error(root: Node) -> Node | None:
    """The first node the grammar could not read (an error, or something it had to assume)."""
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return node
        stack.extend(reversed([child for child in node.children if child.has_error]))
    return root


def _form(root: Node, source: bytes, slot: _Slot) -> str:
    """The reference to write for ``slot``: its quoting form, once its place is proven."""
    node = root.descendant_for_byte_range(slot.start, slot.end)
    if node is None or node.start_byte > slot.start or node.end_byte < slot.end:
        raise _Refusal("more than one word")
    form = _REFERENCES.get(node.type)
    if form is None:
        raise _Refusal(_describe(node))
    if node.type != "raw_string" and _escaped(source, slot.start):
        raise _Refusal("a place right after a backslash")
    _check_argument(node, source)
    return form


def _escaped(source: bytes, at: int) -> bool:
    """Whether an odd run of backslashes precedes ``at`` (then one escapes what is there)."""
    count = 0
    while at - count > 0 and source[at - count - 1] == ord("\\"):
        count += 1
    return count % 2 == 1


def _check_argument(node: Node, source: bytes) -> None:
    """The word (or quoted string) must be an argument of a command or a redirection's file."""
    if node.type == "string_content":
        node = _parent(node)
        if node.type != "string" or source[node.start_byte - 1 : node.start_byte] == b"$":
            raise _Refusal(_describe(node) if node.type != "string" else 'a $"..." string')
    parent = _parent(node)
    if parent.type == "concatenation":
        node, parent = parent, _parent(parent)
    if parent.type == "command" and node in parent.children_by_field_name("argument"):
        _check_command(parent)
        _check_structure(_parent(parent))
    elif parent.type == "file_redirect" and node in parent.children_by_field_name("destination"):
        operators = {child.type for child in parent.children if not child.is_named}
        if not operators <= _REDIRECTIONS:
            raise _Refusal(_PLACES["file_redirect"])
        _check_structure(_parent(parent))
    else:
        raise _Refusal(_describe(node))


def _check_command(command: Node) -> None:
    """The command is named in the script, and is not one of the shell's own that may read an
    argument as code or as a variable name (``printf`` only behind a written format)."""
    name = command.child_by_field_name("name")
    words = name.named_children if name is not None else []
    text = _text(name)
    if len(words) != 1 or words[0].type != "word" or not _WRITTEN_NAME.fullmatch(text):
        raise _Refusal("an argument of a command whose name is not written out in the script")
    own = text in _SHELL_OWN and text not in _ARGUMENTS_ARE_DATA
    if own or program_name(text) in SH_SHELLS:
        raise _Refusal(f"an argument of {text}, which may read it as code, a command or a name")
    if text == "printf" and not _written_format(command.children_by_field_name("argument")):
        raise _Refusal("an argument of printf not behind a written format (one such is -v NAME)")


def _written_format(arguments: list[Node]) -> bool:
    """Whether the first argument is written in the script and is not an option."""
    if not arguments:
        return False
    first = _text(arguments[0])
    plain = re.sub(r"[\'\"\\]", "", first)
    return (
        _SENTINEL.decode() not in first
        and not re.search(r"[$`]", first)
        and not plain.startswith("-")
    )


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _check_structure(node: Node | None) -> None:
    """Every node from ``node`` up to the script's top only groups commands."""
    while node is not None:
        arithmetic = node.type == "compound_statement" and node.children[0].type == "(("
        if node.type not in _STRUCTURE or arithmetic:
            raise _Refusal(_describe(node))
        node = node.parent


def _parent(node: Node) -> Node:
    parent = node.parent
    if parent is None:
        raise _Refusal("the script's top")
    return parent


def _describe(node: Node) -> str:
    """What the nearest known construct around ``node`` is, in words."""
    current: Node | None = node
    while current is not None:
        if current.type == "compound_statement" and current.children[0].type == "((":
            return _PLACES["test_command"]
        if current.type in _PLACES:
            return _PLACES[current.type]
        current = current.parent
    return node.type.replace("_", " ")


def _line_column(script: str, position: int) -> str:
    line = script.count("\n", 0, position) + 1
    column = position - (script.rfind("\n", 0, position) + 1) + 1
    return f"script line {line}, column {column}"
