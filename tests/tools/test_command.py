"""Tools run as commands (docs/tools.md#commands): the arguments as JSON on stdin, stdout the
result; every failure an error outcome carrying why, never an exception; no shell, no
secrets."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from evalwright.jsontext import JsonObject
from evalwright.providers.process import ChildEnvironment
from evalwright.targets.tools import ToolSpec
from evalwright.tools.base import Outcome
from evalwright.tools.command import MAX_RESULT_BYTES, run_tool

ENV = ChildEnvironment({"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "sk-secret-0123456789"})


def _run(code: str, arguments: JsonObject, tmp_path: Path, **extra: object) -> Outcome:
    script = tmp_path / "tool.py"
    script.write_text(code, encoding="utf-8")
    tool = ToolSpec.model_validate(
        {"name": "t", "command": [sys.executable, str(script)], "cwd": str(tmp_path), **extra}
    )
    return asyncio.run(run_tool(tool, arguments, ENV))


def test_the_arguments_arrive_on_stdin_and_stdout_is_the_result(tmp_path: Path) -> None:
    code = "import json,sys,os; a=json.load(sys.stdin); print(a['x'] * 2, os.getcwd())"
    outcome = _run(code, {"x": 21}, tmp_path)
    assert outcome == Outcome(f"42 {tmp_path}\n")


def test_shell_text_in_the_arguments_is_never_run(tmp_path: Path) -> None:
    code = "import json,sys; print(json.load(sys.stdin)['q'])"
    outcome = _run(code, {"q": "$(touch PWNED) `touch PWNED2`; touch PWNED3"}, tmp_path)
    assert outcome.content.strip() == "$(touch PWNED) `touch PWNED2`; touch PWNED3"
    assert not list(tmp_path.glob("PWNED*"))


def test_a_failing_command_is_an_error_with_its_stderr(tmp_path: Path) -> None:
    code = "import sys; print('partial'); print('boom: bad city', file=sys.stderr); sys.exit(4)"
    outcome = _run(code, {}, tmp_path)
    assert outcome.is_error
    assert outcome.content == "t exited with status 4; stdout: partial; stderr: boom: bad city"


def test_a_command_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    tool = ToolSpec.model_validate({"name": "t", "command": [str(tmp_path / "missing")]})
    outcome = asyncio.run(run_tool(tool, {}, ENV))
    assert outcome.is_error
    assert outcome.content.startswith(f"t: cannot run '{tmp_path / 'missing'}': ")


def test_a_slow_command_is_killed_at_its_timeout(tmp_path: Path) -> None:
    outcome = _run("import time; time.sleep(60)", {}, tmp_path, timeout_seconds=0.5)
    assert outcome == Outcome("t timed out after 0.5 s", True)


def test_a_command_printing_too_much_is_stopped(tmp_path: Path) -> None:
    code = "import sys\nwhile True: sys.stdout.write('x' * 65536)"
    outcome = _run(code, {}, tmp_path)
    assert outcome == Outcome(
        f"t: the command printed more than {MAX_RESULT_BYTES} bytes on stdout", True
    )


def test_secrets_stay_out_unless_passed(tmp_path: Path) -> None:
    code = "import os; print(os.environ.get('OPENAI_API_KEY', 'absent'))"
    assert _run(code, {}, tmp_path) == Outcome("absent\n")
    passed = _run(code, {}, tmp_path, pass_env=["OPENAI_API_KEY"])
    assert passed == Outcome("sk-secret-0123456789\n")
