"""Fixtures of the command-line tests: a fake OpenAI server whose answers to a flaky case
vary from repeat to repeat (docs/running.md#repeats-and-reliability)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalwright.testing import FakeServer, Text
from evalwright.testing.recorded import ReceivedRequest
from tests.conftest import CliResult, ProjectDir, run_cli

EVAL = """execution:
  evaluators:
    - {name: says-fine, type: contains, value: fine}
evalcases:
  - id: steady
    expected_outcome: Fine.
    input: Q steady
  - id: flaky
    expected_outcome: Fine.
    input: Q flaky
  - id: never
    expected_outcome: Fine.
    input: Q never
"""
K = 5
FLAKY = ("fine 0", "bad 1", "fine 2", "bad 3", "bad 4")
"""What the fake API answers to ``Q flaky`` on its 1st, 2nd, ... request: 2 of 5 pass."""
FLAKY_ONLY = """  - id: flaky
    expected_outcome: Fine.
    input: Q flaky
"""


def question_of(request: ReceivedRequest) -> str:
    """The last message a request sent: the case's question."""
    return str(request.json["messages"][-1]["content"])


class FlakyAnswers:
    """Answers ``Q steady`` "fine", ``Q never`` "bad", and ``Q flaky`` from FLAKY in turn
    (a judge gets the server's verdict)."""

    def __init__(self) -> None:
        self.flaky = itertools.cycle(FLAKY)

    def __call__(self, request: ReceivedRequest) -> Any:
        question = question_of(request)
        if not question.startswith("Q "):
            return None  # a judge's request: the server's judge_verdict
        if question == "Q flaky":
            return Text(next(self.flaky))
        return Text("fine" if question == "Q steady" else f"bad {len(question)}")


@pytest.fixture
def repeat_server(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """Target ``a`` (OpenAI, no retries) at a fake server answering as :class:`FlakyAnswers`;
    the eval file :data:`EVAL` of three cases."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer.in_thread() as fake:
        fake.responder = FlakyAnswers()
        project.write(
            ".evalwright/targets.yaml",
            f"""targets:
  - name: a
    provider: openai
    model: gpt-a
    base_url: {fake.url}/v1
    retry: {{max_retries: 0}}
""",
        )
        project.write("evals/rel.yaml", EVAL)
        yield fake


def eval_rel(project: ProjectDir, out: str, *options: str) -> CliResult:
    """``evalwright eval`` of evals/rel.yaml on target ``a``, one worker, into ``out``."""
    return run_cli(
        "eval", project.root / "evals/rel.yaml", "--target", "a", "--workers", "1", "--out",
        project.root / out, *options,
    )  # fmt: skip


def result_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a results file, as JSON."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
