"""The ``codex`` target with a fake ``codex`` executable: the argv, the prompt document on
stdin, a scratch workspace per case, the JSONL event stream read into the answer, trace and
usage, the per-case log, failures, the timeout, the judge, and ``prompt --target``."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from evalwright.providers.process import STDERR_KEPT
from tests.conftest import ProjectDir, run_cli
from tests.e2e.harness import E2E, OPENAI_KEY, judge_user_text, question_section
from tests.providers.agent_fakes import (
    ANY_ANSWER,
    HOSTILE,
    HOSTILE_FILE,
    SPAWN_SLEEPER,
    add_targets,
    agent_e2e,
    assert_child_killed,
    assert_nothing_ran,
    by_id,
    records,
    run_eval,
    target_block,
    write_cases,
    write_script,
)

PRE_READ_END = "If a file cannot be read, stop and answer: ERROR: missing file <path>"
COMMAND = "/bin/bash -lc 'ls'"
STREAM: list[dict[str, Any]] = [
    {"type": "thread.started", "thread_id": "t1"},
    {"type": "turn.started"},
    {"type": "item.started", "item": {"id": "item_0", "type": "command_execution"}},
    {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "Hm."}},
    {
        "type": "item.completed",
        "item": {
            "id": "item_1",
            "type": "command_execution",
            "command": COMMAND,
            "aggregated_output": "a.txt\n",
            "exit_code": 0,
            "status": "completed",
        },
    },
    {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": "Final."}},
    {
        "type": "turn.completed",
        "usage": {"input_tokens": 10, "cached_input_tokens": 0, "output_tokens": 3},
    },
]

FAKE_CODEX = """\
import json, os, subprocess, sys, time, uuid
from pathlib import Path

document = sys.stdin.read()
record = {
    "time": time.time(),
    "argv": list(sys.argv),
    "cwd": os.getcwd(),
    "stdin": document,
    "env": {name: os.environ.get(name) for name in ENV_NAMES},
    "listing": sorted(os.listdir(".")),
}
Path(RECORDS).mkdir(parents=True, exist_ok=True)
Path(RECORDS, uuid.uuid4().hex + ".json").write_text(json.dumps(record), encoding="utf-8")
Path("made-by-the-agent.txt").write_text("scratch work", encoding="utf-8")
print("a line that is not an event", flush=True)
for event in EVENTS:
    print(json.dumps(event), flush=True)
sys.stderr.write(STDERR)
if SLEEP:
    spawn_sleeper()
    time.sleep(30)
sys.exit(EXIT)
"""


@pytest.fixture
def e2e(project: ProjectDir, tmp_path: Path) -> Iterator[E2E]:
    """A fake-server project (TMPDIR under this test's tmp_path)."""
    yield from agent_e2e(project, tmp_path)


def fake_codex(
    tmp_path: Path,
    events: list[dict[str, Any]] = STREAM,
    *,
    stderr: str = "",
    exit_code: int = 0,
    sleep: bool = False,
) -> Path:
    """A fake ``codex`` recording argv, cwd, stdin and env, then printing ``events``."""
    constants = {
        "RECORDS": str(tmp_path / "records"),
        "ENV_NAMES": ("CODEX_HOME", "EVALWRIGHT_MARKER"),
        "EVENTS": events,
        "STDERR": stderr,
        "EXIT": exit_code,
        "SLEEP": sleep,
        "CHILD_PID": str(tmp_path / "child.pid"),
        "LATE": str(tmp_path / "late.txt"),
        "CHILD_SLEEP": 2.0,
    }
    body = SPAWN_SLEEPER + FAKE_CODEX if sleep else FAKE_CODEX
    return write_script(tmp_path / "bin" / "codex", body, constants)


def uri(path: Path) -> str:
    """The ``file://`` URI the prompt document lists (of the resolved path)."""
    return Path(os.path.realpath(path)).as_uri()


def document(question: str, guidelines: Sequence[Path] = (), files: Sequence[Path] = ()) -> str:
    """The prompt document of docs/agents.md#the-prompt-document, written out by hand."""
    lines: list[str] = []
    if guidelines:
        lines += ["Read these guideline files first:", *(f"- {uri(p)}" for p in guidelines)]
    if files:
        lines += ["Read these attached files:", *(f"- {uri(p)}" for p in files)]
    head = "\n".join([*lines, PRE_READ_END, "", ""]) if lines else ""
    return f"{head}[[ ## user_query ## ]]\n\n{question}"


def write_inputs(project: ProjectDir) -> tuple[Path, Path]:
    """``G`` and ``F`` of docs/delivery.md#worked-examples."""
    g = project.write("evals/style.instructions.md", "Be concise.\n")
    f = project.write("evals/code.js", "console.log('test')\n")
    return g, f


SCENARIO_CASES: list[dict[str, Any]] = [
    {
        "id": "s13",
        "input_messages": [
            {"role": "user", "content": ["Fix", {"type": "file", "value": "code.js"}]}
        ],
    },
    {
        "id": "guided",
        "input_messages": [
            {
                "role": "user",
                "content": [
                    "Review this code",
                    {"type": "file", "value": "style.instructions.md"},
                    {"type": "file", "value": "code.js"},
                ],
            },
        ],
    },
    {"id": "plain", "input": "What is 2+2?"},
    {
        "id": "turns",
        "input_messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Delete the logs"},
        ],
    },
]


def test_codex_argv_prompt_document_workspace_answer_trace_usage_and_judge(
    e2e: E2E, tmp_path: Path
) -> None:
    fake = fake_codex(tmp_path)
    args = ["--sandbox", "workspace-write", "--config", "model='o3' $(touch pwned)"]
    add_targets(
        e2e,
        target_block(
            "codex",
            "codex",
            executable=str(fake),
            args=args,
            cwd="work/scratch",
            judge_target="judge",
        ),
    )
    g, f = write_inputs(e2e.project)
    write_cases(e2e.project, "evals/agent.jsonl", SCENARIO_CASES)
    e2e.env["CODEX_HOME"] = str(tmp_path / "codex-home")
    e2e.server.judge_verdict = {"score": 1, "hits": ["ok"], "misses": [], "reasoning": "fine"}

    rows = by_id(run_eval(e2e, "evals/agent.jsonl", "--target", "codex", "--workers", "4"))
    questions = {
        "s13": 'Fix\n<file: path="code.js">',  # docs/delivery.md#worked-examples, example 13
        "guided": 'Review this code\n<Attached: style.instructions.md>\n<file: path="code.js">',
        "plain": "What is 2+2?",
        "turns": "@[System]:\nBe brief.\n\n@[User]:\nHi\n\n@[Assistant]:\nHello!\n\n"
        "@[User]:\nDelete the logs",
    }
    documents = {
        "s13": document(questions["s13"], files=[f]),
        "guided": document(questions["guided"], guidelines=[g], files=[f]),
        "plain": document(questions["plain"]),
        "turns": document(questions["turns"]),
    }
    assert documents["s13"] == (
        f"Read these attached files:\n- {uri(f)}\n{PRE_READ_END}\n\n"
        '[[ ## user_query ## ]]\n\nFix\n<file: path="code.js">'
    )
    seen = {r["stdin"]: r for r in records(tmp_path / "records")}
    assert sorted(seen) == sorted(documents.values())  # stdin: exactly the documents
    scratch_parent = os.path.realpath(e2e.root / "work" / "scratch")
    workspaces: set[str] = set()
    for case_id, row in rows.items():
        record = seen[documents[case_id]]
        assert record["argv"] == [
            str(fake),
            "exec",
            "--json",
            "--skip-git-repo-check",
            *args,
            "-",
        ]
        assert record["env"]["CODEX_HOME"] == str(tmp_path / "codex-home")  # passed through
        workspace = record["cwd"]
        assert os.path.dirname(os.path.realpath(workspace)) == scratch_parent
        assert record["listing"] == []  # a fresh, empty directory
        assert not os.path.exists(workspace)  # removed after success
        workspaces.add(workspace)

        assert row["status"] == "ok", row["error"]
        assert row["provider"] == "codex"
        assert row["candidate_answer"] == "Final."  # the last agent message
        assert row["finish_reason"] == "completed"
        assert row["usage"] == {"input_tokens": 10, "output_tokens": 3, "cache_read_tokens": 0}
        commands = [t for t in row["trace"] if t["type"] == "command"]
        assert len(commands) == 1
        assert commands[0]["command"] == COMMAND
        assert commands[0]["exit_code"] == 0
        messages = [t.get("text") for t in row["trace"] if t["type"] == "message"]
        assert messages == ["Hm.", "Final."]
        raw = row["raw_request"]
        assert raw["question"] == questions[case_id]
        assert raw["chat_prompt"] is None
        assert row["wire_request"] == {
            "api": "codex",
            "argv": record["argv"],
            "cwd": workspace,
            "prompt_document": documents[case_id],
        }
        assert row["delivery_notes"] == []
    assert len(workspaces) == len(rows) == 4  # one workspace per case
    # The judge of an agent target sees exactly the question the agent received
    # (docs/delivery.md#worked-examples, example 14).
    judged = sorted(question_section(judge_user_text(r)) for r in e2e.judges())
    assert judged == sorted(questions.values())
    # A readable log per case under the default log_dir.
    log_dir = e2e.root / ".evalwright" / "logs" / "codex"
    for case_id in rows:
        (log,) = log_dir.glob(f"*-{case_id}.log")
        text = log.read_text(encoding="utf-8")
        assert documents[case_id] in text
        for event in STREAM:
            assert json.dumps(event) in text
    assert_nothing_ran(tmp_path)


def test_codex_default_scratch_custom_log_dir_and_redacted_logs(e2e: E2E, tmp_path: Path) -> None:
    events = [
        *STREAM[:2],
        {
            "type": "item.completed",
            "item": {"id": "r", "type": "reasoning", "text": f"the key is {OPENAI_KEY}"},
        },
        *STREAM[2:],
    ]
    fake = fake_codex(tmp_path, events)
    add_targets(e2e, target_block("codex", "codex", executable=str(fake), log_dir="logs/cx"))
    write_cases(e2e.project, "evals/one.jsonl", [{"id": "one", "input": "Go"}], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "codex")
    assert row["status"] == "ok", row["error"]
    assert row["candidate_answer"] == "Final."
    (record,) = records(tmp_path / "records")
    workspace = record["cwd"]
    assert os.path.dirname(workspace) == str(tmp_path / "tmp")  # the system's temporary dir
    assert os.path.basename(workspace).startswith("evalwright-codex-")
    assert not os.path.exists(workspace)
    (log,) = (e2e.root / "logs" / "cx").glob("*-one.log")
    text = log.read_text(encoding="utf-8")
    assert document("Go") in text
    assert OPENAI_KEY not in text
    assert "[REDACTED]" in text
    assert not (e2e.root / ".evalwright" / "logs" / "codex").exists()
    assert OPENAI_KEY not in (e2e.root / "results.jsonl").read_text(encoding="utf-8")


def test_a_key_across_the_start_of_the_kept_stderr_leaves_no_piece_in_the_log(
    e2e: E2E, tmp_path: Path
) -> None:
    """Only the last STDERR_KEPT bytes of stderr are kept (on a Ray node, with no redactor):
    the log shows them less whatever at their start could end a secret."""
    cut = 7  # of the key's characters fall before the kept bytes
    after = STDERR_KEPT - (len(OPENAI_KEY) - cut)
    fake = fake_codex(tmp_path, stderr="x" * 100 + OPENAI_KEY + "\nthe rest\n" + "y" * (after - 10))
    add_targets(e2e, target_block("codex", "codex", executable=str(fake), log_dir="logs/cx"))
    write_cases(e2e.project, "evals/one.jsonl", [{"id": "one", "input": "Go"}], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "codex")
    assert row["status"] == "ok", row["error"]
    (log,) = (e2e.root / "logs" / "cx").glob("*-one.log")
    text = log.read_text(encoding="utf-8")
    assert OPENAI_KEY[cut:] not in text
    assert "\nthe rest\n" in text


def test_hostile_text_arrives_literally_in_the_prompt_document(e2e: E2E, tmp_path: Path) -> None:
    fake = fake_codex(tmp_path)
    add_targets(e2e, target_block("codex", "codex", executable=str(fake)))
    hostile = e2e.project.write(f"evals/{HOSTILE_FILE}", "echo $(touch pwned)\n")
    content = [HOSTILE, {"type": "file", "value": HOSTILE_FILE}]
    write_cases(
        e2e.project,
        "evals/hostile.jsonl",
        [{"id": "hostile", "input_messages": [{"role": "user", "content": content}]}],
        ANY_ANSWER,
    )
    (row,) = run_eval(e2e, "evals/hostile.jsonl", "--target", "codex")
    question = f'{HOSTILE}\n<file: path="{HOSTILE_FILE}">'
    assert row["raw_request"]["question"] == question
    (record,) = records(tmp_path / "records")
    assert record["stdin"] == document(question, files=[hostile])
    assert row["wire_request"]["prompt_document"] == record["stdin"]
    assert_nothing_ran(tmp_path)


@pytest.mark.parametrize(
    ("events", "stderr", "exit_code", "reason"),
    [
        (
            [*STREAM[:2], {"type": "turn.failed", "error": {"message": "model overloaded"}}],
            "",
            1,
            "model overloaded",
        ),
        ([], "Error: not logged in. Run codex login\n", 2, "not logged in"),
        (
            [*STREAM[:2], {"type": "turn.failed", "error": {"message": "context window exceeded"}}],
            "",
            0,
            "context window exceeded",
        ),
        (
            [
                *STREAM[:4],
                {"type": "error", "message": "stream disconnected before completion"},
                {"type": "turn.failed", "error": {"message": "stream disconnected"}},
            ],
            "",
            0,
            "stream disconnected",
        ),
    ],
    ids=["turn-failed-exit-1", "exit-2-stderr", "turn-failed-exit-0", "failed-after-a-message"],
)
def test_codex_failures_are_error_rows_with_the_reason(
    e2e: E2E,
    tmp_path: Path,
    events: list[dict[str, Any]],
    stderr: str,
    exit_code: int,
    reason: str,
) -> None:
    fake = fake_codex(tmp_path, events, stderr=stderr, exit_code=exit_code)
    add_targets(e2e, target_block("codex", "codex", executable=str(fake)))
    write_cases(e2e.project, "evals/one.jsonl", [{"id": "one", "input": "Go"}], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "codex")
    assert (row["status"], row["score"]) == ("error", None)
    assert row["error"]["type"] == "target_error"
    assert reason in row["error"]["message"]
    assert row["wire_request"]["api"] == "codex"
    assert row["wire_request"]["prompt_document"] == document("Go")
    assert list((e2e.root / ".evalwright" / "logs" / "codex").glob("*-one.log"))


def test_codex_timeout_kills_it(e2e: E2E, tmp_path: Path) -> None:
    fake = fake_codex(tmp_path, STREAM[:2], sleep=True)
    add_targets(e2e, target_block("codex", "codex", executable=str(fake), timeout_seconds=1))
    write_cases(e2e.project, "evals/one.jsonl", [{"id": "one", "input": "Go"}], ANY_ANSWER)
    started = time.monotonic()
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "codex")
    assert time.monotonic() - started < 20
    assert row["status"] == "error"
    assert row["error"]["type"] == "timeout"
    assert_child_killed(tmp_path / "child.pid", tmp_path / "late.txt", 2.0)


@pytest.mark.parametrize("line", [1000, 3_000_000], ids=["many-lines", "one-huge-line"])
def test_an_endless_event_stream_is_cut_at_max_response_bytes(
    e2e: E2E, tmp_path: Path, line: int
) -> None:
    """Codex is killed once its output passes the limit; what it printed is not held."""
    event = {"type": "item.completed", "item": {"type": "agent_message", "text": "x" * line}}
    flood = f"import json, sys\nwhile True:\n    print(json.dumps({event!r}), flush=True)\n"
    fake = write_script(tmp_path / "bin" / "codex", flood, {})
    block = target_block("codex", "codex", executable=str(fake), max_response_bytes=1048576)
    add_targets(e2e, block)
    write_cases(e2e.project, "evals/one.jsonl", [{"id": "one", "input": "Go"}], ANY_ANSWER)
    started = time.monotonic()
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "codex")
    assert time.monotonic() - started < 30
    assert row["error"]["type"] == "response_too_large"
    assert row["attempts"] == 1


def test_prompt_target_codex_shows_the_wire_request_and_runs_nothing(
    e2e: E2E, tmp_path: Path
) -> None:
    fake = fake_codex(tmp_path)
    add_targets(e2e, target_block("codex", "codex", executable=str(fake), args=["--model", "o3"]))
    _, f = write_inputs(e2e.project)
    path = write_cases(e2e.project, "evals/agent.jsonl", SCENARIO_CASES[:1], ANY_ANSWER)
    result = run_cli("prompt", path, "--target", "codex", "--json")
    assert result.code == 0, result.err
    shown: dict[str, Any] = result.json()
    question = 'Fix\n<file: path="code.js">'
    assert shown["mode"] == "agent"
    assert shown["question"] == question
    assert shown["chat_prompt"] is None
    wire = shown["wire_request"]
    assert wire["api"] == "codex"
    assert wire["argv"] == [
        str(fake),
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--model",
        "o3",
        "-",
    ]
    assert isinstance(wire["cwd"], str)
    assert wire["prompt_document"] == document(question, files=[f])
    assert sorted(wire) == ["api", "argv", "cwd", "prompt_document"]
    assert not (tmp_path / "records").exists()
    assert not (e2e.root / ".evalwright" / "logs").exists()


def test_codex_judged_without_judge_target_is_a_configuration_error(
    e2e: E2E, tmp_path: Path
) -> None:
    fake = fake_codex(tmp_path)
    add_targets(e2e, target_block("codex", "codex", executable=str(fake)))
    write_cases(e2e.project, "evals/one.jsonl", [{"id": "one", "input": "Go"}])  # llm_judge
    result = e2e.run("eval", "evals/one.jsonl", "--target", "codex", "--out", "results.jsonl")
    assert result.code == 2, result.err
    assert "Traceback" not in result.err
    assert "'codex'" in result.err
    assert "judge_target" in result.err
    assert not (tmp_path / "records").exists()
    assert not e2e.server.requests


def test_codex_runs_in_the_cases_workspace_and_its_work_is_checked(
    e2e: E2E, tmp_path: Path
) -> None:
    """docs/agents.md#workspaces: a target's ``workspace:`` (relative to the project root) is
    Codex's directory; what Codex wrote there is the change, and a check reads it before the
    workspace goes."""
    e2e.project.write("repo/main.py", "print('hi')\n")
    fake = fake_codex(tmp_path)
    block = target_block("codex", "codex", executable=str(fake), workspace={"copy": "repo"})
    add_targets(e2e, block)
    check = {"name": "wrote", "type": "file_contains", "path": "made-by-the-agent.txt"}
    cases = [{"id": "one", "input": "Go"}]
    write_cases(e2e.project, "evals/one.jsonl", cases, [{**check, "value": "scratch work"}])
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "codex")
    assert (row["status"], row["score"]) == ("ok", 1.0), row["error"]
    (record,) = records(tmp_path / "records")
    assert record["cwd"] == row["workspace"]["path"] == row["wire_request"]["cwd"]
    assert record["listing"] == ["main.py"]
    assert row["workspace"]["files"] == [
        {"path": "made-by-the-agent.txt", "added": 1, "removed": 0}
    ]
    assert row["workspace"]["kept"] is False
    assert not os.path.exists(record["cwd"])
    assert not (e2e.root / "repo" / "made-by-the-agent.txt").exists()
