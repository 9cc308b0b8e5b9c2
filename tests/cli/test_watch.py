"""``evalwright eval --watch``, run as a real process against the fake server: an edit reruns
only the cases it changes, the others are cache hits (docs/running.md#watching)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from evalwright.testing import FakeServer
from tests.conftest import ProjectDir, run_cli

EVAL = """evalcases:
  - id: first
    expected_outcome: Answers.
    input: Question one.
    execution:
      evaluators:
        - {name: answers, type: contains, value: fake}
  - id: second
    expected_outcome: Answers.
    input_messages:
      - role: user
        content:
          - {type: file, value: notes.txt}
          - Question two.
    execution:
      evaluators:
        - {name: answers, type: contains, value: fake}
"""
WAIT_SECONDS = 60


class Watcher:
    """``evalwright eval --watch`` in a process of its own; its stderr read line by line."""

    def __init__(self, project: ProjectDir, key: str) -> None:
        env = {**os.environ, "OPENAI_API_KEY": key}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "evalwright", "eval", "evals", "--watch", "--quiet"],
            cwd=project.root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        self.stdout: list[str] = []
        assert self.process.stderr is not None
        assert self.process.stdout is not None
        self._readers = [
            self._read(self.process.stderr, self.stderr, self.lines),
            self._read(self.process.stdout, self.stdout, None),
        ]

    @staticmethod
    def _read(stream: IO[str], into: list[str], lines: queue.Queue[str] | None) -> threading.Thread:
        def pump() -> None:
            for line in stream:
                into.append(line)
                if lines is not None:
                    lines.put(line)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        return reader

    def wait_for(self, text: str) -> None:
        """Block until stderr prints a line holding ``text``."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                assert self.process.poll() is None, "".join(self.stderr)
                continue
            if text in line:
                return
        pytest.fail(f"no {text!r} on stderr:\n{''.join(self.stderr)}")

    def printed(self, text: str, times: int) -> int:
        """How often stdout printed ``text``, once that is ``times`` or WAIT_SECONDS passed
        (stdout is read by a thread of its own: it may lag stderr)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while "".join(self.stdout).count(text) < times and time.monotonic() < deadline:
            time.sleep(0.05)
        return "".join(self.stdout).count(text)

    def interrupt(self) -> int:
        """Ctrl-C; the exit code, once everything the process wrote has been read (the
        readers are threads of their own: they may lag its exit)."""
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=WAIT_SECONDS)
        for reader in self._readers:
            reader.join(timeout=WAIT_SECONDS)
        return code

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def server(project: ProjectDir) -> Iterator[FakeServer]:
    """A project whose ``default`` target is an OpenAI model at the fake server."""
    with FakeServer.in_thread() as fake:
        project.write(
            ".evalwright/targets.yaml",
            f"targets:\n  - name: default\n    provider: openai\n    model: gpt-test\n"
            f"    base_url: {fake.url}/v1\n",
        )
        project.write("evals/notes.txt", "A note.\n")
        project.write("evals/cases.yaml", EVAL)
        yield fake


@pytest.fixture
def watcher(project: ProjectDir, server: FakeServer) -> Iterator[Watcher]:
    running = Watcher(project, "sk-watch-test")
    try:
        running.wait_for("evalwright: watching")
        yield running
    finally:
        running.stop()


def _asked(server: FakeServer) -> list[str]:
    """The text of the last user message of each request, in order."""
    return [json.dumps(request.json["messages"][-1]["content"]) for request in server.requests]


def _rows(project: ProjectDir) -> list[list[dict[str, Any]]]:
    """Each results file's rows, oldest file first."""
    files = sorted((project.root / ".evalwright/results").glob("*.jsonl"), key=os.path.getmtime)
    return [[json.loads(line) for line in f.read_text("utf-8").splitlines()] for f in files]


def _cache_states(rows: list[dict[str, Any]]) -> dict[str, str]:
    return {row["eval_id"]: row["cache"] for row in rows}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new), "utf-8")


def test_an_edited_case_is_sent_again_and_the_unchanged_one_is_not(
    project: ProjectDir, server: FakeServer, watcher: Watcher
) -> None:
    assert len(server.requests) == 2

    _edit(project.root / "evals/cases.yaml", "Question two.", "Question two, edited.")
    watcher.wait_for("evalwright: watching")

    assert len(server.requests) == 3, "only the edited case is asked again"
    assert "Question two, edited." in _asked(server)[2]
    first_run, second_run = _rows(project)
    assert _cache_states(first_run) == {"first": "miss", "second": "miss"}
    assert _cache_states(second_run) == {"first": "hit", "second": "miss"}
    assert all(row["status"] == "ok" for row in second_run)
    # The summary is printed again for the rerun.
    assert watcher.printed("2 of 2 case(s) run", 2) == 2

    assert watcher.interrupt() == 130
    assert "evalwright: stopped watching" in "".join(watcher.stderr)
    assert "Traceback" not in "".join(watcher.stderr)


def test_an_edited_attachment_reruns_the_case_that_attaches_it(
    project: ProjectDir, server: FakeServer, watcher: Watcher
) -> None:
    _edit(project.root / "evals/notes.txt", "A note.", "A changed note.")
    watcher.wait_for("evalwright: watching")

    assert len(server.requests) == 3
    assert "A changed note." in _asked(server)[2]
    assert _cache_states(_rows(project)[1]) == {"first": "hit", "second": "miss"}
    assert watcher.interrupt() == 130


def test_a_broken_edit_is_reported_and_its_fix_reruns(
    project: ProjectDir, server: FakeServer, watcher: Watcher
) -> None:
    eval_file = project.root / "evals/cases.yaml"
    _edit(eval_file, "expected_outcome: Answers.\n    input: Question one.", "input: Question one.")
    watcher.wait_for("evalwright: watching")
    assert "expected_outcome" in "".join(watcher.stderr)
    assert len(server.requests) == 2, "a file with an error sends nothing"

    eval_file.write_text(EVAL.replace("Question one.", "Question one, fixed."), "utf-8")
    watcher.wait_for("evalwright: watching")

    assert len(server.requests) == 3
    assert "Question one, fixed." in _asked(server)[2]
    assert watcher.interrupt() == 130


def test_watch_refuses_resume(project: ProjectDir, server: FakeServer) -> None:
    refused = run_cli("eval", project.root / "evals", "--watch", "--resume", "old.jsonl")

    assert refused.code == 2
    assert "--watch cannot be combined with --resume" in refused.err


def test_a_removed_attachment_is_reported_and_restoring_it_reruns(
    project: ProjectDir, server: FakeServer, watcher: Watcher
) -> None:
    notes = project.root / "evals/notes.txt"
    notes.rename(project.root / "notes.bak")
    watcher.wait_for("evalwright: watching")
    assert "file not found: 'notes.txt'" in "".join(watcher.stderr)
    assert len(server.requests) == 2

    (project.root / "notes.bak").rename(notes)
    watcher.wait_for("evalwright: watching")

    assert len(server.requests) == 2, "the restored file is what was sent: a cache hit"
    assert [row["cache"] for row in _rows(project)[-1]] == ["hit", "hit"]
    assert watcher.interrupt() == 130


def test_an_attachment_missing_from_the_start_reruns_once_it_is_written(
    project: ProjectDir, server: FakeServer
) -> None:
    (project.root / "evals/notes.txt").unlink()
    running = Watcher(project, "sk-watch-test")
    try:
        running.wait_for("evalwright: watching")
        assert len(server.requests) == 0

        project.write("evals/notes.txt", "A new note.\n")
        running.wait_for("evalwright: watching")

        assert "A new note." in _asked(server)[1]
        assert running.interrupt() == 130
    finally:
        running.stop()
