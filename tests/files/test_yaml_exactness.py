"""Every YAML scalar style reaches the model exactly as YAML 1.2 reads it (docs/eval-files.md).

Each scalar is written twice into a real eval file, as ``expected_outcome`` (kept as written)
and as a user message (tidied: leading and trailing blank lines and trailing white space go),
then read with ``load_eval_file`` and shown by ``evalwright prompt --json``. The expected values
were checked against the YAML 1.2 spec and two independent parsers (libyaml, ruamel.yaml).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from evalwright.evalfile import load_eval_file
from evalwright.evalfile.resolved import TextSegment
from evalwright.files.text import normalize_newlines, tidy
from tests.conftest import ProjectDir, run_cli


@dataclass(frozen=True)
class Scalar:
    """A scalar as written after ``key:`` (later lines relative to the key) and its value."""

    name: str
    source: str
    value: str


SCALARS = (
    # --- plain ---------------------------------------------------------------------------
    Scalar("plain-folds-lines", " You are a\n  careful bot.\n", "You are a careful bot."),
    Scalar("plain-blank-lines", " first\n\n  second\n\n\n  third\n", "first\nsecond\n\nthird"),
    Scalar("plain-tabs-inside", " a \t b\n  \t c\n", "a \t b c"),
    Scalar("plain-hash-and-colon", " a#b c:d # a comment\n", "a#b c:d"),
    Scalar("plain-unicode", " 😀 ünïcode 中文\n", "😀 ünïcode 中文"),
    # --- single-quoted -------------------------------------------------------------------
    Scalar("single-folds", " 'It''s  a\n  folded\n\n  text '\n", "It's  a folded\ntext "),
    Scalar("single-keeps-edge-spaces", " '  lead\n    trail  '\n", "  lead trail  "),
    Scalar("single-hash", " 'a # not a comment'\n", "a # not a comment"),
    # --- double-quoted -------------------------------------------------------------------
    Scalar(
        "double-escapes",
        ' "\\x41 \\u263A \\U0001F600 \\t \\" \\/ \\\\ \\N \\L \\P \\_ \\0 \\a \\e \\r"\n',
        'A ☺ 😀 \t " / \\ \x85 \u2028 \u2029 \xa0 \x00 \x07 \x1b \r',
    ),
    Scalar("double-folds", ' "a\n  b\n\n  c  \n  d"\n', "a b\nc d"),
    Scalar("double-escaped-breaks", ' "a\\\n    b \\\n  c\\n\\\n  \\ d"\n', "ab c\n d"),
    Scalar("double-tab", ' "a\tb\\tc"\n', "a\tb\tc"),
    # --- literal -------------------------------------------------------------------------
    Scalar("literal-clip", " |\n  a\n   b\n\n  c\n\n\n", "a\n b\n\nc\n"),
    Scalar("literal-strip", " |-\n  a\n   b\n\n  c\n\n\n", "a\n b\n\nc"),
    Scalar("literal-keep", " |+\n  a\n   b\n\n  c\n\n\n", "a\n b\n\nc\n\n\n"),
    Scalar("literal-indentation-indicator", " |2\n    indented\n  next\n", "  indented\nnext\n"),
    Scalar("literal-indicator-and-keep", " |1+\n   two\n  one\n\n", "  two\n one\n\n"),
    Scalar("literal-tabs", " |\n  a\tb\n  \tc\n", "a\tb\n\tc\n"),
    Scalar("literal-first-line-tab-with-indicator", " |2\n  \tx\n", "\tx\n"),
    # --- folded --------------------------------------------------------------------------
    Scalar(
        "folded-clip",
        " >\n  a\n  b\n\n  c\n    more\n    indented\n  d\n\n  e\n",
        "a b\nc\n  more\n  indented\nd\ne\n",
    ),
    Scalar("folded-strip", " >-\n  a\n  b\n\n\n  c\n", "a b\n\nc"),
    Scalar("folded-keep", " >+\n  a\n  b\n\n\n", "a b\n\n\n"),
    Scalar("folded-indicator-strip", " >1-\n  lead\n text\n next\n", " lead\ntext next"),
    Scalar("folded-tab-line-is-not-folded", " >\n  a\n  \tb\n  c\n", "a\n\tb\nc\n"),
    Scalar("folded-header-comment", " > # a note\n  a\n  b\n", "a b\n"),
    Scalar(
        "folded-the-issue-example", " >\n  You are a\n  careful bot.\n", "You are a careful bot.\n"
    ),
    # --- tags, anchors ---------------------------------------------------------------------
    Scalar("explicit-str-number", " !!str 3.10\n", "3.10"),
    Scalar("explicit-str-yes", " !!str yes\n", "yes"),
    Scalar("non-specific-tag", " ! 12\n", "12"),
)


def _indent(source: str, columns: int) -> str:
    """``source`` for a key ``columns`` in: every later non-blank line moved right."""
    first, *rest = source.split("\n")
    pad = " " * columns
    return "\n".join([first, *((pad + line) if line else "" for line in rest)])


def eval_file(source: str, comments: bool = False) -> str:
    """A one-case eval file with the scalar as ``expected_outcome`` and as the user's text."""
    note = "    # a comment: 'x' \"y\"\n" if comments else ""
    return (
        "evalcases:\n"
        + ("  # the only case\n" if comments else "")
        + "  - id: c\n"
        + "    expected_outcome:"
        + _indent(source, 4)
        + note
        + "    input_messages:\n"
        + ("      # the message\n" if comments else "")
        + "      - role: user\n"
        + "        content:"
        + _indent(source, 8)
        + note
    )


VARIANTS: dict[str, Callable[[str], str]] = {
    "lf": lambda text: text,
    "crlf": lambda text: text.replace("\n", "\r\n"),
    "bom": lambda text: "\ufeff" + text,
    "bom-crlf": lambda text: "\ufeff" + text.replace("\n", "\r\n"),
}


def check_exact(path: Path, value: str) -> None:
    """The loader and ``prompt --json`` give ``value`` (the message tidied)."""
    case = load_eval_file(path).cases[0]
    assert case.expected_outcome == value
    shown = tidy(normalize_newlines(value))
    (message,) = case.input_messages
    assert message.segments == (TextSegment(shown),)
    result = run_cli("prompt", path, "--json")
    assert result.code == 0, result.err
    assert result.json()["messages"][-1] == {"role": "user", "content": shown}


@pytest.mark.parametrize("scalar", SCALARS, ids=[s.name for s in SCALARS])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_scalar_style_reaches_the_model_exactly(
    project: ProjectDir, scalar: Scalar, variant: str
) -> None:
    path = project.write("e.yaml", VARIANTS[variant](eval_file(scalar.source)))
    check_exact(path, scalar.value)


@pytest.mark.parametrize("scalar", SCALARS, ids=[s.name for s in SCALARS])
def test_comments_between_items_change_nothing(project: ProjectDir, scalar: Scalar) -> None:
    path = project.write("e.yaml", eval_file(scalar.source, comments=True))
    check_exact(path, scalar.value)


def test_anchors_and_aliases_give_the_same_text(project: ProjectDir) -> None:
    path = project.write(
        "e.yaml",
        "evalcases:\n"
        "  - id: c\n"
        "    expected_outcome: &text >-\n"
        "      folded\n"
        "      twice\n"
        "    input_messages:\n"
        "      - role: user\n"
        "        content: *text\n",
    )
    check_exact(path, "folded twice")


# --- NEL, LS and PS: line breaks in YAML 1.1, ordinary characters in YAML 1.2 ----------------

SPECIAL = "\x85\u2028\u2029"


@pytest.mark.parametrize(
    ("source", "value"),
    [
        (f" a{SPECIAL}b c\n", f"a{SPECIAL}b c"),
        (" a \u2028 b\n  c\n", "a \u2028 b c"),
        (f" 'a{SPECIAL} b'\n", f"a{SPECIAL} b"),
        (f' "a{SPECIAL} b \\u2028"\n', f"a{SPECIAL} b \u2028"),
        (f" |\n  a{SPECIAL}\n  \u2028b\n", f"a{SPECIAL}\n\u2028b\n"),
        (" >\n  a\x85\n  b\u2029\n", "a\x85 b\u2029\n"),
        # An escape may stand for the private-use character a break is swapped for meanwhile.
        (' "\\uE000 \\uE001 \\uE002 \x85\u2028\u2029"\n', "\ue000 \ue001 \ue002 \x85\u2028\u2029"),
        (" a\ue000\x85\ue001\n", "a\ue000\x85\ue001"),
    ],
    ids=["plain", "plain-folded", "single", "double", "literal", "folded", "escapes", "pua"],
)
def test_nel_ls_ps_are_text_not_line_breaks(project: ProjectDir, source: str, value: str) -> None:
    path = project.write("e.yaml", eval_file(source))
    check_exact(path, value)


def test_a_tab_starting_an_auto_indented_block_scalar_says_how_to_fix_it(
    project: ProjectDir,
) -> None:
    # YAML 1.2 reads "\tx\n"; libyaml refuses it unless the indentation is given ('|2').
    path = project.write(
        "e.yaml", "evalcases:\n  - id: c\n    expected_outcome: |\n      \tx\n    input: y\n"
    )
    result = run_cli("validate", path)
    assert result.code == 1
    (error,) = [line for line in result.out.splitlines() if ": error: " in line]
    assert error.endswith(
        "e.yaml:4:7: error: invalid YAML: while scanning a block scalar found a tab character "
        "where an indentation space is expected (started at line 3, column 23) (when a block "
        "scalar's first line starts with a tab, give its indentation: '|2')"
    )
