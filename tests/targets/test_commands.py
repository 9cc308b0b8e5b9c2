"""Where a shell reads a ``cli`` command's text as code: :func:`shell_scripts` finds the
scripts (what becomes of their placeholders is tests/targets/test_script_variables.py), and
values after ``cmd /c`` are escaped for ``cmd``."""

from __future__ import annotations

import pytest

from evalwright.providers.cli.placeholders import fill
from evalwright.targets.commands import (
    UnquotableValue,
    quote_cmd,
    scripted_placeholders,
    shell_scripts,
)


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


def test_scripted_placeholders_name_each_script_and_its_dialect() -> None:
    argv = ["env", "A={PROMPT}", "bash", "-c", "tool {PROMPT} {EVAL_ID}", "sh", "{PROMPT}"]
    assert scripted_placeholders(argv) == [(4, "sh", ["PROMPT", "EVAL_ID"])]
    assert scripted_placeholders(["cmd", "/c", "tool", "{PROMPT}"]) == [(3, "cmd", ["PROMPT"])]
    assert scripted_placeholders(["sh", "-c", "tool"]) == []


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
