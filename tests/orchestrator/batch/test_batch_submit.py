"""No request is submitted twice even when the run dies inside the create call
(docs/batch.md#resuming): the pending submission is recorded first, the batch carries its tag,
and ``--resume`` (or the run itself, after a lost connection) finds the batch by it."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from evalwright.orchestrator.batch.state import state_path
from evalwright.providers import batching
from evalwright.testing import FakeServer, ReceivedRequest, Text
from evalwright.testing.fake_server import Interrupt
from evalwright.testing.http11 import Reply
from tests.conftest import ProjectDir, run_cli
from tests.orchestrator.batch import test_batch
from tests.orchestrator.batch.batching import creations as _creations
from tests.orchestrator.batch.batching import input_lines as _input_lines
from tests.orchestrator.batch.batching import rows as _rows
from tests.orchestrator.batch.batching import stop_batched_run
from tests.orchestrator.batch.batching import submitted as _submitted
from tests.orchestrator.batch.test_batch import CASES

server = test_batch.server
"""test_batch's fixture: the fake server, the targets on it and the suite."""

TARGETS = ["oa", "az", "claude", "gem"]
LISTS = {
    "oa": "/v1/batches",
    "az": "/openai/batches",
    "claude": "/v1/messages/batches",
    "gem": "/v1beta/batches",
}


def _made(server: FakeServer) -> int:
    """How many batches the fake APIs hold: created, whatever their callers heard."""
    return sum(
        len(api.batches)
        for api in (server.openai_batches, server.anthropic_batches, server.gemini_batches)
    )


def _pending(out: Path) -> list[dict[str, Any]]:
    try:
        return json.loads(state_path(out).read_text())["pending"]
    except FileNotFoundError:
        return []


def _kill_inside_create(
    project: ProjectDir, server: FakeServer, target: str, out: Path, made: int
) -> None:
    """Start a batched run and SIGKILL it while its create call is unanswered, once the fake
    API holds ``made`` batches."""
    stop_batched_run(
        ["evals/suite.yaml", "--target", target, "--batch", "--out", str(out)],
        project.root,
        lambda: bool(_creations(server)) and _made(server) == made,
        "the create call",
        settle=0.2,  # the create call settles into its hang
    )


def _listed(server: FakeServer, target: str) -> int:
    """How many times the run asked ``target``'s API for its list of batches."""
    return sum(r.method == "GET" and r.path == LISTS[target] for r in server.requests)


@contextlib.contextmanager
def _listed_once_looked_for(server: FakeServer, target: str) -> Generator[None]:
    """Within the block, the batches made so far are listed only once the run has looked for
    them in the list (and not found them): a batch the API lists late."""
    server.batch_list_lag = 3600
    looked = threading.Event()

    def list_once_looked() -> None:
        deadline = time.monotonic() + 60
        while not _listed(server, target) and time.monotonic() < deadline:
            time.sleep(0.01)
        server.batch_list_lag = 0
        looked.set()

    helper = threading.Thread(target=list_once_looked, daemon=True)
    helper.start()
    try:
        yield
    finally:
        helper.join(60)
    assert looked.is_set()


def _resume(project: ProjectDir, target: str, out: Path) -> None:
    suite = project.root / "evals/suite.yaml"
    result = run_cli("eval", suite, "--target", target, "--batch", "--resume", out)
    assert result.code == 0, result.err
    rows = _rows(out)
    assert sorted(r["eval_id"] for r in rows) == [f"case-{i}" for i in range(CASES)]
    assert {r["status"] for r in rows} == {"ok"}
    assert not state_path(out).exists()


@pytest.mark.parametrize("target", TARGETS)
def test_a_run_killed_before_the_create_call_answered_reattaches_to_the_batch_it_made(
    project: ProjectDir, server: FakeServer, target: str
) -> None:
    server.batch_delay = 3600
    server.batch_create_stall = "after"  # the batch exists; its id never reached the run
    out = project.root / "killed.jsonl"
    _kill_inside_create(project, server, target, out, made=1)
    left = _pending(out)
    server.batch_create_stall = None
    server.batch_delay = 0
    _resume(project, target, out)
    assert len(_creations(server)) == 1  # found by its tag, not submitted again
    assert _made(server) == 1
    assert len(_input_lines(server)) == CASES
    (pending,) = left
    assert len(pending["requests"]) == CASES
    assert (pending["input_file_id"] is not None) == (target in ("oa", "az"))
    listed = [r for r in server.requests if r.method == "GET" and r.path in LISTS.values()]
    assert listed or target == "gem"
    if target == "oa":  # the tag travels in the batch's metadata
        metadata = next(iter(server.openai_batches.batches.values())).metadata
        assert metadata == {"evalwright_submission": pending["tag"]}


def test_a_create_call_that_never_reached_the_api_is_submitted_on_resume(
    project: ProjectDir, server: FakeServer
) -> None:
    server.batch_create_stall = "before"  # killed with no batch made
    out = project.root / "unsent.jsonl"
    _kill_inside_create(project, server, "claude", out, made=0)
    assert _made(server) == 0
    assert len(_pending(out)) == 1
    server.batch_create_stall = None
    _resume(project, "claude", out)
    assert _made(server) == 1
    assert len(_creations(server)) == 2  # the lost call, then the one that made the batch


@pytest.mark.parametrize("target", TARGETS)
def test_a_batch_created_behind_a_lost_connection_is_found_in_the_same_run(
    project: ProjectDir, server: FakeServer, target: str
) -> None:
    server.batch_create_stall = "drop"  # created, then the connection closes unanswered
    out = project.root / "dropped.jsonl"
    suite = project.root / "evals/suite.yaml"
    result = run_cli("eval", suite, "--target", target, "--batch", "--out", out)
    assert result.code == 0, result.err
    assert _made(server) == 1
    assert len(_creations(server)) == 1
    rows = _rows(out)
    assert sorted(r["eval_id"] for r in rows) == [f"case-{i}" for i in range(CASES)]
    assert {r["status"] for r in rows} == {"ok"}
    assert not state_path(out).exists()


def test_a_killed_anthropic_submission_still_running_on_resume_is_reattached(
    project: ProjectDir, server: FakeServer
) -> None:
    """A running Message Batch cannot show its custom_ids: the candidate is taken, and its
    answers, matched by custom_id, are ours."""
    server.batch_delay = 3600
    server.batch_create_stall = "after"
    out = project.root / "running.jsonl"
    _kill_inside_create(project, server, "claude", out, made=1)
    server.batch_create_stall = None
    listed = threading.Event()

    def finish_once_listed() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if any(r.method == "GET" and r.path == LISTS["claude"] for r in server.requests):
                break
            time.sleep(0.01)
        listed.set()
        server.batch_delay = 0  # the batch ends only after the lookup saw it running

    helper = threading.Thread(target=finish_once_listed, daemon=True)
    helper.start()
    _resume(project, "claude", out)
    helper.join(5)
    assert listed.is_set()
    assert len(_creations(server)) == 1
    assert _made(server) == 1


def test_a_pending_submission_that_cannot_be_looked_up_stays_for_the_next_resume(
    project: ProjectDir, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.batch_delay = 3600
    server.batch_create_stall = "after"
    out = project.root / "unlisted.jsonl"
    _kill_inside_create(project, server, "oa", out, made=1)
    server.batch_create_stall = None
    server.batch_delay = 0
    down = Reply(503, b'{"error": {"message": "listing is down"}}')

    def listing_down(*_: object) -> Reply:
        return down

    suite = project.root / "evals/suite.yaml"
    with monkeypatch.context() as broken:
        broken.setattr(server.openai_batches, "_list", listing_down)
        failed = run_cli("eval", suite, "--target", "oa", "--batch", "--resume", out)
    assert failed.code == 1
    rows = _rows(out)
    assert len(rows) == CASES
    assert all("whether the batch tagged" in r["error"]["message"] for r in rows)
    assert len(_pending(out)) == 1  # kept: the batch may well exist
    assert len(_creations(server)) == 1
    again = run_cli("eval", suite, "--target", "oa", "--batch", "--resume", out)
    assert again.code == 0, again.err
    assert len(_creations(server)) == 1
    assert not state_path(out).exists()
    latest = {r["eval_id"]: r["status"] for r in _rows(out)}
    assert latest == {f"case-{i}": "ok" for i in range(CASES)}


@pytest.fixture
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch may take up to a minute to be listed: a test that lists it sooner never waits
    that long, and a loaded machine does not make it miss the batch."""
    monkeypatch.setattr(batching, "LIST_LAG", 60.0)


@pytest.mark.parametrize("target", TARGETS)
def test_a_batch_the_api_lists_late_is_found_by_a_resume_at_once(
    project: ProjectDir, server: FakeServer, target: str, patient: None
) -> None:
    """Killed inside the create call, resumed at once: the batch exists but is not listed yet.
    The resume looks for it again rather than submitting its requests a second time."""
    server.batch_create_stall = "after"
    out = project.root / "late.jsonl"
    _kill_inside_create(project, server, target, out, made=1)
    server.batch_create_stall = None
    with _listed_once_looked_for(server, target):
        _resume(project, target, out)
    assert len(_creations(server)) == 1
    assert _made(server) == 1
    assert _listed(server, target) >= 2  # not found, then found


@pytest.mark.parametrize("target", TARGETS)
def test_a_batch_made_behind_a_dropped_create_and_listed_late_is_found_in_the_same_run(
    project: ProjectDir, server: FakeServer, target: str, patient: None
) -> None:
    server.batch_create_stall = "drop"
    out = project.root / "dropped-late.jsonl"
    suite = project.root / "evals/suite.yaml"
    with _listed_once_looked_for(server, target):
        result = run_cli("eval", suite, "--target", target, "--batch", "--out", out)
    assert result.code == 0, result.err
    assert len(_creations(server)) == 1
    assert {r["status"] for r in _rows(out)} == {"ok"}
    assert not state_path(out).exists()


def test_a_submission_killed_before_its_create_call_went_out_is_sent_again_at_once(
    project: ProjectDir, server: FakeServer, patient: None
) -> None:
    """Killed during the upload: the create call never went out, so there is no batch to look
    for (or wait for)."""

    def hold_the_upload(request: ReceivedRequest) -> Interrupt | None:
        return "before" if request.method == "POST" and request.path == "/v1/files" else None

    server.batch_interrupt = hold_the_upload
    out = project.root / "upload.jsonl"
    stop_batched_run(
        ["evals/suite.yaml", "--target", "oa", "--batch", "--out", str(out)],
        project.root,
        lambda: any(r.path == "/v1/files" for r in server.requests),
        "the upload",
        settle=0.2,
    )
    (pending,) = _pending(out)
    assert pending.get("create_sent_at") is None
    server.batch_interrupt = None
    _resume(project, "oa", out)
    assert not _listed(server, "oa")
    assert len(_creations(server)) == 1


def test_a_case_edited_before_resume_is_sent_as_it_is_now_not_given_the_old_answer(
    project: ProjectDir, server: FakeServer
) -> None:
    """The state file holds a digest of each body sent: a case that no longer builds it
    takes nothing from that batch (its answer is to the old request) and goes again."""

    def echo(request: ReceivedRequest) -> Text:
        return Text(f"fake answer to {request.json['messages'][-1]['content']}")

    server.responder = echo
    server.batch_delay = 3600
    out = project.root / "edited.jsonl"
    stop_batched_run(
        ["evals/suite.yaml", "--target", "oa", "--batch", "--out", str(out)],
        project.root,
        lambda: bool(_submitted(out)),
        "the batch's submission",
    )
    suite = project.root / "evals/suite.yaml"
    suite.write_text(suite.read_text().replace("Question 1?", "Question 1, edited?"))
    server.batch_delay = 0
    _resume(project, "oa", out)
    assert len(_creations(server)) == 2
    assert len(_input_lines(server)) == CASES + 1  # only the edited case went again
    answers = {r["eval_id"]: r["candidate_answer"] for r in _rows(out)}
    assert answers["case-1"] == "fake answer to Question 1, edited?"
    assert answers["case-0"] == "fake answer to Question 0?"
