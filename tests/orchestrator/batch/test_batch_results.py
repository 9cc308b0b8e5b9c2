"""A batch's results read line by line: a line that cannot be read (cut off, not JSON, a JSON
array, another shape, a custom_id the batch never held) costs its own request a follow-up
batch, never the batch's other rows nor the run (docs/batch.md#failures-retries-and-expiry)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import pytest

from evalwright.testing import FakeServer, ReceivedRequest, Text
from tests.conftest import ProjectDir, run_cli
from tests.orchestrator.batch import test_batch
from tests.orchestrator.batch.batching import creations, input_lines, rows
from tests.orchestrator.batch.test_batch import CASES

server = test_batch.server
"""test_batch's fixture: the fake server, the targets on it (each retries once) and the suite."""

MARK = "marked fake answer"
"""The answer of case-1 alone: its results line is the one damaged."""

Damage = Callable[[bytes], bytes]


def _request_id(line: bytes) -> str:
    """The custom_id (Gemini: the metadata key) a whole results line carries."""
    value = json.loads(line)
    return value.get("custom_id") or value["metadata"]["key"]


DAMAGES: dict[str, Damage] = {
    "cut off": lambda line: line[: len(line) // 2],
    "not JSON": lambda _: b"<html>502 Bad Gateway</html>",
    "a JSON array": lambda line: b"[" + line + b"]",
    "another shape": lambda line: json.dumps(
        {"custom_id": _request_id(line), "metadata": {"key": _request_id(line)}}
    ).encode(),
    "an unknown custom_id": lambda line: line.replace(
        _request_id(line).encode(), b"0123456789abcdef0123456789abcdef-r9"
    ),
}


def _mark_case_1(server: FakeServer) -> None:
    def answer(request: ReceivedRequest) -> Text | None:
        return Text(MARK) if "Question 1?" in json.dumps(request.json) else None

    server.responder = answer


def _damage(server: FakeServer, damage: Damage, times: int) -> list[int]:
    """Damage case-1's results line the first ``times`` times it is served; how many times
    it was (one item each)."""
    done: list[int] = []

    def damaged(index: int, line: bytes) -> bytes:
        if MARK.encode() not in line or len(done) >= times:
            return line
        done.append(index)
        return damage(line)

    server.batch_damage = damaged
    return done


@pytest.mark.parametrize("damage", list(DAMAGES))
@pytest.mark.parametrize("target", ["oa", "az", "claude", "gem"])
def test_a_results_line_that_cannot_be_read_sends_only_its_request_again(
    project: ProjectDir,
    server: FakeServer,
    caplog: pytest.LogCaptureFixture,
    target: str,
    damage: str,
) -> None:
    _mark_case_1(server)
    damaged = _damage(server, DAMAGES[damage], times=1)
    out = project.root / "damaged.jsonl"
    suite = project.root / "evals/suite.yaml"
    with caplog.at_level(logging.WARNING, logger="evalwright"):
        result = run_cli("eval", suite, "--target", target, "--batch", "--out", out)
    assert result.code == 0, result.err
    assert damaged == [1]
    assert len(creations(server)) == 2  # the batch, then case-1's request alone
    assert len(input_lines(server)) == CASES + 1
    written = {r["eval_id"]: r for r in rows(out)}
    assert sorted(written) == [f"case-{i}" for i in range(CASES)]
    assert {r["status"] for r in written.values()} == {"ok"}
    assert {k: r["attempts"] for k, r in written.items() if r["attempts"] != 1} == {"case-1": 2}
    assert written["case-1"]["candidate_answer"] == MARK
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    said = "the batch did not hold" if damage == "an unknown custom_id" else "cannot be read"
    assert any(said in message for message in warned), warned


@pytest.mark.parametrize("target", ["oa", "claude", "gem"])
def test_an_answer_unreadable_after_the_last_retry_is_an_error_row_that_resume_sends_again(
    project: ProjectDir, server: FakeServer, target: str
) -> None:
    _mark_case_1(server)
    damaged = _damage(server, DAMAGES["cut off"], times=2)  # the batch's, and the retry's
    out = project.root / "unreadable.jsonl"
    suite = project.root / "evals/suite.yaml"
    result = run_cli("eval", suite, "--target", target, "--batch", "--out", out)
    assert result.code == 1
    assert len(damaged) == 2
    written = {r["eval_id"]: r for r in rows(out)}
    assert len(written) == CASES
    assert {k for k, r in written.items() if r["status"] == "error"} == {"case-1"}
    error = written["case-1"]["error"]["message"]
    assert "its answer could not be read" in error
    assert "--resume sends it again" in error
    assert written["case-1"]["attempts"] == 2
    again = run_cli("eval", suite, "--target", target, "--batch", "--resume", out)
    assert again.code == 0, again.err
    assert len(creations(server)) == 3
    assert {r["status"] for r in rows(out)} == {"ok"}
