"""Every worked example (docs/delivery.md#worked-examples) through the ``cli`` and ``codex``
providers, with fakes that record what they receive: the cli gets the LM-mode question and the
chat array, Codex the prompt document ending with the agent-mode question; each row's judge
sees that same question."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalwright.evalfile import load_eval_file
from evalwright.prompts import build_prompt, prompt_document
from tests.conftest import ProjectDir
from tests.e2e.harness import E2E, judge_user_text, question_section
from tests.providers.agent_fakes import (
    add_targets,
    agent_e2e,
    by_id,
    records,
    run_eval,
    target_block,
    write_script,
)
from tests.scenarios import BY_NUMBER, SCENARIOS, write_scenarios

RECORD_CLI = """
import json, os, sys, time
prompt, messages_file, eval_id = sys.argv[1], sys.argv[2], sys.argv[3]
with open(messages_file, encoding="utf-8") as handle:
    messages = json.load(handle)
record = {"prompt": prompt, "messages": messages, "eval_id": eval_id, "time": time.time()}
with open(os.path.join(RECORDS, eval_id + ".json"), "w", encoding="utf-8") as out:
    json.dump(record, out)
print("answer from cli")
"""
RECORD_CODEX = """
import json, os, sys, time
document = sys.stdin.read()
name = str(time.time_ns())
with open(os.path.join(RECORDS, name + ".json"), "w", encoding="utf-8") as out:
    json.dump({"stdin": document, "argv": sys.argv, "time": time.time()}, out)
events = [
    {"type": "thread.started", "thread_id": "t1"},
    {"type": "turn.started"},
    {"type": "item.completed", "item": {"id": "i1", "type": "agent_message",
                                         "text": "answer from codex"}},
    {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
]
for event in events:
    print(json.dumps(event), flush=True)
"""
VERDICT: dict[str, object] = {"score": 1, "hits": [], "misses": [], "reasoning": "ok"}


@pytest.fixture
def e2e(project: ProjectDir, tmp_path: Path) -> Iterator[E2E]:
    """A project wired to the fake server, temporary files kept under ``tmp_path``."""
    yield from agent_e2e(project, tmp_path)


def test_cli_receives_every_scenario_as_written(e2e: E2E, tmp_path: Path) -> None:
    fake = write_script(
        tmp_path / "bin" / "record-cli", RECORD_CLI, {"RECORDS": str(tmp_path / "records")}
    )
    (tmp_path / "records").mkdir()
    add_targets(
        e2e,
        target_block(
            "agent",
            "cli",
            judge_target="judge",
            command=[str(fake), "{PROMPT}", "{MESSAGES_FILE}", "{EVAL_ID}"],
        ),
    )
    write_scenarios(e2e.root)
    e2e.server.judge_verdict = VERDICT
    rows = by_id(run_eval(e2e, "evals/scenarios.yaml", "--target", "agent"))
    seen = {r["eval_id"]: r for r in records(tmp_path / "records")}
    judged = {question_section(judge_user_text(j)) for j in e2e.judges()}
    for scenario in SCENARIOS:
        row, record = rows[scenario.id], seen[scenario.id]
        assert record["prompt"] == scenario.question, scenario.number  # LM mode, byte for byte
        # The array of docs/delivery.md#what-a-chat-api-is-sent:
        assert record["messages"] == scenario.sent, scenario.number
        assert row["raw_request"]["question"] == scenario.question
        assert row["candidate_answer"] == "answer from cli"
        assert row["raw_request"]["question"] in judged
    assert len(e2e.judges()) == len(SCENARIOS)


def test_codex_receives_every_scenario_as_a_prompt_document(e2e: E2E, tmp_path: Path) -> None:
    fake = write_script(
        tmp_path / "bin" / "codex", RECORD_CODEX, {"RECORDS": str(tmp_path / "records")}
    )
    (tmp_path / "records").mkdir()
    add_targets(e2e, target_block("agent", "codex", executable=str(fake), judge_target="judge"))
    path = write_scenarios(e2e.root)
    e2e.server.judge_verdict = VERDICT
    rows = by_id(run_eval(e2e, "evals/scenarios.yaml", "--target", "agent", "--workers", "1"))
    documents = [r["stdin"] for r in records(tmp_path / "records")]
    cases = {case.id: case for case in load_eval_file(path).cases}
    judged = {question_section(judge_user_text(j)) for j in e2e.judges()}
    for scenario, document in zip(SCENARIOS, documents, strict=True):
        inputs = build_prompt(cases[scenario.id], mode="agent")
        row = rows[scenario.id]
        assert document == prompt_document(inputs), scenario.number
        assert document == row["wire_request"]["prompt_document"]
        assert document.endswith("[[ ## user_query ## ]]\n\n" + row["raw_request"]["question"])
        assert row["raw_request"]["question"] == inputs.question
        assert row["raw_request"]["chat_prompt"] is None
        assert row["raw_request"]["question"] in judged
    for number in (5, 13):  # agent mode names files instead of inlining them
        assert (
            rows[BY_NUMBER[number].id]["raw_request"]["question"]
            == BY_NUMBER[number].agent_question
        )
    assert "file://" in json.dumps(documents)
