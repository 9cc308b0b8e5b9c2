"""The ``cli`` target: placeholders filled in place (never split, never run by a shell),
``{FILES}`` expanded, the answer from ``{OUTPUT_FILE}`` or stdout, errors, the timeout, the
healthcheck, and what rows and ``prompt --target`` record. Fake executables written by the
tests record exactly what they were given."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalwright.providers.cli.placeholders import expand_files, fill, uses
from evalwright.targets.models import command_problem, split_command
from tests.conftest import ProjectDir, run_cli
from tests.e2e.harness import E2E, judge_user_text, question_section
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

D = "You are a careful assistant."
G_BLOCK = '<file path="style.instructions.md">\nBe concise.\n</file>'
F_BLOCK = "<file path=\"code.js\">\nconsole.log('test')\n</file>"
ENV_NAMES = ("EVALWRIGHT_EVAL_ID", "EVALWRIGHT_ATTEMPT", "EVALWRIGHT_TARGET")

RECORDER = """\
import json, os, sys, time, uuid
from pathlib import Path

argv = list(sys.argv)
files = {}
for element in argv[1:]:
    try:
        if os.path.isfile(element):
            files[element] = Path(element).read_text(encoding="utf-8")
    except (OSError, ValueError):
        pass
health = 0
if HEALTH and os.path.exists(HEALTH):
    health = len(Path(HEALTH).read_text(encoding="utf-8").splitlines())
record = {
    "time": time.time(),
    "argv": argv,
    "cwd": os.getcwd(),
    "env": {name: os.environ.get(name) for name in ENV_NAMES},
    "stdin": sys.stdin.read() if sys.stdin is not None else None,
    "files": files,
    "health_runs": health,
}
Path(RECORDS).mkdir(parents=True, exist_ok=True)
Path(RECORDS, uuid.uuid4().hex + ".json").write_text(json.dumps(record), encoding="utf-8")
answer = ANSWER.replace("<id>", os.environ.get("EVALWRIGHT_EVAL_ID", "?"))
sys.stderr.write(STDERR)
if "--out" in argv:
    Path(argv[argv.index("--out") + 1]).write_text(answer + "\\n", encoding="utf-8")
    print("stdout is not the answer")
else:
    print(answer)
sys.exit(EXIT)
"""

HEALTHCHECK = """\
import sys
from pathlib import Path

with open(COUNT, "a", encoding="utf-8") as count:
    count.write("ran\\n")
sys.stderr.write(STDERR)
sys.exit(EXIT)
"""

SLEEPER = (
    SPAWN_SLEEPER
    + """
spawn_sleeper()
print("partial output", flush=True)
time.sleep(30)
print("too late")
"""
)


@pytest.fixture
def e2e(project: ProjectDir, tmp_path: Path) -> Iterator[E2E]:
    """A fake-server project (TMPDIR under this test's tmp_path)."""
    yield from agent_e2e(project, tmp_path)


def recorder(
    tmp_path: Path,
    name: str = "fake-agent",
    *,
    answer: str = "answer for <id>",
    stderr: str = "",
    exit_code: int = 0,
    health: Path | None = None,
) -> Path:
    """A fake command that records what it got into ``tmp_path/records`` and answers."""
    constants = {
        "RECORDS": str(tmp_path / "records"),
        "HEALTH": str(health) if health else "",
        "ENV_NAMES": ENV_NAMES,
        "ANSWER": answer,
        "STDERR": stderr,
        "EXIT": exit_code,
    }
    return write_script(tmp_path / "bin" / name, RECORDER, constants)


def write_inputs(project: ProjectDir) -> None:
    """``F`` and ``G`` of docs/delivery.md#worked-examples, next to the eval files."""
    project.write("evals/code.js", "console.log('test')\n")
    project.write("evals/style.instructions.md", "Be concise.\n")


def real(path: Path | str) -> str:
    """The resolved absolute path, as the provider passes files."""
    return os.path.realpath(path)


# --- placeholders, unit by unit ---------------------------------------------------------


def test_fill_replaces_placeholders_inside_elements_without_rescanning() -> None:
    values = {
        "PROMPT": "a {EVAL_ID} $(touch pwned) 'q' \\1",
        "EVAL_ID": "case-1",
        "ATTEMPT": "2",
        "GUIDELINES": "",
    }
    argv = ["tool", "--prompt={PROMPT}", "{PROMPT}", "{EVAL_ID}-{ATTEMPT}", "{GUIDELINES}"]
    filled = fill([*argv, "{FILES}", "--end"], values, ["/abs/a", "/abs/b"], "--file {path}")
    assert filled == [
        "tool",
        "--prompt=a {EVAL_ID} $(touch pwned) 'q' \\1",
        "a {EVAL_ID} $(touch pwned) 'q' \\1",
        "case-1-2",
        "",
        "--file",
        "/abs/a",
        "--file",
        "/abs/b",
        "--end",
    ]
    assert argv[1] == "--prompt={PROMPT}"  # the template is not changed
    assert fill(["{FILES}"], values, [], "--file {path}") == []


def test_expand_files_per_files_format() -> None:
    files = ["/abs/a", "/d/b c.txt"]
    assert expand_files(files, "{path}") == files
    assert expand_files(files, "--file {path}") == ["--file", "/abs/a", "--file", "/d/b c.txt"]
    assert expand_files(files, "--name={basename} '@{path}'") == [
        "--name=a",
        "@/abs/a",
        "--name=b c.txt",
        "@/d/b c.txt",
    ]
    # A path holding a placeholder's text is inserted as is, never expanded again.
    assert expand_files(["/d/{path}.txt"], "{basename}|{path}") == ["{path}.txt|/d/{path}.txt"]


def test_uses_names_whole_tokens() -> None:
    assert uses(["tool", "--out={OUTPUT_FILE}"], "OUTPUT_FILE")
    assert uses(["{OUTPUT_FILE}"], "OUTPUT_FILE")
    assert not uses(["tool", "{PROMPT}", "OUTPUT_FILE"], "OUTPUT_FILE")
    assert not uses(["{OUTPUT_FILE_X}"], "OUTPUT_FILE")


def test_split_command_is_posix_and_never_a_shell() -> None:
    argv = ["tool", "a b", "$(x)"]
    split = split_command(argv)
    assert split == argv
    assert split is not argv
    assert split_command("tool --a 'b c' \"d e\" f\\ g '{PROMPT}' --x={FILES}") == [
        "tool",
        "--a",
        "b c",
        "d e",
        "f g",
        "{PROMPT}",
        "--x={FILES}",
    ]
    assert split_command("tool $(touch pwned); `id` | cat") == [
        "tool",
        "$(touch",
        "pwned);",
        "`id`",
        "|",
        "cat",
    ]
    with pytest.raises(ValueError, match="quotation"):
        split_command("tool 'unbalanced")


def test_command_problem() -> None:
    assert command_problem(["tool", "--p={PROMPT}", "{FILES}", "{path}", "{Prompt}"]) is None
    assert command_problem(split_command("tool {PROMPT_FILE} --o={OUTPUT_FILE}")) is None
    unknown = command_problem(["tool", "--x={NOPE}"])
    assert unknown is not None
    assert unknown.startswith("unknown placeholder {NOPE}")
    assert "{" not in unknown.partition("(known: ")[2].replace("{NOPE}", "")  # names, no braces
    assert "PROMPT_FILE" in unknown
    for element in ("--files={FILES}", "{FILES},", "{FILES}{FILES}"):
        problem = command_problem(["tool", element])
        assert problem is not None
        assert "{FILES} must be a whole argument" in problem


def test_bad_commands_are_located_load_errors(e2e: E2E, tmp_path: Path) -> None:
    fake = recorder(tmp_path)
    add_targets(
        e2e,
        target_block("unknown", "cli", command=[str(fake), "--x={NOPE}"]),
        target_block("embedded", "cli", command=f"{fake} --files={{FILES}}"),
        target_block("badhealth", "cli", command=[str(fake)], healthcheck={"command": "x {BAD}"}),
        target_block("unsplittable", "cli", command=f"{fake} 'open"),
    )
    result = run_cli("validate", e2e.root / ".evalwright" / "targets.yaml")
    assert result.code == 1
    lines = [line for line in result.out.splitlines() if ": error: " in line]
    assert len(lines) == 4, result.out
    assert all("targets.yaml:" in line for line in lines)
    unknown, embedded, health, unsplittable = lines
    assert "command" in unknown
    assert "unknown placeholder {NOPE}" in unknown
    assert "{FILES} must be a whole argument" in embedded
    assert "healthcheck" in health
    assert "unknown placeholder {BAD}" in health
    assert "cannot split the command" in unsplittable
    write_cases(e2e.project, "evals/c.jsonl", [{"id": "c", "input": "hi"}], ANY_ANSWER)
    run = e2e.run("eval", "evals/c.jsonl", "--target", "unknown", "--out", "results.jsonl")
    assert run.code == 2
    assert "unknown placeholder {NOPE}" in run.err
    assert not (tmp_path / "records").exists()


# --- end to end: what the command receives ----------------------------------------------


def test_argv_list_placeholders_files_env_and_cwd(e2e: E2E, tmp_path: Path) -> None:
    fake = recorder(tmp_path)
    command = [
        str(fake),
        "--prompt={PROMPT}",
        "{PROMPT}",
        "--id",
        "{EVAL_ID}",
        "--attempt={ATTEMPT}",
        "--guidelines",
        "{GUIDELINES}",
        "--prompt-file",
        "{PROMPT_FILE}",
        "--guidelines-file",
        "{GUIDELINES_FILE}",
        "--messages-file",
        "{MESSAGES_FILE}",
        "{FILES}",
    ]
    add_targets(
        e2e,
        target_block(
            "tool",
            "cli",
            command=command,
            files_format="--file {path} --name={basename}",
            judge_target="judge",
        ),
    )
    write_inputs(e2e.project)
    review = [
        {
            "role": "user",
            "content": [
                "Review this",
                {"type": "file", "value": "code.js"},
                {"type": "file", "value": "style.instructions.md"},
            ],
        }
    ]
    chat = [
        {"role": "user", "content": "Debug this code"},
        {"role": "assistant", "content": "I can help with that"},
        {"role": "user", "content": "Thanks, here's the code"},
    ]
    write_cases(
        e2e.project,
        "evals/cases.jsonl",
        [{"id": "review", "input_messages": review}, {"id": "chat", "input_messages": chat}],
    )
    e2e.server.judge_verdict = {"score": 1, "hits": ["ok"], "misses": [], "reasoning": "fine"}

    rows = by_id(run_eval(e2e, "evals/cases.jsonl", "--target", "tool"))
    seen = {r["env"]["EVALWRIGHT_EVAL_ID"]: r for r in records(tmp_path / "records")}
    assert sorted(seen) == ["chat", "review"]
    g_path = real(e2e.root / "evals/style.instructions.md")
    f_path = real(e2e.root / "evals/code.js")
    expected_questions = {
        "review": f"Review this\n{F_BLOCK}\n<Attached: style.instructions.md>",
        "chat": "@[User]:\nDebug this code\n\n@[Assistant]:\nI can help with that\n\n"
        "@[User]:\nThanks, here's the code",
    }
    expected_messages = {
        "review": [
            {"role": "system", "content": f"{D}\n\n[[ ## Guidelines ## ]]\n\n{G_BLOCK}"},
            {"role": "user", "content": expected_questions["review"]},
        ],
        "chat": [
            {"role": "system", "content": D},
            {"role": "user", "content": "Debug this code"},
            {"role": "assistant", "content": "I can help with that"},
            {"role": "user", "content": "Thanks, here's the code"},
        ],
    }
    expected_files = {
        # guidelines first, then attachments
        "review": [
            *("--file", g_path, "--name=style.instructions.md"),
            *("--file", f_path, "--name=code.js"),
        ],
        "chat": [],
    }
    for case_id, record in seen.items():
        row = rows[case_id]
        question = row["raw_request"]["question"]
        assert question == expected_questions[case_id]
        assert (row["raw_request"]["chat_prompt"] is None) == (case_id == "review")
        guidelines = G_BLOCK if case_id == "review" else ""
        argv: list[str] = record["argv"]
        assert argv[0] == str(fake)
        assert argv[1] == "--prompt=" + question
        assert argv[2] == question
        assert argv[3:8] == ["--id", case_id, "--attempt=1", "--guidelines", guidelines]
        assert argv[8] == "--prompt-file"
        assert record["files"][argv[9]] == question
        assert argv[10] == "--guidelines-file"
        assert record["files"][argv[11]] == guidelines
        assert argv[12] == "--messages-file"
        assert json.loads(record["files"][argv[13]]) == expected_messages[case_id]
        assert argv[14:] == expected_files[case_id]
        for temporary in (argv[9], argv[11], argv[13]):
            assert os.path.isabs(temporary)
            assert not os.path.exists(temporary)  # removed after the run
        assert record["env"] == {
            "EVALWRIGHT_EVAL_ID": case_id,
            "EVALWRIGHT_ATTEMPT": "1",
            "EVALWRIGHT_TARGET": "tool",
        }
        assert real(record["cwd"]) == real(e2e.root)
        assert record["stdin"] == ""
        assert row["status"] == "ok", row["error"]
        assert row["provider"] == "cli"
        assert row["candidate_answer"] == f"answer for {case_id}"  # stdout: no {OUTPUT_FILE}
        assert row["trace"] == []
        assert row["wire_request"] == {
            "api": "cli",
            "argv": argv,
            "cwd": row["wire_request"]["cwd"],
            "prompt_document": None,
        }
        assert real(row["wire_request"]["cwd"]) == real(e2e.root)
        assert row["raw_request"]["guideline_paths"] == ([g_path] if guidelines else [])
        assert row["raw_request"]["input_files"] == ([f_path] if guidelines else [])
    # The judge of a cli target sees the LM-mode question the command received.
    judged = sorted(question_section(judge_user_text(r)) for r in e2e.judges())
    assert judged == sorted(expected_questions.values())


def test_command_string_output_file_files_default_and_cwd(e2e: E2E, tmp_path: Path) -> None:
    fake = recorder(tmp_path, "fake agent (v2)")  # a path that needs quoting
    e2e.project.write("work/.keep", "")
    command = f"{shlex.quote(str(fake))} --prompt='{{PROMPT}}' \"{{EVAL_ID}}\" "
    command += "--out {OUTPUT_FILE} {FILES}"
    add_targets(e2e, target_block("str", "cli", command=command, cwd="work"))
    write_inputs(e2e.project)
    content = ["Fix", {"type": "file", "value": "code.js"}]
    write_cases(
        e2e.project,
        "evals/one.jsonl",
        [{"id": "fix", "input_messages": [{"role": "user", "content": content}]}],
        ANY_ANSWER,
    )
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "str")
    (record,) = records(tmp_path / "records")
    question = f"Fix\n{F_BLOCK}"
    argv = record["argv"]
    assert argv[:5] == [str(fake), "--prompt=" + question, "fix", "--out", argv[4]]
    assert argv[4].endswith(".txt")
    assert argv[5:] == [real(e2e.root / "evals/code.js")]  # files_format "{path}"
    assert real(record["cwd"]) == real(e2e.root / "work")
    assert row["status"] == "ok"
    assert row["candidate_answer"] == "answer for fix"  # {OUTPUT_FILE}, not stdout
    assert row["raw_request"]["question"] == question
    assert row["wire_request"]["argv"] == argv
    assert real(row["wire_request"]["cwd"]) == real(e2e.root / "work")


def test_hostile_values_arrive_as_literal_text(e2e: E2E, tmp_path: Path) -> None:
    fake = recorder(tmp_path)
    as_list = [str(fake), "--prompt={PROMPT}", "{PROMPT}", "{FILES}"]
    as_string = f"{shlex.quote(str(fake))} --prompt={{PROMPT}} {{PROMPT}} {{FILES}}"
    add_targets(
        e2e,
        target_block("listed", "cli", command=as_list),
        target_block("split", "cli", command=as_string),
    )
    attached = "x = '$(touch pwned)'; `touch pwned`"
    e2e.project.write(f"evals/{HOSTILE_FILE}", attached + "\n")
    content = [HOSTILE, {"type": "file", "value": HOSTILE_FILE}]
    write_cases(
        e2e.project,
        "evals/hostile.jsonl",
        [{"id": "hostile", "input_messages": [{"role": "user", "content": content}]}],
        ANY_ANSWER,
    )
    rows = run_eval(e2e, "evals/hostile.jsonl", "--target", "listed", "--target", "split")
    assert [r["status"] for r in rows] == ["ok", "ok"]
    question = f'{HOSTILE}\n<file path="{HOSTILE_FILE}">\n{attached}\n</file>'
    seen = records(tmp_path / "records")
    assert sorted(r["env"]["EVALWRIGHT_TARGET"] for r in seen) == ["listed", "split"]
    for record in seen:
        assert record["argv"] == [
            str(fake),
            "--prompt=" + question,
            question,
            real(e2e.root / "evals" / HOSTILE_FILE),
        ]
    for row in rows:
        assert row["raw_request"]["question"] == question
    assert_nothing_ran(tmp_path)


def test_nonzero_exit_is_an_error_with_the_stderr_tail(e2e: E2E, tmp_path: Path) -> None:
    stderr = "x" * 3000 + "\nthe real reason: disk full\n"
    fake = recorder(tmp_path, stderr=stderr, exit_code=3)
    add_targets(e2e, target_block("failing", "cli", command=[str(fake), "{PROMPT}"]))
    write_cases(e2e.project, "evals/c.jsonl", [{"id": "c", "input": "hi"}], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/c.jsonl", "--target", "failing")
    assert (row["status"], row["score"]) == ("error", None)
    assert row["error"]["type"] == "target_error"
    message: str = row["error"]["message"]
    assert "status 3" in message
    assert message.endswith("the real reason: disk full")
    assert len(message) < 2300  # the tail, not all of stderr
    assert row["wire_request"]["api"] == "cli"
    assert row["wire_request"]["argv"] == [str(fake), "hi"]


FLOOD = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"


@pytest.mark.parametrize("where", ["stdout", "output-file"])
def test_an_answer_over_max_response_bytes_is_an_error_row(
    e2e: E2E, tmp_path: Path, where: str
) -> None:
    """A command that never stops printing is killed at the limit, its answer never held."""
    if where == "stdout":
        command = [sys.executable, "-c", FLOOD]
    else:
        script = "open(sys.argv[1], 'wb').truncate(3 * 2**30)"
        command = [sys.executable, "-c", f"import sys; {script}", "{OUTPUT_FILE}"]
    block = target_block("flood", "cli", command=command, max_response_bytes=1048576)
    add_targets(e2e, block)
    write_cases(e2e.project, "evals/c.jsonl", [{"id": "c", "input": "hi"}], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/c.jsonl", "--target", "flood")
    assert row["error"]["type"] == "response_too_large"
    assert "max_response_bytes (1048576)" in row["error"]["message"]
    assert row["candidate_answer"] == ""


def test_timeout_kills_the_whole_process_group(e2e: E2E, tmp_path: Path) -> None:
    child_pid, late = tmp_path / "child.pid", tmp_path / "late.txt"
    constants = {"CHILD_PID": str(child_pid), "LATE": str(late), "CHILD_SLEEP": 2.0}
    fake = write_script(tmp_path / "bin" / "sleeper", SLEEPER, constants)
    add_targets(
        e2e, target_block("slow", "cli", command=[str(fake), "{PROMPT}"], timeout_seconds=1)
    )
    write_cases(e2e.project, "evals/c.jsonl", [{"id": "c", "input": "hi"}], ANY_ANSWER)
    started = time.monotonic()
    (row,) = run_eval(e2e, "evals/c.jsonl", "--target", "slow")
    assert time.monotonic() - started < 20
    assert row["status"] == "error"
    assert row["error"]["type"] == "timeout"
    assert_child_killed(child_pid, late, 2.0)


# --- healthcheck ------------------------------------------------------------------------


def health_script(tmp_path: Path, count: Path, *, exit_code: int = 0, stderr: str = "") -> Path:
    """A healthcheck command that counts its runs in ``count``."""
    constants = {"COUNT": str(count), "EXIT": exit_code, "STDERR": stderr}
    return write_script(tmp_path / "bin" / "health", HEALTHCHECK, constants)


def test_healthcheck_command_runs_once_before_the_first_case(e2e: E2E, tmp_path: Path) -> None:
    count = tmp_path / "health-count"
    health = health_script(tmp_path, count)
    fake = recorder(tmp_path, health=count)
    add_targets(
        e2e,
        target_block(
            "checked",
            "cli",
            command=[str(fake), "{PROMPT}"],
            healthcheck={"command": [str(health)]},
        ),
    )
    cases = [{"id": f"c{i}", "input": f"case {i}"} for i in range(3)]
    write_cases(e2e.project, "evals/c.jsonl", cases, ANY_ANSWER)
    rows = run_eval(e2e, "evals/c.jsonl", "--target", "checked", "--workers", "3")
    assert [r["status"] for r in rows] == ["ok"] * 3
    assert count.read_text(encoding="utf-8") == "ran\n"
    seen = records(tmp_path / "records")
    assert len(seen) == 3
    assert all(r["health_runs"] == 1 for r in seen)  # it had run before every case


def test_a_failing_healthcheck_errors_every_row(e2e: E2E, tmp_path: Path) -> None:
    count = tmp_path / "health-count"
    health = health_script(tmp_path, count, exit_code=1, stderr="service is down\n")
    fake = recorder(tmp_path)
    add_targets(
        e2e,
        target_block(
            "checked",
            "cli",
            command=[str(fake), "{PROMPT}"],
            healthcheck={"command": shlex.quote(str(health)) + " --probe"},
        ),
    )
    cases = [{"id": f"c{i}", "input": f"case {i}"} for i in range(2)]
    write_cases(e2e.project, "evals/c.jsonl", cases, ANY_ANSWER)
    rows = run_eval(e2e, "evals/c.jsonl", "--target", "checked", "--workers", "2")
    assert [r["status"] for r in rows] == ["error", "error"]
    for row in rows:
        assert row["error"]["type"] == "target_error"
        assert "healthcheck" in row["error"]["message"]
        assert "service is down" in row["error"]["message"]
    assert count.read_text(encoding="utf-8") == "ran\n"  # once, shared by every case
    assert records(tmp_path / "records") == []  # no case ran


def test_healthcheck_url(e2e: E2E, tmp_path: Path) -> None:
    fake = recorder(tmp_path)
    url = e2e.server.url
    add_targets(
        e2e,
        target_block(
            "up", "cli", command=[str(fake), "{PROMPT}"], healthcheck={"url": f"{url}/health"}
        ),
        target_block(
            "down", "cli", command=[str(fake), "{PROMPT}"], healthcheck={"url": f"{url}/missing"}
        ),
    )
    cases = [{"id": f"c{i}", "input": f"case {i}"} for i in range(2)]
    write_cases(e2e.project, "evals/c.jsonl", cases, ANY_ANSWER)
    rows = run_eval(e2e, "evals/c.jsonl", "--target", "up", "--target", "down")
    status = {(r["eval_id"], r["target"]): r for r in rows}
    for case in ("c0", "c1"):
        assert status[case, "up"]["status"] == "ok"
        down = status[case, "down"]
        assert down["status"] == "error"
        assert "healthcheck" in down["error"]["message"]
    assert len(e2e.server.requests_for("health")) == 1
    assert sorted(r["env"]["EVALWRIGHT_TARGET"] for r in records(tmp_path / "records")) == [
        "up",
        "up",
    ]


# --- previews and validation ------------------------------------------------------------


def test_prompt_target_shows_the_argv_and_runs_nothing(e2e: E2E, tmp_path: Path) -> None:
    fake = recorder(tmp_path)
    command = [
        str(fake),
        "--prompt={PROMPT}",
        "{PROMPT_FILE}",
        "{GUIDELINES_FILE}",
        "{MESSAGES_FILE}",
        "--out",
        "{OUTPUT_FILE}",
        "{FILES}",
    ]
    add_targets(e2e, target_block("tool", "cli", command=command))
    write_inputs(e2e.project)
    content = ["Fix", {"type": "file", "value": "code.js"}]
    path = write_cases(
        e2e.project,
        "evals/one.jsonl",
        [{"id": "fix", "input_messages": [{"role": "user", "content": content}]}],
        ANY_ANSWER,
    )
    result = run_cli("prompt", path, "--target", "tool", "--json")
    assert result.code == 0, result.err
    shown: dict[str, Any] = result.json()
    question = f"Fix\n{F_BLOCK}"
    assert shown["mode"] == "lm"
    assert shown["question"] == question
    assert shown["wire_request"] == {
        "api": "cli",
        "argv": [
            str(fake),
            "--prompt=" + question,
            "<prompt_file>",
            "<guidelines_file>",
            "<messages_file>",
            "--out",
            "<output_file>",
            real(e2e.root / "evals/code.js"),
        ],
        "cwd": shown["wire_request"]["cwd"],
        "prompt_document": None,
    }
    assert real(shown["wire_request"]["cwd"]) == real(e2e.root)
    assert not (tmp_path / "records").exists()


def test_validate_warns_when_a_prompt_exceeds_100_kib(e2e: E2E, tmp_path: Path) -> None:
    fake = recorder(tmp_path)
    add_targets(
        e2e,
        target_block("inline", "cli", command=[str(fake), "--prompt={PROMPT}"]),
        target_block("by-file", "cli", command=[str(fake), "{PROMPT_FILE}"]),
    )
    big = "word " * (101 * 1024 // 5) + "end"
    assert len(big.encode()) > 100 * 1024
    cases = [{"id": "big", "input": big}, {"id": "small", "input": "short"}]
    write_cases(e2e.project, "evals/inline.jsonl", cases, ANY_ANSWER, target="inline")
    write_cases(e2e.project, "evals/by-file.jsonl", cases, ANY_ANSWER, target="by-file")

    inline = run_cli("validate", e2e.root / "evals/inline.jsonl")
    assert inline.code == 0, inline.out
    warnings = [line for line in inline.out.splitlines() if ": warning: " in line]
    assert len(warnings) == 1, inline.out
    (warning,) = warnings
    assert "inline.jsonl:2:" in warning  # the big case's line (the header is line 1)
    assert "100 KiB" in warning
    assert "{PROMPT_FILE}" in warning

    by_file = run_cli("validate", e2e.root / "evals/by-file.jsonl")
    assert by_file.code == 0, by_file.out
    assert ": warning: " not in by_file.out
