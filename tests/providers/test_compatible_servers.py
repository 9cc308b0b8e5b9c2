"""OpenAI-compatible servers that differ from OpenAI (docs/targets.md, docs/delivery.md): what
they refuse or ignore is said on the row or in the error, with the setting that fixes it. The
whole runner in this process against the fake server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from evalwright.testing import Text
from tests.conftest import ProjectDir
from tests.e2e.harness import E2E, start, targets_yaml

EVAL_FILE = "evals/one.yaml"
EVAL = """evalcases:
  - id: hi
    expected_outcome: Greets.
    input: Say hi.
"""

VERDICT = {"score": 1, "hits": [], "misses": [], "reasoning": "ok"}


@pytest.fixture
def e2e(project: ProjectDir) -> Iterator[E2E]:
    """A project whose targets point at a fake server in a thread."""
    yield from start(project, judge_verdict=VERDICT)


def _targets(e2e: E2E, extra: str) -> None:
    e2e.project.write(".evalwright/targets.yaml", targets_yaml(e2e.server.url, extra))


def _row(e2e: E2E, code: int = 0) -> dict[str, Any]:
    e2e.project.write(EVAL_FILE, EVAL)
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "r.jsonl")
    assert result.code == code, result.err
    (row,) = e2e.rows("r.jsonl")
    return row


def test_a_server_that_ignores_the_output_limit_gets_a_note_with_the_fix(e2e: E2E) -> None:
    _targets(e2e, "\n    max_output_tokens: 16")
    e2e.server.enqueue(Text("hi " * 40, output_tokens=40))

    row = _row(e2e)

    assert row["wire_request"]["body"]["max_completion_tokens"] == 16
    assert row["delivery_notes"] == [
        {
            "rule": "output_limit_ignored",
            "detail": "the answer has 40 output tokens but max_completion_tokens was 16: the "
            "server ignores that field; set the target's max_tokens_field: max_tokens",
        }
    ]


def test_an_answer_within_the_limit_gets_no_note(e2e: E2E) -> None:
    _targets(e2e, "\n    max_output_tokens: 16")
    e2e.server.enqueue(Text("hi", output_tokens=16))

    assert _row(e2e)["delivery_notes"] == []


def test_the_note_comes_back_with_a_cached_answer(e2e: E2E) -> None:
    _targets(e2e, "\n    max_output_tokens: 16")
    e2e.server.enqueue(Text("hi " * 40, output_tokens=40))
    e2e.project.write(EVAL_FILE, EVAL)
    for out in ("first.jsonl", "second.jsonl"):
        assert e2e.run("eval", EVAL_FILE, "--target", "oa", "--cache", "--out", out).code == 0
    first, second = e2e.rows("first.jsonl")[0], e2e.rows("second.jsonl")[0]

    assert second["cache"] == "hit"
    assert second["delivery_notes"] == first["delivery_notes"]
    assert [n["rule"] for n in second["delivery_notes"]] == ["output_limit_ignored"]
