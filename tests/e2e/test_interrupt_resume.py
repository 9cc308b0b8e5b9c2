"""An interrupted run (SIGINT, SIGKILL) keeps every finished row, and ``--resume`` completes it:
no duplicate, no missing row, errored rows rerun and replaced, the original run_id kept."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from evalwright.testing import Fault, Text
from tests.e2e.background import complete_lines, interrupt_after_rows, start_eval, wait_for_rows
from tests.e2e.harness import E2E

CASES = 10
EVAL_FILE = "evals/cases.yaml"
RESULTS = "results.jsonl"


def _keys(count: int) -> set[tuple[str, str, str]]:
    return {(EVAL_FILE, f"case-{i:02}", "oa") for i in range(count)}


def _eval_text(count: int) -> str:
    lines = [
        "execution:",
        "  evaluators:",
        "    - {name: says-fake, type: contains, value: fake}",
        "evalcases:",
    ]
    for i in range(count):
        lines += [
            f"  - id: case-{i:02}",
            f"    expected_outcome: Answers question {i}.",
            f"    input: Question number {i}?",
        ]
    return "\n".join(lines) + "\n"


def _key(row: dict[str, Any]) -> tuple[str, str, str]:
    return (row["eval_file"], row["eval_id"], row["target"])


def _parse(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def _resume(e2e: E2E, count: int) -> list[dict[str, Any]]:
    """Resume the results file; return its rows, checking they are whole and unique."""
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--resume", RESULTS)
    assert result.code == 0, result.err + result.out
    assert "Traceback" not in result.err
    rows = e2e.rows(RESULTS)
    keys = [_key(r) for r in rows]
    assert len(keys) == len(set(keys)), "no duplicate row"
    assert set(keys) == _keys(count), "no missing row"
    assert all(r["status"] == "ok" for r in rows), [r["error"] for r in rows]
    return rows


def _rerun_ids(e2e: E2E, rows: list[dict[str, Any]]) -> set[str]:
    """The cases the server was asked about (each case's body is unique)."""
    bodies = [request.json for request in e2e.candidates()]
    return {r["eval_id"] for r in rows if r["wire_request"]["body"] in bodies}


@pytest.mark.parametrize("how", ["sigint", "sigkill"])
def test_a_killed_run_keeps_its_rows_and_resume_completes_it(e2e: E2E, how: str) -> None:
    e2e.project.write(EVAL_FILE, _eval_text(CASES))
    e2e.server.latency_ms = 300
    # The first answer fails at once, so the interrupted file holds an errored row to rerun.
    e2e.server.enqueue(Fault(400, body={"error": {"message": "nope"}}, latency_ms=0))
    path = e2e.root / RESULTS
    process = start_eval(e2e, "eval", EVAL_FILE, "--target", "oa", "--workers", "2", "--out", path)
    try:
        before = wait_for_rows(path, 2, process)
        signalled = time.monotonic()
        if how == "sigint":
            process.send_signal(signal.SIGINT)
        else:
            process.kill()
        out, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    stopped_after = time.monotonic() - signalled

    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if how == "sigint":
        assert process.returncode == 130, err
        assert stopped_after < 5, "Ctrl-C stops promptly"
        assert "Traceback" not in err + out
        assert "interrupted" in err
        assert text.endswith("\n"), "a clean stop leaves no partial line"
    else:
        assert process.returncode == -signal.SIGKILL
    whole, last = lines[:-1], lines[-1]  # ``last`` is "" unless a write was cut off
    assert whole[: len(before)] == before, "every row written before the kill is still there"
    first = _parse(whole)
    assert 2 <= len(first) < CASES, "the kill landed mid-run"
    assert len({_key(r) for r in first}) == len(first)
    run_id = first[0]["run_id"]
    assert {r["run_id"] for r in first} == {run_id}
    errored = {r["eval_id"] for r in first if r["status"] == "error"}
    assert len(errored) == 1
    done = {r["eval_id"]: line for r, line in zip(first, whole, strict=True) if r["status"] == "ok"}

    if how == "sigkill" and not last:
        # Make the cut-off write concrete: half a row of a case not yet finished, no newline.
        pending = sorted({k[1] for k in _keys(CASES)} - errored - set(done))[0]
        cut = json.dumps({**first[0], "eval_id": pending, "status": "ok"})
        path.write_text(text + cut[: len(cut) // 2], encoding="utf-8")

    e2e.server.latency_ms = 0
    e2e.server.clear()
    rows = _resume(e2e, CASES)
    assert {r["run_id"] for r in rows} == {run_id}, "the original run_id is kept"
    expected_rerun = {k[1] for k in _keys(CASES)} - set(done)
    assert _rerun_ids(e2e, rows) == expected_rerun
    assert len(e2e.candidates()) == len(expected_rerun), "finished rows are not asked again"
    resumed_lines = complete_lines(path)
    for eval_id, line in done.items():
        assert line in resumed_lines, f"the finished row of {eval_id} is kept as it was"


def test_resume_reruns_errored_and_missing_rows_and_rewrites_atomically(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, _eval_text(5))
    e2e.server.enqueue(Fault(400, body={"error": {"message": "bad request"}}))
    first = e2e.run("eval", EVAL_FILE, "--target", "oa", "--workers", "1", "--out", RESULTS)
    assert first.code == 1, first.err
    lines = complete_lines(e2e.root / RESULTS)
    rows = _parse(lines)
    assert [(r["eval_id"], r["status"]) for r in rows] == [
        ("case-00", "error"),
        ("case-01", "ok"),
        ("case-02", "ok"),
        ("case-03", "ok"),
        ("case-04", "ok"),
    ]
    run_id = rows[0]["run_id"]
    # Keep the errored row and two finished ones; case-03 was cut off mid-write, case-04 is lost.
    path = e2e.root / RESULTS
    path.write_text("\n".join(lines[:3]) + "\n" + lines[3][: len(lines[3]) // 2], "utf-8")
    inode = path.stat().st_ino
    e2e.server.clear()

    resumed = _resume(e2e, 5)

    assert len(e2e.server.requests) == 3
    assert _rerun_ids(e2e, resumed) == {"case-00", "case-03", "case-04"}
    assert {r["run_id"] for r in resumed} == {run_id}
    new_lines = complete_lines(path)
    assert lines[1] in new_lines
    assert lines[2] in new_lines
    replaced = next(r for r in resumed if r["eval_id"] == "case-00")
    assert (replaced["status"], replaced["error"]) == ("ok", None)
    assert path.stat().st_ino != inode, "rewritten as a new file renamed over the old one"
    leftovers = sorted(p.name for p in e2e.root.iterdir())
    assert leftovers == [".evalwright", ".git", "evals", RESULTS], "no temporary file is left"
    assert sorted(p.name for p in (e2e.root / ".evalwright").iterdir()) == ["targets.yaml"]


def test_resume_of_a_missing_file_is_a_clear_error(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, _eval_text(1))
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--resume", "nowhere.jsonl")
    assert result.code == 2
    assert result.err.startswith("evalwright: error: cannot read")
    assert "Traceback" not in result.err
    assert not Path(e2e.root / "nowhere.jsonl").exists()
    assert e2e.server.requests == []


def test_an_interrupted_resume_keeps_the_file_whole(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, _eval_text(8))
    e2e.server.enqueue(*[Text("fake answer")] * 5, Fault(400))
    first = e2e.run(
        "eval",
        EVAL_FILE,
        "--target",
        "oa",
        "--workers",
        "1",
        "--eval-id",
        "case-0[0-5]",
        "--out",
        RESULTS,
    )
    assert first.code == 1, first.err
    path = e2e.root / RESULTS
    lines = complete_lines(path)
    assert [json.loads(line)["status"] for line in lines] == ["ok"] * 5 + ["error"]
    # case-02 is missing, case-05 errored: the resume reruns case-02 first, then case-05.
    kept = [line for line in lines if json.loads(line)["eval_id"] not in ("case-02", "case-05")]
    path.write_text("\n".join([*kept, lines[5]]) + "\n", encoding="utf-8")
    e2e.server.latency_ms = 400

    process = start_eval(
        e2e, "eval", EVAL_FILE, "--target", "oa", "--workers", "1", "--resume", path
    )

    def beside() -> list[str]:
        return sorted(p.name for p in e2e.root.iterdir() if p.name.startswith(f".{RESULTS}."))

    # The rerun row is appended to the results file itself, after the errored row.
    err = interrupt_after_rows(path, len(kept) + 2, process, stop_within=10)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert beside() == [], "no temporary or lock file is left"

    rows = _parse(complete_lines(path))
    assert path.read_text(encoding="utf-8").endswith("\n")
    states = {r["eval_id"]: r["status"] for r in rows}
    assert len(states) == len(rows), "no duplicate row"
    # case-05 was in flight when interrupted: its errored row is kept, to rerun next time.
    assert states == {
        "case-00": "ok",
        "case-01": "ok",
        "case-02": "ok",
        "case-03": "ok",
        "case-04": "ok",
        "case-05": "error",
    }
    assert lines[5] in complete_lines(path)
    assert all(line in complete_lines(path) for line in kept)
    assert {r["run_id"] for r in rows} == {json.loads(lines[0])["run_id"]}

    e2e.server.latency_ms = 0
    _resume(e2e, 8)


def _first_run_with_gaps(e2e: E2E, count: int) -> tuple[list[str], str]:
    """A run whose first case errored; the file then loses its last rows (as if cut off).

    Returns the kept lines (case-00 errored, case-01 and case-02 ok) and the run id.
    """
    e2e.project.write(EVAL_FILE, _eval_text(count))
    e2e.server.enqueue(Fault(400, body={"error": {"message": "bad request"}}))
    first = e2e.run("eval", EVAL_FILE, "--target", "oa", "--workers", "1", "--out", RESULTS)
    assert first.code == 1, first.err
    lines = complete_lines(e2e.root / RESULTS)[:3]
    (e2e.root / RESULTS).write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert [json.loads(line)["status"] for line in lines] == ["error", "ok", "ok"]
    e2e.server.clear()
    return lines, json.loads(lines[0])["run_id"]


def _beside(e2e: E2E) -> list[str]:
    """Hidden files beside the results file (temporary files, the lock)."""
    return sorted(p.name for p in e2e.root.iterdir() if p.name.startswith(f".{RESULTS}."))


def test_a_killed_resume_keeps_every_row_it_finished(e2e: E2E) -> None:
    kept, run_id = _first_run_with_gaps(e2e, CASES)
    path = e2e.root / RESULTS
    e2e.server.latency_ms = 300
    process = start_eval(
        e2e, "eval", EVAL_FILE, "--target", "oa", "--workers", "1", "--resume", RESULTS
    )
    try:
        # Each rerun row lands in the results file itself as soon as it is finished.
        wait_for_rows(path, len(kept) + 2, process)
        process.kill()
        process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == -signal.SIGKILL
    lines = complete_lines(path)
    assert lines[: len(kept)] == kept, "the earlier rows are untouched"
    appended = _parse(lines[len(kept) :])
    assert len(appended) >= 2
    assert appended[0]["eval_id"] == "case-00", "the errored row is rerun first"
    assert all(r["status"] == "ok" and r["run_id"] == run_id for r in appended)
    finished = {r["eval_id"] for r in appended}
    assert ".results.jsonl.lock" in _beside(e2e), "a killed run cannot remove its lock"

    e2e.server.latency_ms = 0
    e2e.server.clear()
    rows = _resume(e2e, CASES)

    assert {r["run_id"] for r in rows} == {run_id}
    asked = _rerun_ids(e2e, rows)
    assert asked == {k[1] for k in _keys(CASES)} - finished - {"case-01", "case-02"}
    assert not asked & finished, "what the killed run finished is not asked again"
    final = complete_lines(path)
    assert all(line in final for line in kept[1:]), "ok rows are kept as they were"
    assert all(json.dumps(r, ensure_ascii=False, separators=(",", ":")) in final for r in appended)
    assert [json.loads(line)["eval_id"] for line in final][:3] == ["case-00", "case-01", "case-02"]
    assert _beside(e2e) == [], "compacted, and the stale lock removed"


def test_resume_takes_the_rows_of_files_an_interrupted_run_left(e2e: E2E) -> None:
    kept, run_id = _first_run_with_gaps(e2e, 6)
    # A complete run gives real rows for the temporary files an interrupted resume left.
    other = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "other.jsonl")
    assert other.code == 0, other.err
    done = {r["eval_id"]: {**r, "run_id": run_id} for r in e2e.rows("other.jsonl")}
    (e2e.root / "other.jsonl").unlink()
    older_error = {**json.loads(kept[0]), "eval_id": "case-02", "timestamp": "2000-01-01T00:00Z"}

    def dumps(row: dict[str, Any]) -> str:
        return json.dumps(row, ensure_ascii=False, separators=(",", ":"))

    # As an earlier release left them: the kept rows, then rerun rows, then a cut-off row.
    e2e.project.write(
        f".{RESULTS}.k3v9x_2q",
        "\n".join([*kept[1:], dumps(done["case-00"]), dumps(done["case-03"])])
        + "\n"
        + dumps(done["case-04"])[:40],
    )
    # As a compaction interrupted before its rename leaves it; an older error never wins.
    e2e.project.write(f".{RESULTS}.a1b2c3d4", dumps(done["case-03"]) + "\n" + dumps(older_error))
    e2e.project.write(f".{RESULTS}.a1b2c3d4.keep", "not ours\n")
    e2e.server.clear()

    rows = _resume(e2e, 6)

    assert _rerun_ids(e2e, rows) == {"case-04", "case-05"}
    by_id = {r["eval_id"]: r for r in rows}
    assert by_id["case-00"] == done["case-00"]
    assert by_id["case-03"] == done["case-03"]
    assert by_id["case-02"] == json.loads(kept[2])
    assert sorted(p.name for p in e2e.root.iterdir() if p.name.startswith(".results")) == [
        f".{RESULTS}.a1b2c3d4.keep"
    ]


def test_a_new_out_run_removes_the_leftovers_of_the_file_it_replaces(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, _eval_text(2))
    e2e.project.write(RESULTS, "")
    e2e.project.write(f".{RESULTS}.zz99yy88", '{"run_id": "old", "eval_id": "case-09"}\n')
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", RESULTS)
    assert result.code == 0, result.err
    assert _beside(e2e) == []
    resumed = e2e.run("eval", EVAL_FILE, "--target", "oa", "--resume", RESULTS)
    assert resumed.code == 0, resumed.err
    assert sorted(r["eval_id"] for r in e2e.rows(RESULTS)) == ["case-00", "case-01"]
