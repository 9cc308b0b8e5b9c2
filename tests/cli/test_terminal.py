"""What reaches the terminal: Ctrl-C at any moment exits 130 without a traceback, a reader
that stops reading ends the command quietly, and names or messages from files and servers
cannot send control sequences to the terminal."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalwright.errors import printable
from evalwright.testing import Fault
from tests.conftest import ProjectDir, run_cli, run_process
from tests.e2e.harness import E2E, start

ESCAPE = "\x1b]0;pwned\x07"
"""Sets the terminal's title when printed raw."""


def _slow_project(project: ProjectDir) -> Path:
    project.write(
        ".evalwright/targets.yaml", "targets:\n  - {name: t, provider: mock, delay_ms: 3000}\n"
    )
    return project.write(
        "e.yaml",
        "evalcases:\n  - {id: a, expected_outcome: o, input: hi, execution: {evaluators: "
        "[{name: c, type: contains, value: x}]}}\n",
    )


def _interpreter_start() -> float:
    """Seconds the interpreter takes, on this machine and under its load right now, to start
    and run an empty program: until then an interrupt is Python's own, not evalwright's."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


@pytest.mark.parametrize("delay", [0.05, 0.1, 0.15, 0.3, 0.6])
def test_ctrl_c_in_the_first_second_exits_130_quietly(project: ProjectDir, delay: float) -> None:
    """Whatever evalwright is doing (importing, loading, starting the run), an interrupt
    is a clean exit 130. ``delay`` counts from when the interpreter itself has started."""
    eval_file = _slow_project(project)
    delay += _interpreter_start()
    command = [sys.executable, "-m", "evalwright", "eval", str(eval_file), "--target", "t"]
    process = subprocess.Popen(
        [*command, "--out", str(project.root / "r.jsonl")],
        cwd=project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert "Exception ignored" not in err
    assert err.rstrip().splitlines()[-1].startswith("evalwright: interrupted"), err


def test_a_closed_stdout_pipe_ends_quietly(project: ProjectDir) -> None:
    lines = [
        json.dumps({"id": f"c{i}", "expected_outcome": "o", "input": "hello " * 40})
        for i in range(2000)
    ]
    eval_file = project.write("big.jsonl", "\n".join(lines) + "\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "evalwright", "prompt", str(eval_file), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stdout.read(100)  # like `| head -c 100`
    process.stdout.close()
    _, err = process.communicate(timeout=60)
    assert err == b""
    assert process.returncode == 141


def test_names_from_files_are_printed_escaped(project: ProjectDir) -> None:
    text = f'evalcases:\n  - id: a\n    expected_outcome: o\n    input: hi\n    "{ESCAPE}": 1\n'
    eval_file = project.write("e.yaml", text.replace("\x1b", "\\e").replace("\x07", "\\a"))
    result = run_process("validate", eval_file)
    assert result.code == 1
    assert "\x1b" not in result.out
    assert "\x07" not in result.out
    assert "unknown key '\\x1b]0;pwned\\x07'" in result.out


@pytest.fixture
def e2e(project: ProjectDir) -> Iterator[E2E]:
    """A project wired to a fake server in a thread."""
    yield from start(project)


def test_a_server_message_is_printed_escaped(e2e: E2E) -> None:
    e2e.server.enqueue(Fault(400, body={"error": {"message": ESCAPE + "\u202e"}}))
    e2e.project.write("e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    result = e2e.run("eval", "e.yaml", "--target", "oa", "--out", "r.jsonl")
    assert result.code == 1
    assert "\x1b" not in result.err + result.out
    assert "\u202e" not in result.err + result.out
    assert "\\x1b]0;pwned\\x07\\u202e" in result.err


def test_printable_keeps_text_and_escapes_controls() -> None:
    assert printable("plain text\nnext\tline é ✓ 😀") == "plain text\nnext\tline é ✓ 😀"
    assert printable("a\x1b[2Jb\x9bc\u2066d") == "a\\x1b[2Jb\\x9bc\\u2066d"
    assert printable("a\nb\tc", one_line=True) == "a\\nb\\tc"
    # Found by fuzzing: Python (and some terminals) break lines at LS and PS too.
    assert printable("a\u2028b\u2029c\x85d") == "a\\u2028b\\u2029c\\x85d"


def test_every_bidirectional_control_is_escaped() -> None:
    """The marks, embeddings, overrides and isolates, the Arabic letter mark included."""
    controls = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    shown = printable(f"a{controls}b")
    assert shown == "a" + "".join(f"\\u{ord(c):04x}" for c in controls) + "b"


def test_a_config_error_is_printed_escaped(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", "targets:\n  - {name: t, provider: mock}\n")
    eval_file = project.write("e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    out = project.root / "r.jsonl"
    result = run_cli("eval", eval_file, "--target", f"x{ESCAPE}", "--out", out)
    assert result.code == 2
    assert "\x1b" not in result.err
    assert "x\\x1b]0;pwned\\x07" in result.err
