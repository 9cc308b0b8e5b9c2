"""The results file is never a file the run needs, and never shared by two runs (running.md,
"The results file"): refused paths are left untouched with exit 2, a second run on a file in
use stops at once naming the first, and runs without ``--out`` each get their own file."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.background import start_eval, wait_for_rows
from tests.e2e.harness import E2E

SUITE = "evals/suite.yaml"
STREAM = "evals/stream.jsonl"
CONTAINS = "{name: says, type: contains, value: fake}"
YAML_SUITE = f"""execution:
  evaluators:
    - {CONTAINS}
    - {{name: judge, type: llm_judge, prompt: /judges/review.md}}
evalcases:
  - id: attached
    expected_outcome: Reviews the notes.
    input_messages:
      - role: user
        content:
          - Review these notes.
          - {{type: file, value: src/notes.md}}
          - {{type: file, value: /.github/instructions/style.instructions.md}}
"""
CASES = 12
JSONL_SUITE = '{"id": "streamed", "expected_outcome": "x", "input": "Hello?"}\n'


def _project(e2e: E2E) -> dict[str, bytes]:
    """A project whose run reads every kind of file; returns each file's bytes."""
    files = {
        SUITE: YAML_SUITE,
        STREAM: JSONL_SUITE,
        "src/notes.md": "Some notes.\n",
        ".github/instructions/style.instructions.md": "Be brief.\n",
        "judges/review.md": "Score it.\n\n{{candidate_answer}}\n",
        ".evalwright/config.yaml": "cache: false\n",
        ".env": "SOME_SETTING=1\n",
        "notes.txt": "my notes\n",
        "data.jsonl": '{"a": 1}\n',
    }
    for relative, text in files.items():
        e2e.project.write(relative, text)
    return {p: (e2e.root / p).read_bytes() for p in [*files, ".evalwright/targets.yaml"]}


@pytest.mark.parametrize(
    ("option", "path", "message"),
    [
        ("--out", SUITE, "is one of the run's eval files"),
        ("--out", STREAM, "is one of the run's eval files"),
        ("--resume", STREAM, "is one of the run's eval files"),
        ("--out", "src/notes.md", "is a file the run's cases reference"),
        ("--out", ".github/instructions/style.instructions.md", "the run's cases reference"),
        ("--out", "judges/review.md", "is a file the run's cases reference"),
        ("--out", ".evalwright/config.yaml", "is the project's config file"),
        ("--out", ".evalwright/targets.yaml", "is the targets file"),
        ("--out", ".env", "is the project's .env file"),
        ("--out", "notes.txt", "is not a results file"),
        ("--resume", "data.jsonl", "is not a results file"),
        ("--out", "evals", "is a directory, not a regular file"),
        ("--out", "pipe", "is a FIFO, not a regular file"),
    ],
)
def test_a_path_the_run_needs_is_refused_and_left_untouched(
    e2e: E2E, option: str, path: str, message: str
) -> None:
    before = _project(e2e)
    os.mkfifo(e2e.root / "pipe")
    result = e2e.run("eval", SUITE, STREAM, "--target", "oa", option, path)
    assert result.code == 2, result.err + result.out
    (line,) = result.err.strip().splitlines()
    assert line.startswith(f"evalwright: error: {option} {path} ")
    assert message in line
    assert "Traceback" not in result.err
    assert {p: (e2e.root / p).read_bytes() for p in before} == before, "nothing was touched"
    assert e2e.server.requests == []
    hidden = [p.name for p in e2e.root.rglob(".*.lock")]
    assert hidden == [], "no lock was taken"


def test_results_or_an_empty_file_may_be_replaced(e2e: E2E) -> None:
    _project(e2e)
    e2e.server.judge_verdict = {"score": 1, "hits": [], "misses": [], "reasoning": "fine"}
    e2e.project.write("empty.jsonl", "")
    first = e2e.run("eval", STREAM, "--target", "oa", "--out", "empty.jsonl")
    assert first.code == 0, first.err
    (earlier,) = e2e.rows("empty.jsonl")
    again = e2e.run("eval", STREAM, "--target", "oa", "--out", "empty.jsonl")
    assert again.code == 0, again.err
    (row,) = e2e.rows("empty.jsonl")
    assert row["run_id"] != earlier["run_id"], "the results file was replaced"


def test_a_streamed_case_cannot_read_the_results_file(e2e: E2E) -> None:
    e2e.project.write("out.jsonl", "")
    reference = {"type": "file", "value": "/out.jsonl"}
    second = {
        "id": "reads-results",
        "expected_outcome": "x",
        "input_messages": [{"role": "user", "content": ["Read this.", reference]}],
    }
    e2e.project.write(STREAM, JSONL_SUITE + json.dumps(second) + "\n")
    result = e2e.run("eval", STREAM, "--target", "oa", "--workers", "1", "--out", "out.jsonl")
    assert result.code == 2, result.err
    assert "'/out.jsonl' is the results file this run is writing" in result.err
    assert result.err.splitlines()[1].startswith(f"{STREAM}:2:")
    assert {r["eval_id"] for r in e2e.rows("out.jsonl")} <= {"streamed"}


def _cases(count: int) -> str:
    lines = ["execution:", "  evaluators:", f"    - {CONTAINS}", "evalcases:"]
    for i in range(count):
        lines += [f"  - id: case-{i}", "    expected_outcome: x", f"    input: Question {i}?"]
    return "\n".join(lines) + "\n"


def test_a_second_run_on_a_file_in_use_stops_at_once(e2e: E2E) -> None:
    e2e.project.write(SUITE, _cases(CASES))
    e2e.server.latency_ms = 300
    path = e2e.root / "shared.jsonl"
    first = start_eval(e2e, "eval", SUITE, "--target", "oa", "--workers", "1", "--out", path)
    try:
        (line,) = wait_for_rows(path, 1, first)
        run_id = json.loads(line)["run_id"]
        for option in ("--out", "--resume"):
            started = time.monotonic()
            second = e2e.run("eval", SUITE, "--target", "oa", option, "shared.jsonl")
            assert first.poll() is None, "the first run was still running"
            assert time.monotonic() - started < 10
            assert second.code == 2, second.err
            assert second.err.strip() == (
                f"evalwright: error: shared.jsonl is in use by another run (run {run_id}, "
                f"pid {first.pid}); wait for it to finish, or write to another file"
            )
        out, err = first.communicate(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()
    assert first.returncode == 0, err + out
    rows = e2e.rows("shared.jsonl")
    assert sorted(r["eval_id"] for r in rows) == sorted(f"case-{i}" for i in range(CASES))
    assert {r["run_id"] for r in rows} == {run_id}, "the second run wrote nothing"
    assert len(e2e.candidates()) == CASES
    assert not (e2e.root / ".shared.jsonl.lock").exists(), "the lock is removed at the end"


def test_a_killed_runs_lock_does_not_stop_the_next_run(e2e: E2E) -> None:
    e2e.project.write(SUITE, _cases(3))
    e2e.server.latency_ms = 300
    path = e2e.root / "r.jsonl"
    process = start_eval(e2e, "eval", SUITE, "--target", "oa", "--workers", "1", "--out", path)
    try:
        wait_for_rows(path, 1, process)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert (e2e.root / ".r.jsonl.lock").exists()
    e2e.server.latency_ms = 0
    result = e2e.run("eval", SUITE, "--target", "oa", "--out", "r.jsonl")
    assert result.code == 0, result.err
    assert len(e2e.rows("r.jsonl")) == 3
    assert not (e2e.root / ".r.jsonl.lock").exists()


def test_runs_started_together_get_their_own_default_files(e2e: E2E) -> None:
    e2e.project.write(SUITE, _cases(2))
    e2e.server.latency_ms = 200
    processes = [start_eval(e2e, "eval", SUITE, "--target", "oa") for _ in range(3)]
    for process in processes:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err + out
    directory = e2e.root / ".evalwright" / "results"
    found = sorted(directory.iterdir())
    assert len(found) == 3, [p.name for p in found]
    run_ids: set[str] = set()
    for path in found:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert sorted(r["eval_id"] for r in rows) == ["case-0", "case-1"]
        (run_id,) = {r["run_id"] for r in rows}
        assert path.name == f"suite-{run_id}.jsonl"
        run_ids.add(run_id)
    assert len(run_ids) == 3


def test_path_is_shown_as_given(e2e: E2E, tmp_path: Path) -> None:
    e2e.project.write(SUITE, _cases(1))
    out = tmp_path / "elsewhere" / "r.jsonl"
    result = e2e.run("eval", SUITE, "--target", "oa", "--out", out)
    assert result.code == 0, result.err
    assert result.out.rstrip().endswith(f"results: {out}")


def test_resume_of_a_file_with_a_broken_row_is_refused_untouched(e2e: E2E) -> None:
    e2e.project.write(SUITE, _cases(2))
    assert e2e.run("eval", SUITE, "--target", "oa", "--out", "r.jsonl").code == 0
    lines = (e2e.root / "r.jsonl").read_text(encoding="utf-8").splitlines()
    broken = "\n".join([lines[0], "{not json", lines[1]]) + "\n"
    e2e.project.write("r.jsonl", broken)
    result = e2e.run("eval", SUITE, "--target", "oa", "--resume", "r.jsonl")
    assert result.code == 2, result.err
    assert result.err.strip().endswith("r.jsonl:2: not a results row (invalid JSON)")
    assert (e2e.root / "r.jsonl").read_text(encoding="utf-8") == broken
    assert not (e2e.root / ".r.jsonl.lock").exists()
