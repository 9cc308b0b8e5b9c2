"""The guideline pattern dialect of docs/eval-files.md#guideline-patterns (globs.py)."""

from __future__ import annotations

import re

import pytest

from evalwright.files.globs import GlobSet, expand_braces, translate


def matches(pattern: str, path: str) -> bool:
    return GlobSet([pattern]).match(path)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        # the default pattern, dot-directories included
        ("**/*.instructions.md", ".github/instructions/x.instructions.md", True),
        ("**/*.instructions.md", "x.instructions.md", True),
        ("**/*.instructions.md", "a/b/c/d.instructions.md", True),
        ("**/*.instructions.md", ".hidden/.deeper/x.instructions.md", True),
        ("**/*.instructions.md", "a/x.instructions.md.bak", False),
        ("**/*.instructions.md", "a/x.instructions.mdx", False),
        ("**/*.instructions.md", "a/x-instructions.md", False),
        # case-sensitive
        ("**/*.instructions.md", "a/x.Instructions.md", False),
        ("SKILL.md", "skill.md", False),
        ("SKILL.md", "SKILL.md", True),
        # the whole path must match
        ("SKILL.md", "x/SKILL.md", False),
        ("a.md", "xa.md", False),
        ("a.md", "a.md/b", False),
        ("docs/*.md", "src/docs/a.md", False),
        ("**/SKILL.md", "SKILL.md", True),
        ("**/SKILL.md", "skills/a/SKILL.md", True),
    ],
)
def test_double_star_case_and_whole_path(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.md", "a.md", True),
        ("*.md", ".md", True),
        ("*.md", "b/a.md", False),
        ("docs/*", "docs/a", True),
        ("docs/*", "docs/a/b", False),
        ("a*b", "a/b", False),
        ("a*b", "axyzb", True),
        ("a?b", "axb", True),
        ("a?b", "a/b", False),
        ("a?b", "ab", False),
        ("a/?.md", "a/bc.md", False),
        # "**" inside a segment is just "*"
        ("a**b/c", "axxb/c", True),
        ("a**b/c", "ax/yb/c", False),
    ],
)
def test_star_and_question_mark_never_match_a_slash(
    pattern: str, path: str, expected: bool
) -> None:
    assert matches(pattern, path) is expected


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/b", True),
        ("a/**/b", "a/x/y/z/b", True),
        ("a/**/b", "a/.x/b", True),
        ("a/**/b", "ab", False),
        ("a/**/b", "a/xb", False),
        ("docs/**", "docs/a", True),
        ("docs/**", "docs/a/b", True),
        ("docs/**", "docsx/a", False),
        ("**", "a", True),
        ("**", ".x/y/z", True),
        ("**/x/**/*.md", "x/a.md", True),
        ("**/x/**/*.md", "p/x/q/r/a.md", True),
        ("**/x/**/*.md", "p/y/a.md", False),
    ],
)
def test_double_star_segment_matches_zero_or_more_segments(
    pattern: str, path: str, expected: bool
) -> None:
    assert matches(pattern, path) is expected


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("[ab].md", "a.md", True),
        ("[ab].md", "b.md", True),
        ("[ab].md", "c.md", False),
        ("[ab].md", "A.md", False),
        ("[a-c]x", "bx", True),
        ("[a-c]x", "dx", False),
        ("[!ab].md", "c.md", True),
        ("[!ab].md", "a.md", False),
        ("[!ab].md", "/.md", False),
        ("x[/]y", "x/y", False),
        ("x[!a]y", "x/y", False),
        ("[]]", "]", True),
        ("[]a]", "a", True),
        ("[!]]x", "ax", True),
        ("[!]]x", "]x", False),
        # an unterminated bracket is literal
        ("[ab", "[ab", True),
        ("[ab", "a", False),
    ],
)
def test_bracket_expressions(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("a+b(c).md", "a+b(c).md", True),
        ("a+b(c).md", "aab(c).md", False),
        ("a.md", "abmd", False),
        ("$x^|y", "$x^|y", True),
    ],
)
def test_regex_characters_are_literal(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


@pytest.mark.parametrize(
    ("pattern", "expanded"),
    [
        ("plain/*.md", ["plain/*.md"]),
        ("{a,b}.md", ["a.md", "b.md"]),
        ("x/{a,b}/{c,d}", ["x/a/c", "x/a/d", "x/b/c", "x/b/d"]),
        ("{a,b{c,d}}.md", ["a.md", "bc.md", "bd.md"]),
        ("{a,{b,c}}{1,2}", ["a1", "a2", "b1", "b2", "c1", "c2"]),
        ("{,x}y", ["y", "xy"]),
        ("{a}.md", ["{a}.md"]),
        ("x{a,b", ["x{a,b"]),
        ("[{]x", ["[{]x"]),
        ("{[ab],c}", ["[ab]", "c"]),
    ],
)
def test_expand_braces(pattern: str, expanded: list[str]) -> None:
    assert expand_braces(pattern) == expanded


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("{docs,notes}/*.md", "docs/a.md", True),
        ("{docs,notes}/*.md", "notes/a.md", True),
        ("{docs,notes}/*.md", "other/a.md", False),
        ("**/{AGENTS,SKILL}.md", "x/AGENTS.md", True),
        ("**/*.{md,txt}", "a/b.txt", True),
        ("**/*.{md,txt}", "a/b.rst", False),
        ("{a,b{c,d}}.md", "bd.md", True),
        ("{a,b{c,d}}.md", "b.md", False),
        ("{a,b}.md", "{a,b}.md", False),
        ("{a,**/x}.md", "p/q/x.md", True),
    ],
)
def test_braces_in_matching(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def test_any_pattern_of_a_set_may_match() -> None:
    globs = GlobSet(["**/*.instructions.md", "**/SKILL.md"])
    assert globs.match("skills/x/SKILL.md")
    assert globs.match(".github/copilot.instructions.md")
    assert not globs.match("README.md")
    assert globs.patterns == ("**/*.instructions.md", "**/SKILL.md")


@pytest.mark.parametrize("path", ["a.instructions.md", "x", ""])
def test_an_empty_pattern_list_matches_nothing(path: str) -> None:
    assert not GlobSet([]).match(path)


def test_translate_gives_an_unanchored_regex_for_one_pattern() -> None:
    regex = re.compile(translate("**/*.md"))
    assert regex.fullmatch("a/b/c.md")
    assert regex.fullmatch("c.md")
    assert not regex.fullmatch("a/b/c.txt")
    assert re.search(translate("*.md"), "x/y.md")  # unanchored: search finds a part
