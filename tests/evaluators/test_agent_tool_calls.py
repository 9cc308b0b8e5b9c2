"""Agents' tool calls reach the trajectory checks (docs/tools.md#where-the-calls-come-from):
a ``cli`` agent's report in ``$EVALWRIGHT_TOOL_CALLS_FILE`` and Codex's commands, through
``evalwright eval`` with real subprocesses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ProjectDir
from tests.e2e.harness import E2E
from tests.providers.agent_fakes import (
    add_targets,
    agent_e2e,
    by_id,
    run_eval,
    target_block,
    write_cases,
    write_script,
)
from tests.providers.test_codex import COMMAND, fake_codex

AGENT = """\
import json, os, sys
path = os.environ["EVALWRIGHT_TOOL_CALLS_FILE"]
lines = REPORTS[os.environ["EVALWRIGHT_EVAL_ID"]]
if lines is not None:
    with open(path, "w", encoding="utf-8") as out:
        out.write("".join(line + "\\n" for line in lines))
print("Booked.")
"""
SEARCH = '{"name": "search_flights", "arguments": {"origin": "SFO", "date": "2024-05-01"}}'
BOOK = '{"id": "b1", "name": "book", "arguments": {"flight": "UA1", "seats": 2}}'
REPORTS: dict[str, list[str] | None] = {
    "both": [SEARCH, "", BOOK],
    "twice": [SEARCH, SEARCH],
    "silent": None,
    "garbled": [SEARCH, '{"name": "book", "arguments": "UA1"}'],
}
EVALUATORS: list[dict[str, Any]] = [
    {"name": "booked", "type": "tool_called", "tool": "book", "arguments": {"flight": "UA1"}},
    {"name": "order", "type": "tool_sequence", "calls": ["search_flights", "book"]},
    {"name": "f1", "type": "tool_call_f1", "calls": ["search_flights", "book"]},
    {"name": "no-cancel", "type": "tool_called", "tool": "cancel", "negate": True},
]


@pytest.fixture
def e2e(project: ProjectDir, tmp_path: Path) -> Iterator[E2E]:
    """A fake-server project (TMPDIR under this test's tmp_path)."""
    yield from agent_e2e(project, tmp_path)


def scores(row: dict[str, Any]) -> dict[str, float]:
    return {r["name"]: r["score"] for r in row["evaluator_results"]}


def test_a_cli_agents_reported_calls_are_scored(e2e: E2E, tmp_path: Path) -> None:
    agent = write_script(tmp_path / "agent.py", AGENT, {"REPORTS": REPORTS})
    add_targets(e2e, target_block("agent", "cli", command=[str(agent)]))
    cases = [{"id": name, "input": "Book UA1."} for name in REPORTS]
    write_cases(e2e.project, "evals/a.jsonl", cases, EVALUATORS)

    rows = by_id(run_eval(e2e, "evals/a.jsonl", "--target", "agent"))

    assert rows["both"]["candidate_answer"] == "Booked."
    assert scores(rows["both"]) == {"booked": 1.0, "order": 1.0, "f1": 1.0, "no-cancel": 1.0}
    twice = scores(rows["twice"])
    assert (twice["booked"], twice["order"], twice["no-cancel"]) == (0.0, 0.0, 1.0)
    assert twice["f1"] == pytest.approx(0.5)  # precision 1/2, recall 1/2
    assert scores(rows["silent"]) == {"booked": 0.0, "order": 0.0, "f1": 0.0, "no-cancel": 1.0}
    garbled = rows["garbled"]
    assert (garbled["status"], garbled["error"]["type"]) == ("error", "target_error")
    assert garbled["error"]["message"] == (
        "$EVALWRIGHT_TOOL_CALLS_FILE line 2: 'arguments' must be a JSON object"
    )


def test_codex_commands_are_calls_of_shell(e2e: E2E, tmp_path: Path) -> None:
    fake = fake_codex(tmp_path)
    add_targets(e2e, target_block("codex", "codex", executable=str(fake)))
    evaluators = [
        {"name": "ran", "type": "tool_called", "tool": "shell", "arguments": {"command": COMMAND}},
        {"name": "once", "type": "tool_called", "tool": "shell", "max": 1},
        {
            "name": "no-rm",
            "type": "tool_called",
            "tool": "shell",
            "negate": True,
            "arguments_schema": {"properties": {"command": {"pattern": "rm "}}},
        },
    ]
    write_cases(e2e.project, "evals/c.jsonl", [{"id": "c", "input": "List."}], evaluators)

    rows = by_id(run_eval(e2e, "evals/c.jsonl", "--target", "codex"))

    assert scores(rows["c"]) == {"ran": 1.0, "once": 1.0, "no-rm": 1.0}
    negated = rows["c"]["evaluator_results"][2]["reasoning"]
    assert negated.startswith("negated (score 1 = 1 - 0): 0 matching call(s) of 'shell'")


TURN_AGENT = """\
import json, os
# The last user turn names the tool to call (the messages a chat API would get).
with open(os.environ["EVALWRIGHT_MESSAGES_FILE"], encoding="utf-8") as f:
    last = json.load(f)[-1]["content"]
with open(os.environ["EVALWRIGHT_TOOL_CALLS_FILE"], "w", encoding="utf-8") as out:
    out.write(json.dumps({"name": last, "arguments": {}}) + "\\n")
print("done " + last)
"""


def test_each_turn_of_a_live_conversation_sees_its_own_calls(e2e: E2E, tmp_path: Path) -> None:
    agent = write_script(tmp_path / "turns.py", TURN_AGENT)
    add_targets(e2e, target_block("agent", "cli", command=[str(agent)]))

    def turn(tool: str) -> dict[str, Any]:
        only = [{"name": f"{tool}-only", "type": "tool_sequence", "calls": [tool], "mode": "exact"}]
        return {"content": tool, "evaluators": only}

    case = {"id": "t", "turns": [turn("search_flights"), turn("book")]}
    whole = [{"name": "last", "type": "tool_called", "tool": "book"}]
    write_cases(e2e.project, "evals/t.jsonl", [case], whole)

    row = run_eval(e2e, "evals/t.jsonl", "--target", "agent")[0]

    turns = [{r["name"]: r["score"] for r in t["evaluator_results"]} for t in row["turns"]]
    assert turns == [{"search_flights-only": 1.0}, {"book-only": 1.0}]
    assert scores(row) == {"last": 1.0}


def test_a_cli_agent_may_take_the_calls_file_as_a_placeholder(e2e: E2E, tmp_path: Path) -> None:
    agent = write_script(
        tmp_path / "placed.py",
        """\
        import sys
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            out.write(SEARCH + "\\n" + BOOK + "\\n")
        print("Booked.")
        """,
        {"SEARCH": SEARCH, "BOOK": BOOK},
    )
    add_targets(e2e, target_block("agent", "cli", command=[str(agent), "{TOOL_CALLS_FILE}"]))
    write_cases(e2e.project, "evals/a.jsonl", [{"id": "both", "input": "Book."}], EVALUATORS)

    [row] = run_eval(e2e, "evals/a.jsonl", "--target", "agent")

    assert scores(row) == {"booked": 1.0, "order": 1.0, "f1": 1.0, "no-cancel": 1.0}
    assert row["wire_request"]["argv"][1].endswith("tool_calls.jsonl")
