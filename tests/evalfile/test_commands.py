"""Placeholders inside a shell script are quoted for the spot they land in: found by
:func:`shell_scripts`, followed by :func:`script_sites`, checked by running real shells."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from evalwright.evalfile.commands import (
    UnquotableValue,
    quote_cmd,
    script_sites,
    shell_scripts,
)
from evalwright.providers.cli.placeholders import fill
from evalwright.targets.models import command_problem, split_command

VALUES = [
    "plain",
    "$(touch pwned)",
    "`touch pwned`",
    "a; touch pwned && touch pwned || touch pwned",
    "it's",
    'say "hi"',
    "back\\slash\\",
    "line one\nline two\n\n",
    "$HOME ${HOME} $((1+2))",
    "*.py ? [ab] ~ {a,b}",
    "",
    "'",
    "''\"\"",
    "\\",
    "a\\'b\\\"c",
    "EOF\ntouch pwned\nEOF",
    "-n",
    "PATH=/nowhere",
    "%s \\n %d",
    "caf\u00e9 \u2713",
    "  spaced  ",
    "}) ; touch pwned; (",
    "# not a comment\ntouch pwned",
    "\\\ntouch pwned",
    "{PROMPT} {EVAL_ID}",
]
# (command, what it prints for a value v): each script prints the value back (a command
# substitution ends with "." so that the value's trailing newlines are kept).
TEMPLATES = [
    ("sh -c 'printf %s {PROMPT}'", "{v}"),
    ("sh -c 'printf %s \"{PROMPT}\"'", "{v}"),
    ('sh -c "printf %s {PROMPT}"', "{v}"),
    ("sh -c 'printf %s x{PROMPT}y'", "x{v}y"),
    ("sh -c 'printf %s \"<{PROMPT}>\"'", "<{v}>"),
    ("sh -c 'printf %s \\{PROMPT}'", "{v}"),
    ("bash -lc 'printf %s \"$(printf %s {PROMPT}; printf .)\"'", "{v}."),
    ('bash -c \'printf %s "$(printf %s "{PROMPT}"; printf .)"\'', "{v}."),
    ("bash -c 'printf %s \"`printf %s {PROMPT}; printf .`\"'", "{v}."),
    # Bash brace-expands inside "`...`" (POSIX leaves quotes in there undefined); dash does not.
    ('dash -c \'printf %s "`printf %s "{PROMPT}"; printf .`"\'', "{v}."),
    ("bash -c 'printf %s $'\\''{PROMPT}'\\'", "{v}"),
    ("/usr/bin/env LC_ALL=C dash -ec 'printf %s {PROMPT} # {PROMPT}'", "{v}"),
    ("env -i /bin/sh -o errexit -c -- 'printf %s {PROMPT}'", "{v}"),
    ('sh -c \'printf "%s|%s" "$1" {PROMPT}\' sh {PROMPT}', "{v}|{v}"),
]


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """``argv`` run for real (no shell of ours), with a short deadline."""
    return subprocess.run(argv, cwd=cwd, capture_output=True, timeout=10, check=False)


@pytest.mark.parametrize(("template", "shape"), TEMPLATES)
def test_every_value_reaches_a_real_shell_as_one_literal_word(
    template: str, shape: str, tmp_path: Path
) -> None:
    argv = split_command(template)
    assert command_problem(argv) is None
    for value in VALUES:
        filled = fill(argv, {"PROMPT": value}, [], "{path}")
        done = run(filled, tmp_path)
        expected = shape.replace("{v}", value)
        assert done.returncode == 0, (template, value, done.stderr)
        assert done.stdout.decode() == expected, (template, value, filled)
        assert list(tmp_path.iterdir()) == [], (template, value, filled)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["sh", "-c", "s"], {2: "sh"}),
        (["bash", "-lc", "s", "x"], {2: "sh"}),
        (["/bin/bash", "-e", "-c", "s"], {3: "sh"}),
        (["zsh", "-o", "pipefail", "-c", "s"], {4: "sh"}),
        (["ksh", "+x", "-c", "--", "s"], {4: "sh"}),
        (["dash", "--norc", "-c", "s"], {3: "sh"}),
        (["bash", "--rcfile", "f", "-c", "s"], {4: "sh"}),
        (["env", "-u", "X", "A=1", "sh", "-ec", "s"], {6: "sh"}),
        (["/usr/bin/env", "bash", "-c", "s"], {3: "sh"}),
        (["timeout", "5", "sh", "-c", "s"], {4: "sh"}),
        (["sh", "-{ATTEMPT}", "s"], {2: "sh"}),
        (["cmd", "/c", "echo", "x"], {2: "cmd", 3: "cmd"}),
        (["C:\\Windows\\System32\\CMD.EXE", "/d", "/C", "x"], {3: "cmd"}),
        (["sh", "script.sh", "{PROMPT}"], {}),
        (["bash", "-e", "script.sh", "-c"], {}),
        (["tool", "-c", "{PROMPT}"], {}),
        (["sh", "-c"], {}),
        (["{PROMPT}", "-c", "x"], {}),
        (["python3", "-c", "print(1)"], {}),
    ],
)
def test_shell_scripts_finds_the_text_a_shell_reads(
    argv: list[str], expected: dict[int, str]
) -> None:
    assert shell_scripts(argv) == expected


def test_script_sites_follow_the_quoting_state() -> None:
    script = (
        "a {P} '{P}' \"{P}\" $'{P}' \"$({P} '{P}')\" `{P}` \"`{P}`\" x\\{P} # {P}\n"
        "cat <<-'EOF'\n\t{P}\n\tEOF\n{P}"
    ).replace("{P}", "{PROMPT}")
    sites = [(s.context, s.backquotes, s.escaped) for s in script_sites(script)]
    assert sites == [
        ("plain", 0, False),
        ("single", 0, False),
        ("double", 0, False),
        ("ansi", 0, False),
        ("plain", 0, False),
        ("single", 0, False),
        ("plain", 1, False),
        ("plain", 1, False),
        ("plain", 0, True),
        ("comment", 0, False),
        ("heredoc", 0, False),
        ("plain", 0, False),
    ]


def test_other_placeholders_and_files_inside_a_script(tmp_path: Path) -> None:
    hostile = tmp_path / "it's $(touch pwned); `touch pwned` & more.txt"
    plain = tmp_path / "b c.md"
    for path in (hostile, plain):
        path.write_text("x", encoding="utf-8")
    script = (
        'printf "%s\\n" {EVAL_ID} "{ATTEMPT}" {PROMPT_FILE}; for f in {FILES}; do ls "$f"; done'
    )
    argv = ["sh", "-c", script]
    assert command_problem(argv) is None
    values = {"EVAL_ID": "id; touch pwned", "ATTEMPT": "1", "PROMPT_FILE": str(plain)}
    filled = fill(argv, values, [str(hostile), str(plain)], "{path}")
    work = tmp_path / "work"
    work.mkdir()
    done = run(filled, work)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert lines == ["id; touch pwned", "1", str(plain), str(hostile), str(plain)]
    assert list(work.iterdir()) == []
    assert not (tmp_path / "pwned").exists()
    with_format = fill([*argv[:2], "tool {FILES}"], {}, ["/a b"], "--file={path} -v")
    assert with_format == ["sh", "-c", "tool '--file=/a b' '-v'"]


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        ("cat <<EOF\n{PROMPT}\nEOF", "{PROMPT} inside a here-document cannot be quoted"),
        ("cat <<'END'\nx {EVAL_ID}\nEND", "use $EVALWRIGHT_EVAL_ID"),
        ('tool "{FILES}"', "{FILES} inside a shell script must stand outside quotes"),
        ("tool '{FILES}'", "{FILES} inside a shell script must stand outside quotes"),
        ("tool {NOPE}", "unknown placeholder {NOPE}"),
    ],
)
def test_placeholders_a_shell_cannot_take_are_load_errors(script: str, problem: str) -> None:
    found = command_problem(["bash", "-c", script])
    assert found is not None
    assert problem in found
    # The same text as an argument (no shell reads it) is fine, {FILES} aside.
    if "FILES" not in script and "NOPE" not in script:
        assert command_problem(["tool", script]) is None


def test_a_heredoc_ends_and_what_follows_is_quoted_again(tmp_path: Path) -> None:
    script = "cat <<EOF\nliteral $((1+1))\nEOF\nprintf %s {PROMPT}"
    filled = fill(["sh", "-c", script], {"PROMPT": "$(touch pwned)"}, [], "{path}")
    done = run(filled, tmp_path)
    assert done.stdout.decode() == "literal 2\n$(touch pwned)"
    assert list(tmp_path.iterdir()) == []


def test_cmd_values_are_caret_escaped_best_effort() -> None:
    assert quote_cmd("a & b | c > d ^ (e) %PATH% !x!") == (
        "a ^& b ^| c ^> d ^^ ^(e^) ^%PATH^% ^!x^!"
    )
    for impossible in ('say "hi"', "two\nlines"):
        with pytest.raises(UnquotableValue):
            quote_cmd(impossible)
    argv = ["cmd", "/c", "tool", "{PROMPT}", "{FILES}"]
    assert fill(argv, {"PROMPT": "a&b"}, ["C:\\x (1).txt"], "{path}") == [
        "cmd",
        "/c",
        "tool",
        "a^&b",
        "C:\\x ^(1^).txt",
    ]


def test_backquotes_nest_inside_double_quotes_in_bash(tmp_path: Path) -> None:
    # Nothing runs even where bash expands braces inside "`...`".
    brace = fill(
        ["bash", "-c", 'printf %s "`printf %s "{PROMPT}"`"'], {"PROMPT": "{a,b}$(id)"}, [], ""
    )
    assert run(brace, tmp_path).stdout.decode() == "a$(id)b$(id)"
    argv = ["bash", "-c", 'printf %s "`printf %s "$(printf %s {PROMPT})"`"']
    for value in ("$(touch pwned)", "`touch pwned`", 'q"uo\\te'):
        done = run(fill(argv, {"PROMPT": value}, [], "{path}"), tmp_path)
        assert done.stdout.decode() == value
    assert list(tmp_path.iterdir()) == []
