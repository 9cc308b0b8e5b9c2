"""A case that cannot be sent, built or written is an error row, never a missing row
(running.md, "The results file"). The broken cases are made through the Python API, so the
runner is tested whatever the loader accepts."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from evalwright.evalfile.resolved import CaseMessage, TextSegment
from evalwright.orchestrator.plan import Plan, RunOptions, load_plan
from evalwright.orchestrator.run import SilentReporter, execute
from evalwright.orchestrator.summary import RunSummary
from tests.conftest import ProjectDir
from tests.e2e.harness import E2E, start

IDS = ["first", "broken", "last"]
LONE_SURROGATE = "\udfff"


@pytest.fixture
def e2e(project: ProjectDir) -> Iterator[E2E]:
    """A project whose targets point at a fake server in a thread."""
    yield from start(project)


def _suite(project: ProjectDir, evaluator: str) -> Path:
    lines = ["execution:", "  evaluators:", f"    - {evaluator}", "evalcases:"]
    for case_id in IDS:
        lines += [f"  - id: {case_id}", "    expected_outcome: x", f"    input: Say {case_id}."]
    return project.write("evals/suite.yaml", "\n".join(lines) + "\n")


def _break(plan: Plan, text: Any) -> None:
    """Give the case ``broken`` a question holding ``text``."""
    cases = plan.sources[0].cases
    assert isinstance(cases, list)
    index = IDS.index("broken")
    message = CaseMessage("user", (TextSegment(cast(str, text)),))
    cases[index] = dataclasses.replace(cases[index], input_messages=(message,))


def _run(options: RunOptions, text: Any) -> tuple[RunSummary, list[dict[str, Any]]]:
    plan = load_plan(options)
    _break(plan, text)
    summary = asyncio.run(execute(plan, SilentReporter()))
    assert options.out is not None
    lines = options.out.read_text(encoding="utf-8").splitlines()
    return summary, [json.loads(line) for line in lines]


def _check(summary: RunSummary, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One row per case, the broken one an error, the run's exit code 1; the broken row."""
    assert sorted(r["eval_id"] for r in rows) == sorted(IDS)
    states = {r["eval_id"]: r["status"] for r in rows}
    assert states == {"first": "ok", "broken": "error", "last": "ok"}, rows
    assert summary.exit_code() == 1
    assert (summary.done, summary.errors) == (3, 1)
    return next(r for r in rows if r["eval_id"] == "broken")


def test_a_case_the_api_cannot_be_sent_is_an_error_row(e2e: E2E) -> None:
    path = _suite(e2e.project, "{name: says, type: contains, value: fake}")
    out = e2e.root / "r.jsonl"
    options = RunOptions([str(path)], targets=["oa"], out=out, workers=1)
    summary, rows = _run(options, f"Say {LONE_SURROGATE} now.")
    broken = _check(summary, rows)
    assert broken["error"]["type"] == "target_error"
    assert "cannot be written" in broken["error"]["message"]
    assert "not valid Unicode" in broken["error"]["message"]
    assert broken["raw_request"] is None, "it holds the text that cannot be written"
    assert broken["wire_request"] is None
    assert (broken["eval_file"], broken["target"]) == ("evals/suite.yaml", "oa")
    assert len(e2e.candidates()) == 2, "nothing of the broken case reached the server"


@pytest.mark.parametrize(
    "evaluator",
    ["{name: says, type: contains, value: mock}", "{name: judge, type: llm_judge}"],
    ids=["built-in-check", "judge"],
)
def test_a_row_that_cannot_be_written_becomes_an_error_row(
    project: ProjectDir, evaluator: str
) -> None:
    path = _suite(project, evaluator)
    out = project.root / "r.jsonl"
    options = RunOptions([str(path)], dry_run=True, out=out)
    summary, rows = _run(options, f"Say {LONE_SURROGATE} now.")
    broken = _check(summary, rows)
    assert broken["raw_request"] is None
    assert broken["candidate_answer"] == "This is a mock answer.", "what could be kept is kept"
    assert broken["score"] is None


def test_a_case_whose_prompt_cannot_be_built_is_an_error_row(project: ProjectDir) -> None:
    path = _suite(project, "{name: says, type: contains, value: mock}")
    out = project.root / "r.jsonl"
    summary, rows = _run(RunOptions([str(path)], dry_run=True, out=out), 12345)
    broken = _check(summary, rows)
    assert broken["error"]["message"].startswith("internal error: TypeError")
    assert (broken["raw_request"], broken["wire_request"]) == (None, None)
    assert broken["latency_ms"] is None
