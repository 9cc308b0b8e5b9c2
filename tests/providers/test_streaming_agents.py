"""The ``claude_code`` and ``gemini_cli`` targets with a fake CLI printing the events the real
ones print (recorded from Claude Code 2.1.332 and Gemini CLI 0.61.0): the argv and stdin, the
environment (no secrets but the CLI's own key, telemetry off, ``base_url``), a scratch
workspace per case, the stream read into answer, trace, tool calls and usage, the redacted
log, failures and the timeout (docs/agents.md#claude_code-claude-code)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ProjectDir
from tests.e2e.harness import ANTHROPIC_KEY, E2E, GEMINI_KEY, OPENAI_KEY
from tests.providers.agent_fakes import (
    ANY_ANSWER,
    SPAWN_SLEEPER,
    add_targets,
    agent_e2e,
    assert_child_killed,
    records,
    run_eval,
    target_block,
    write_cases,
    write_script,
)

FAKE_CLI = """\
import json, os, sys, time, uuid
from pathlib import Path

record = {
    "time": time.time(),
    "argv": sys.argv,
    "cwd": os.getcwd(),
    "stdin": sys.stdin.read(),
    "env": {name: os.environ.get(name) for name in ENV_NAMES},
}
Path(RECORDS).mkdir(parents=True, exist_ok=True)
Path(RECORDS, uuid.uuid4().hex + ".json").write_text(json.dumps(record), encoding="utf-8")
print("a line that is not an event", flush=True)
for event in EVENTS:
    print(json.dumps(event), flush=True)
sys.stderr.write(STDERR)
if SLEEP:
    spawn_sleeper()
    time.sleep(30)
sys.exit(EXIT)
"""
BASH = {"command": "python -m pytest -q", "description": "run the tests"}
EDIT = {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}


def _claude(content: list[dict[str, Any]], role: str = "assistant") -> dict[str, Any]:
    return {"type": role, "message": {"role": role, "content": content}, "session_id": "s"}


CLAUDE_STREAM: list[dict[str, Any]] = [
    {"type": "system", "subtype": "init", "cwd": "/w", "model": "claude-x", "tools": ["Bash"]},
    _claude([{"type": "thinking", "thinking": "It subtracts.", "signature": "s"}]),
    _claude([{"type": "tool_use", "id": "t1", "name": "Edit", "input": EDIT}]),
    _claude([{"type": "tool_result", "tool_use_id": "t1", "content": "updated"}], "user"),
    _claude([{"type": "tool_use", "id": "t2", "name": "Bash", "input": BASH}]),
    _claude(
        [{"type": "tool_result", "tool_use_id": "t2", "content": "2 passed", "is_error": False}],
        "user",
    ),
    _claude([{"type": "text", "text": "Fixed."}]),
    {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "Fixed.",
        "usage": {"input_tokens": 30, "output_tokens": 5, "cache_read_input_tokens": 7},
        "permission_denials": [],
    },
]
GEMINI_STREAM: list[dict[str, Any]] = [
    {"type": "init", "session_id": "s", "model": "gemini-x"},
    {"type": "message", "role": "user", "content": "Go"},
    {"type": "message", "role": "assistant", "content": "Let me ", "delta": True},
    {"type": "message", "role": "assistant", "content": "look.", "delta": True},
    {"type": "tool_use", "tool_name": "replace", "tool_id": "t1", "parameters": EDIT},
    {"type": "tool_result", "tool_id": "t1", "status": "success"},
    {"type": "tool_use", "tool_name": "run_shell_command", "tool_id": "t2", "parameters": BASH},
    {"type": "tool_result", "tool_id": "t2", "status": "success", "output": "2 passed"},
    {"type": "message", "role": "assistant", "content": "Fix", "delta": True},
    {"type": "message", "role": "assistant", "content": "ed.", "delta": True},
    {
        "type": "result",
        "status": "success",
        "stats": {"input_tokens": 30, "output_tokens": 5, "cached": 7, "tool_calls": 2},
    },
]
KINDS = {
    "claude_code": ("claude", CLAUDE_STREAM, ["Edit", "Bash"], "ANTHROPIC_BASE_URL"),
    "gemini_cli": (
        "gemini",
        GEMINI_STREAM,
        ["replace", "run_shell_command"],
        "GOOGLE_GEMINI_BASE_URL",
    ),
}
ENV_NAMES = (
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "OPENAI_API_KEY",
    "DEPLOY_TOKEN",
    "PASSED_TOKEN",
    "DISABLE_TELEMETRY",
    "DISABLE_AUTOUPDATER",
    "GEMINI_TELEMETRY_ENABLED",
    "GEMINI_CLI_TRUST_WORKSPACE",
    "ANTHROPIC_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
)


@pytest.fixture
def e2e(project: ProjectDir, tmp_path: Path) -> Iterator[E2E]:
    """A fake-server project (TMPDIR under this test's tmp_path)."""
    yield from agent_e2e(project, tmp_path)


def fake_cli(
    tmp_path: Path,
    events: list[dict[str, Any]],
    *,
    stderr: str = "",
    exit_code: int = 0,
    sleep: bool = False,
) -> Path:
    """A fake agent CLI recording argv, cwd, stdin and env, then printing ``events``."""
    constants = {
        "RECORDS": str(tmp_path / "records"),
        "ENV_NAMES": ENV_NAMES,
        "EVENTS": events,
        "STDERR": stderr,
        "EXIT": exit_code,
        "SLEEP": sleep,
        "CHILD_PID": str(tmp_path / "child.pid"),
        "LATE": str(tmp_path / "late.txt"),
        "CHILD_SLEEP": 2.0,
    }
    body = SPAWN_SLEEPER + FAKE_CLI if sleep else FAKE_CLI
    return write_script(tmp_path / "bin" / "agent", body, constants)


def _one_case(e2e: E2E, kind: str, fake: Path, **keys: Any) -> dict[str, Any]:
    add_targets(e2e, target_block("agent", kind, executable=str(fake), **keys))
    write_cases(e2e.project, "evals/one.jsonl", [{"id": "one", "input": "Go"}], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "agent")
    return row


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_stream_becomes_answer_trace_tool_calls_and_usage(
    e2e: E2E, tmp_path: Path, kind: str
) -> None:
    program, events, tools, base_variable = KINDS[kind]
    e2e.env.update(DEPLOY_TOKEN="tok-deploy-0123456789", PASSED_TOKEN="tok-passed-0123456789")
    e2e.env["DISABLE_TELEMETRY"] = "0"  # the user's own setting wins
    fake = fake_cli(tmp_path, events)
    keys: dict[str, Any] = {"model": "m-1", "args": ["--x"], "pass_env": ["PASSED_TOKEN"]}
    row = _one_case(e2e, kind, fake, base_url="http://127.0.0.1:9/api", cwd="scratch", **keys)

    assert row["status"] == "ok", row["error"]
    assert row["candidate_answer"] == "Fixed."
    assert [c["name"] for c in row["tool_calls"]] == tools
    assert row["tool_calls"][0]["arguments"] == EDIT
    commands = [t for t in row["trace"] if t["type"] == "command"]
    assert commands == [{"type": "command", "command": BASH["command"], "text": "2 passed"}]
    assert row["trace"][-1] == {"type": "message", "text": "Fixed."}
    assert row["usage"] == {"input_tokens": 30, "output_tokens": 5, "cache_read_tokens": 7}

    (record,) = records(tmp_path / "records")
    assert record["argv"][0] == str(fake)
    assert row["wire_request"]["argv"] == record["argv"]
    fixed = {"claude_code": ["-p", "--output-format", "stream-json", "--verbose"]}
    headless = fixed.get(kind, ["--output-format", "stream-json"])
    assert record["argv"][1:] == [*headless, "--model", "m-1", "--x"]
    assert record["stdin"].endswith("[[ ## user_query ## ]]\n\nGo")
    workspace = Path(record["cwd"])
    assert workspace.parent == e2e.root / "scratch"
    assert not workspace.exists()  # a scratch workspace of a passed case is removed
    env = record["env"]
    own = {"claude_code": "ANTHROPIC_API_KEY", "gemini_cli": "GEMINI_API_KEY"}[kind]
    other = {"claude_code": "GEMINI_API_KEY", "gemini_cli": "ANTHROPIC_API_KEY"}[kind]
    assert env[own] == {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "GEMINI_API_KEY": GEMINI_KEY}[own]
    assert (env[other], env["OPENAI_API_KEY"], env["DEPLOY_TOKEN"]) == (None, None, None)
    assert env["PASSED_TOKEN"] == "tok-passed-0123456789"
    assert env[base_variable] == "http://127.0.0.1:9/api"
    if kind == "claude_code":
        assert (env["DISABLE_TELEMETRY"], env["DISABLE_AUTOUPDATER"]) == ("0", "1")
    else:
        assert env["GEMINI_TELEMETRY_ENABLED"] == "false"
        assert env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"

    (log,) = (e2e.root / ".evalwright" / "logs" / program).glob("*-one.log")
    text = log.read_text(encoding="utf-8")
    assert "a line that is not an event" in text
    assert json.dumps(events[-1]) in text


CLAUDE_FAILED = {"type": "result", "subtype": "error_max_turns", "is_error": True}
GEMINI_FAILED = {"type": "result", "status": "error", "error": {"message": "quota gone"}}


@pytest.mark.parametrize(
    ("kind", "events", "stderr", "exit_code", "reason"),
    [
        (
            "claude_code",
            [*CLAUDE_STREAM[:-1], CLAUDE_FAILED],
            "",
            0,
            "claude failed: error_max_turns",
        ),
        ("claude_code", CLAUDE_STREAM[:-1], "", 0, "claude gave no final answer"),
        ("claude_code", [], "Invalid API key", 1, "claude exited with status 1: Invalid API key"),
        ("gemini_cli", [*GEMINI_STREAM[:-1], GEMINI_FAILED], "", 1, "status 1: quota gone"),
        ("gemini_cli", GEMINI_STREAM[:-1], "", 0, "gemini gave no final answer"),
        ("gemini_cli", [], "Invalid auth method selected.", 41, "status 41: Invalid auth"),
    ],
    ids=[
        "claude-error-result",
        "claude-no-result",
        "claude-exit",
        "gemini-error-result",
        "gemini-no-result",
        "gemini-exit",
    ],
)
def test_failures_are_error_rows_naming_the_reason_and_the_log(
    e2e: E2E,
    tmp_path: Path,
    kind: str,
    events: list[dict[str, Any]],
    stderr: str,
    exit_code: int,
    reason: str,
) -> None:
    row = _one_case(e2e, kind, fake_cli(tmp_path, events, stderr=stderr, exit_code=exit_code))
    assert (row["status"], row["error"]["type"]) == ("error", "target_error")
    assert reason in row["error"]["message"]
    assert "(log: " in row["error"]["message"]


def test_a_secret_in_the_stream_is_redacted_in_the_log_and_the_row(
    e2e: E2E, tmp_path: Path
) -> None:
    said = f"The key is {OPENAI_KEY}."
    events = [{**CLAUDE_STREAM[-1], "result": said}]
    row = _one_case(e2e, "claude_code", fake_cli(tmp_path, events))
    assert row["candidate_answer"] == "The key is [REDACTED]."
    (log,) = (e2e.root / ".evalwright" / "logs" / "claude").glob("*-one.log")
    assert OPENAI_KEY not in log.read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_timeout_kills_the_cli(e2e: E2E, tmp_path: Path, kind: str) -> None:
    fake = fake_cli(tmp_path, KINDS[kind][1][:2], sleep=True)
    row = _one_case(e2e, kind, fake, timeout_seconds=1)
    assert (row["status"], row["error"]["type"]) == ("error", "timeout")
    assert_child_killed(tmp_path / "child.pid", tmp_path / "late.txt", 2.0)


def test_claude_code_refused_and_failed_tool_uses_are_errors_in_the_trace(
    e2e: E2E, tmp_path: Path
) -> None:
    write = {"file_path": "x.py", "content": "x"}
    refusal = "Claude requested permissions to write to x.py, but you haven't granted it yet."
    events = [
        _claude([{"type": "tool_use", "id": "t1", "name": "Write", "input": write}]),
        _claude(
            [{"type": "tool_result", "tool_use_id": "t1", "content": refusal, "is_error": True}],
            "user",
        ),
        {
            **CLAUDE_STREAM[-1],
            "result": "I could not write it.",
            "permission_denials": [{"tool_name": "Write", "tool_use_id": "t1"}],
        },
    ]
    row = _one_case(e2e, "claude_code", fake_cli(tmp_path, events))
    assert row["status"] == "ok", row["error"]
    assert row["trace"] == [
        {"type": "tool_use", "text": "Write"},
        {"type": "error", "text": refusal},
        {"type": "error", "text": "permission denied: Write"},
    ]
    assert [c["name"] for c in row["tool_calls"]] == ["Write"]
