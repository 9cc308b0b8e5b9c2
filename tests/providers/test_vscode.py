"""The ``vscode`` / ``vscode-insiders`` targets with a fake ``code`` executable that answers
by writing the response file: the whole dispatch, ``dry_run``, the timeout, parallel cases in
their own workspaces, workspace templates, the default commands, and the workspace lock."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalwright.errors import ProviderError
from evalwright.providers.vscode.workspace import (
    DONE_FILE,
    LOCK_FILE,
    REQUEST_FILE,
    RESPONSE_FILE,
    WorkspaceLock,
    chat_text,
    create_workspace,
)
from tests.conftest import ProjectDir, run_cli
from tests.e2e.harness import E2E
from tests.providers.agent_fakes import (
    ANY_ANSWER,
    add_targets,
    agent_e2e,
    by_id,
    records,
    run_eval,
    target_block,
    write_cases,
    write_script,
)

PRE_READ_END = "If a file cannot be read, stop and answer: ERROR: missing file <path>"

FAKE_CODE = """\
import json, os, re, subprocess, sys, time, uuid
from pathlib import Path

WRITER = (
    "import json, sys, time, uuid\\n"
    "from pathlib import Path\\n"
    "response, done, answer, delay, answers = sys.argv[1:6]\\n"
    "time.sleep(float(delay))\\n"
    "Path(response).write_text(answer, encoding='utf-8')\\n"
    "Path(answers).mkdir(parents=True, exist_ok=True)\\n"
    "note = {'time': time.time(), 'response': response}\\n"
    "Path(answers, uuid.uuid4().hex + '.json').write_text(json.dumps(note))\\n"
    "Path(done).write_text('done', encoding='utf-8')\\n"
)
PATHS = re.compile(
    r"write your complete final answer to (.+?), and after that create the file (.+?) "
    r"containing the word done"
)

argv = list(sys.argv)
record = {"time": time.time(), "argv": argv, "cwd": os.getcwd()}
if argv[1:2] == ["--new-window"]:
    opened = Path(argv[2])
    if opened.is_dir():
        record["files"] = {
            p.relative_to(opened).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(opened.rglob("*"))
            if p.is_file()
        }
    else:
        record["workspace_file"] = json.loads(opened.read_text(encoding="utf-8"))
elif argv[1:2] == ["chat"]:
    request = Path(argv[argv.index("--add-file") + 1])
    text = request.read_text(encoding="utf-8")
    found = PATHS.search(argv[-1])
    assert found, argv[-1]
    response, done = found.group(1), found.group(2)
    record.update(request=text, response=response, done=done)
    if ANSWER is not None:
        answer = ANSWER.replace("<last>", text.splitlines()[-1])
        args = [response, done, answer, str(DELAY), ANSWERS]
        subprocess.Popen(
            [sys.executable, "-c", WRITER, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # like VS Code: the answer comes later, from elsewhere
        )
Path(RECORDS).mkdir(parents=True, exist_ok=True)
Path(RECORDS, uuid.uuid4().hex + ".json").write_text(json.dumps(record), encoding="utf-8")
"""


@pytest.fixture
def e2e(project: ProjectDir, tmp_path: Path) -> Iterator[E2E]:
    """A fake-server project (TMPDIR under this test's tmp_path, where workspaces go)."""
    yield from agent_e2e(project, tmp_path)


def fake_code(
    tmp_path: Path,
    name: str = "code",
    *,
    answer: str | None = "Answer to: <last>",
    delay: float = 0,
) -> Path:
    """A fake ``code``: logs each invocation; ``chat`` answers after ``delay`` (or never)."""
    constants = {
        "RECORDS": str(tmp_path / "records"),
        "ANSWERS": str(tmp_path / "answers"),
        "ANSWER": answer,
        "DELAY": delay,
    }
    return write_script(tmp_path / "bin" / name, FAKE_CODE, constants)


def invocations(tmp_path: Path) -> list[dict[str, Any]]:
    """What the fake ``code`` was run with, in order."""
    return records(tmp_path / "records")


def document(question: str, files: list[Path] | None = None) -> str:
    """The prompt document of docs/agents.md#the-prompt-document (attached files only)."""
    if not files:
        return f"[[ ## user_query ## ]]\n\n{question}"
    listed = "\n".join(f"- {Path(os.path.realpath(p)).as_uri()}" for p in files)
    return (
        f"Read these attached files:\n{listed}\n{PRE_READ_END}\n\n"
        f"[[ ## user_query ## ]]\n\n{question}"
    )


def chat_argv(command: str, workspace: str) -> list[str]:
    """The ``code chat`` invocation for ``workspace``."""
    request = str(Path(workspace) / REQUEST_FILE)
    message = chat_text(Path(workspace))
    return [command, "chat", "--mode", "agent", "--reuse-window", "--add-file", request, message]


FIX_CASE: dict[str, Any] = {
    "id": "fix",
    "input_messages": [{"role": "user", "content": ["Fix", {"type": "file", "value": "code.js"}]}],
}


def test_the_whole_dispatch(e2e: E2E, tmp_path: Path) -> None:
    fake = fake_code(tmp_path)
    add_targets(e2e, target_block("vs", "vscode", command=str(fake), timeout_seconds=30))
    f = e2e.project.write("evals/code.js", "console.log('test')\n")
    write_cases(e2e.project, "evals/one.jsonl", [FIX_CASE], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "vs")

    question = 'Fix\n<file: path="code.js">'
    expected = document(question, [f])
    opened, chat = invocations(tmp_path)
    workspace = opened["argv"][2]
    assert opened["argv"] == [str(fake), "--new-window", workspace]
    assert os.path.dirname(workspace) == str(tmp_path / "tmp")
    assert os.path.basename(workspace).startswith("evalwright-vscode-")
    assert opened["files"][REQUEST_FILE] == expected  # written before VS Code opens
    assert LOCK_FILE in opened["files"]  # claimed while the case runs
    assert chat["argv"] == chat_argv(str(fake), workspace)
    message = chat["argv"][-1]
    for name in (REQUEST_FILE, RESPONSE_FILE, DONE_FILE):
        assert str(Path(workspace) / name) in message
    assert chat["request"] == expected  # the request file holds the prompt document
    assert chat["response"] == str(Path(workspace) / RESPONSE_FILE)
    assert chat["done"] == str(Path(workspace) / DONE_FILE)
    for invocation in (opened, chat):
        assert os.path.realpath(invocation["cwd"]) == os.path.realpath(workspace)

    assert row["status"] == "ok", row["error"]
    assert row["provider"] == "vscode"
    assert row["candidate_answer"] == 'Answer to: <file: path="code.js">'
    assert row["raw_request"]["question"] == question
    assert row["raw_request"]["chat_prompt"] is None
    assert row["wire_request"] == {
        "api": "vscode",
        "argv": chat["argv"],
        "cwd": workspace,
        "prompt_document": expected,
    }


def test_dry_run_prepares_everything_and_launches_nothing(e2e: E2E, tmp_path: Path) -> None:
    fake = fake_code(tmp_path)
    add_targets(e2e, target_block("vs", "vscode", command=str(fake), dry_run=True))
    f = e2e.project.write("evals/code.js", "console.log('test')\n")
    write_cases(e2e.project, "evals/one.jsonl", [FIX_CASE], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "vs")
    assert invocations(tmp_path) == []
    assert row["status"] == "ok", row["error"]
    assert row["finish_reason"] == "dry_run"
    assert row["candidate_answer"] == ""
    (step,) = row["trace"]
    assert step["type"] == "dry_run"
    workspace = Path(row["wire_request"]["cwd"])
    assert str(workspace) in step["text"]
    assert workspace.parent == tmp_path / "tmp"
    expected = document('Fix\n<file: path="code.js">', [f])
    assert (workspace / REQUEST_FILE).read_text(encoding="utf-8") == expected
    assert row["wire_request"]["prompt_document"] == expected
    assert row["wire_request"]["argv"] == chat_argv(str(fake), str(workspace))
    assert not (workspace / LOCK_FILE).exists()


def test_no_answer_is_a_timeout(e2e: E2E, tmp_path: Path) -> None:
    fake = fake_code(tmp_path, answer=None)
    add_targets(e2e, target_block("vs", "vscode", command=str(fake), timeout_seconds=1))
    write_cases(e2e.project, "evals/one.jsonl", [{"id": "one", "input": "Go"}], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "vs")
    assert (row["status"], row["score"]) == ("error", None)
    assert row["error"]["type"] == "timeout"
    opened, chat = invocations(tmp_path)  # it was dispatched, then waited in vain
    assert opened["argv"][1] == "--new-window"
    assert chat["argv"][1] == "chat"
    assert not (Path(opened["argv"][2]) / LOCK_FILE).exists()  # the claim is released


def test_parallel_cases_get_their_own_workspaces_and_answers(e2e: E2E, tmp_path: Path) -> None:
    fake = fake_code(tmp_path, delay=1.0)
    add_targets(e2e, target_block("vs", "vscode", command=str(fake), timeout_seconds=30))
    cases = [{"id": "alpha", "input": "Question alpha"}, {"id": "beta", "input": "Question beta"}]
    write_cases(e2e.project, "evals/two.jsonl", cases, ANY_ANSWER)
    rows = by_id(run_eval(e2e, "evals/two.jsonl", "--target", "vs", "--workers", "2"))

    seen = invocations(tmp_path)
    opened = [r for r in seen if r["argv"][1] == "--new-window"]
    chats = [r for r in seen if r["argv"][1] == "chat"]
    assert len(opened) == len(chats) == 2
    workspaces = [r["argv"][2] for r in opened]
    assert len(set(workspaces)) == 2  # never shared
    by_workspace = {str(Path(r["argv"][6]).parent): r for r in chats}
    assert sorted(by_workspace) == sorted(workspaces)
    for case_id, row in rows.items():
        assert row["status"] == "ok", row["error"]
        assert row["candidate_answer"] == f"Answer to: Question {case_id}"
        chat = by_workspace[row["wire_request"]["cwd"]]
        assert chat["request"] == document(f"Question {case_id}")
        assert chat["response"].startswith(row["wire_request"]["cwd"])
    # Both were dispatched before either answered: the cases ran side by side.
    answered = records(tmp_path / "answers")
    assert len(answered) == 2
    assert max(r["time"] for r in chats) < min(r["time"] for r in answered)


def test_a_workspace_template_directory_is_copied(e2e: E2E, tmp_path: Path) -> None:
    fake = fake_code(tmp_path)
    add_targets(
        e2e, target_block("vs", "vscode", command=str(fake), workspace_template="templates/ws")
    )
    e2e.project.write("templates/ws/README.md", "Read me.\n")
    e2e.project.write("templates/ws/src/main.py", "print('hi')\n")
    write_cases(e2e.project, "evals/one.jsonl", [{"id": "one", "input": "Go"}], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "vs")
    assert row["status"] == "ok", row["error"]
    opened, chat = invocations(tmp_path)
    workspace = opened["argv"][2]
    assert opened["files"]["README.md"] == "Read me.\n"
    assert opened["files"]["src/main.py"] == "print('hi')\n"
    assert opened["files"][REQUEST_FILE] == document("Go")
    assert chat["argv"] == chat_argv(str(fake), workspace)
    assert (e2e.root / "templates/ws/README.md").exists()  # the template itself is untouched
    assert not (e2e.root / "templates/ws" / REQUEST_FILE).exists()


def test_a_code_workspace_template_is_rewritten(e2e: E2E, tmp_path: Path) -> None:
    fake = fake_code(tmp_path)
    template = {
        "folders": [{"path": "../lib", "name": "library"}, {"path": "/opt/shared"}],
        "settings": {"editor.tabSize": 2},
    }
    add_targets(
        e2e,
        target_block(
            "vs", "vscode", command=str(fake), workspace_template="tpl/team.code-workspace"
        ),
    )
    e2e.project.write("tpl/team.code-workspace", json.dumps(template))
    e2e.project.write("lib/util.py", "")
    write_cases(e2e.project, "evals/one.jsonl", [{"id": "one", "input": "Go"}], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "vs")
    assert row["status"] == "ok", row["error"]
    opened, chat = invocations(tmp_path)
    opened_path = Path(opened["argv"][2])
    assert opened_path.suffix == ".code-workspace"
    workspace = str(opened_path.parent)
    assert os.path.dirname(workspace) == str(tmp_path / "tmp")
    assert chat["argv"] == chat_argv(str(fake), workspace)
    rewritten = opened["workspace_file"]
    assert rewritten["settings"] == {"editor.tabSize": 2}
    folders = rewritten["folders"]
    assert len(folders) == 3
    assert {"path": workspace} in folders  # the case's own workspace
    assert {"path": os.path.realpath(e2e.root / "lib"), "name": "library"} in folders
    assert {"path": "/opt/shared"} in folders
    assert all(os.path.isabs(folder["path"]) for folder in folders)


def test_default_commands_and_prompt_preview(
    e2e: E2E, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("code", "code-insiders"):
        fake_code(tmp_path, name)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    add_targets(
        e2e,
        target_block("stable", "vscode"),
        target_block("insiders", "vscode-insiders"),
        target_block("custom", "vscode-insiders", command="/opt/vscode/bin/code"),
    )
    f = e2e.project.write("evals/code.js", "console.log('test')\n")
    path = write_cases(e2e.project, "evals/one.jsonl", [FIX_CASE], ANY_ANSWER)
    commands = {"stable": "code", "insiders": "code-insiders", "custom": "/opt/vscode/bin/code"}
    for target, command in commands.items():
        result = run_cli("prompt", path, "--target", target, "--json")
        assert result.code == 0, result.err
        shown: dict[str, Any] = result.json()
        assert shown["mode"] == "agent"
        wire = shown["wire_request"]
        assert wire["api"] == "vscode"
        assert wire["argv"][0] == command
        assert wire["argv"][1:5] == ["chat", "--mode", "agent", "--reuse-window"]
        assert wire["prompt_document"] == document('Fix\n<file: path="code.js">', [f])
        assert sorted(wire) == ["api", "argv", "cwd", "prompt_document"]
    assert invocations(tmp_path) == []  # a preview launches nothing


# --- the workspace itself ---------------------------------------------------------------


def test_workspace_lock_claims_a_workspace_once(tmp_path: Path) -> None:
    lock = tmp_path / LOCK_FILE
    with WorkspaceLock(tmp_path):
        assert lock.exists()
        with pytest.raises(ProviderError, match="in use by another case"), WorkspaceLock(tmp_path):
            pass
        assert lock.exists()  # the failed claim did not release the first one
    assert not lock.exists()
    with pytest.raises(RuntimeError), WorkspaceLock(tmp_path):
        raise RuntimeError("the case failed")
    assert not lock.exists()  # released on failure too
    with WorkspaceLock(tmp_path):
        assert lock.exists()  # and can be claimed again


def test_create_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    first, opened = create_workspace(None)
    second, _ = create_workspace(None)
    assert first == opened
    assert first != second
    assert first.parent == second.parent == tmp_path
    assert list(first.iterdir()) == []
    (tmp_path / "odd.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ProviderError, match=r"neither a directory nor a \.code-workspace"):
        create_workspace(tmp_path / "odd.txt")


def test_a_case_with_a_workspace_is_opened_in_it(e2e: E2E, tmp_path: Path) -> None:
    """docs/agents.md#workspaces: the case's own workspace is opened instead of a fresh one;
    the request and answer files are the protocol's, not the agent's change."""
    fake = fake_code(tmp_path)
    add_targets(e2e, target_block("vs", "vscode", command=str(fake)))
    e2e.project.write("evals/repo/src/main.py", "print('hi')\n")
    case = {"id": "one", "input": "Go", "workspace": {"copy": "repo"}}
    write_cases(e2e.project, "evals/one.jsonl", [case], ANY_ANSWER)
    (row,) = run_eval(e2e, "evals/one.jsonl", "--target", "vs")
    assert row["status"] == "ok", row["error"]
    opened, chat = invocations(tmp_path)
    workspace = row["workspace"]["path"]
    assert opened["argv"][2] == workspace == row["wire_request"]["cwd"]
    assert opened["files"]["src/main.py"] == "print('hi')\n"
    assert opened["files"][REQUEST_FILE] == document("Go")
    assert chat["argv"] == chat_argv(str(fake), workspace)
    assert row["workspace"]["files"] == []
    assert row["workspace"]["kept"] is False
    assert not os.path.exists(workspace)
