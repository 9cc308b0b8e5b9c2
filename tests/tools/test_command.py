"""Tools run as commands (docs/tools.md#commands): the arguments as JSON on stdin, stdout the
result; every failure an error outcome carrying why, never an exception; no shell, no
secrets."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from evalwright.jsontext import JsonObject
from evalwright.providers.process import ChildEnvironment
from evalwright.providers.wire import AnswerToolCall
from evalwright.targets.tools import ToolSpec
from evalwright.tools.answer import CALLS_AT_ONCE, Toolbox
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


def test_a_command_is_told_which_case_and_call_it_answers(tmp_path: Path) -> None:
    script = tmp_path / "tool.py"
    script.write_text(
        "import os\nprint(os.environ['EVALWRIGHT_EVAL_ID'], os.environ['EVALWRIGHT_TOOL_CALL_ID'])",
        encoding="utf-8",
    )
    tool = ToolSpec.model_validate({"name": "t", "command": [sys.executable, str(script)]})
    box = Toolbox((tool,), {}, None, ENV, {"EVALWRIGHT_EVAL_ID": "case-7"})
    call = AnswerToolCall(id="call_9", name="t", raw_arguments="{}", arguments={})
    [result], notes = asyncio.run(box.answer([call]))
    assert (result.content, result.source, notes) == ("case-7 call_9\n", "command", ())


def test_many_parallel_calls_run_a_few_commands_at_a_time(tmp_path: Path) -> None:
    # Each command marks itself running, waits until it sees a peer or times out, and
    # reports how many were running: never more than the bound.
    script = tmp_path / "tool.py"
    script.write_text(
        "import os, sys, time, uuid\n"
        f"d = {str(tmp_path / 'running')!r}\n"
        "os.makedirs(d, exist_ok=True)\n"
        "me = os.path.join(d, uuid.uuid4().hex)\n"
        "open(me, 'w').close()\n"
        "time.sleep(0.2)\n"
        "print(len(os.listdir(d)))\n"
        "os.remove(me)\n",
        encoding="utf-8",
    )
    tool = ToolSpec.model_validate({"name": "t", "command": [sys.executable, str(script)]})
    box = Toolbox((tool,), {}, None, ENV)
    calls = [
        AnswerToolCall(id=f"c{n}", name="t", raw_arguments="{}", arguments={}) for n in range(24)
    ]
    results, _ = asyncio.run(box.answer(calls))
    assert [r.tool_call_id for r in results] == [f"c{n}" for n in range(24)], "paired in order"
    assert max(int(r.content) for r in results) <= CALLS_AT_ONCE


def test_a_result_past_the_bound_is_cut_with_a_line_saying_so() -> None:
    from evalwright.tools.answer import capped

    assert capped("short") == "short"
    big = "é" * MAX_RESULT_BYTES  # two bytes each
    cut = capped(big)
    assert cut.startswith("é" * (MAX_RESULT_BYTES // 2))
    assert cut.endswith(
        f"\n[cut: the result was {2 * MAX_RESULT_BYTES} bytes, more than {MAX_RESULT_BYTES}]"
    )
