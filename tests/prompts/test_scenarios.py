"""docs/delivery.md#worked-examples: each example's question and chat prompt, through the
library and through ``evalwright prompt --json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evalwright.evalfile import LoadedCase, load_eval_file
from evalwright.prompts import build_prompt, prompt_document
from tests.conftest import ProjectDir, run_cli
from tests.scenarios import BY_NUMBER, SCENARIOS, Scenario, write_scenarios


@pytest.fixture
def scenario_cases(project: ProjectDir) -> dict[str, LoadedCase]:
    """Every scenario loaded from one real eval file."""
    suite = load_eval_file(write_scenarios(project.root))
    return {case.id: case for case in suite.cases}


def _json(messages: Any) -> list[dict[str, Any]] | None:
    return None if messages is None else [m.to_json() for m in messages]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"s{s.number}")
def test_library_builds_the_scenario(
    scenario: Scenario, scenario_cases: dict[str, LoadedCase]
) -> None:
    inputs = build_prompt(scenario_cases[scenario.id], system_prompt=scenario.system_prompt)
    assert inputs.question == scenario.question
    assert _json(inputs.chat_prompt) == scenario.chat_prompt
    assert _json(inputs.messages) == scenario.sent
    assert [note.rule for note in inputs.notes] == scenario.notes


def test_cli_prints_every_scenario(project: ProjectDir) -> None:
    result = run_cli("prompt", write_scenarios(project.root), "--json")
    assert result.code == 0, result.err
    printed = {item["eval_id"]: item for item in result.json_lines()}
    assert len(printed) == len(SCENARIOS)
    for scenario in SCENARIOS:
        item = printed[scenario.id]
        assert item["question"] == scenario.question, scenario.number
        assert item["chat_prompt"] == scenario.chat_prompt, scenario.number
        assert item["messages"] == scenario.sent, scenario.number
        assert item["eval_file"] == "evals/scenarios.yaml"


def test_cli_prints_one_object_for_one_case(project: ProjectDir) -> None:
    path = write_scenarios(project.root)
    result = run_cli("prompt", path, "--json", "--eval-id", "scenario-11")
    assert result.code == 0, result.err
    item = result.json()
    assert item["chat_prompt"][2]["tool_calls"] == [
        {"id": "c1", "name": "run", "arguments": {"cmd": "ls"}}
    ]
    assert set(item) >= {
        "eval_id",
        "eval_file",
        "question",
        "guidelines",
        "guideline_paths",
        "input_files",
        "chat_prompt",
        "messages",
    }


def test_guidelines_and_paths(scenario_cases: dict[str, LoadedCase], project: ProjectDir) -> None:
    inputs = build_prompt(scenario_cases["scenario-8"])
    assert inputs.guidelines == (
        '<file path="style.instructions.md">\nBe concise.\n</file>\n\n'
        '<file path="security.instructions.md">\nNo secrets.\n</file>'
    )
    evals = (project.root / "evals").resolve()
    assert inputs.guideline_paths == (
        str(evals / "style.instructions.md"),
        str(evals / "security.instructions.md"),
    )
    assert inputs.input_files == ()
    assert build_prompt(scenario_cases["scenario-5"]).input_files == (str(evals / "code.js"),)
    assert build_prompt(scenario_cases["scenario-1"]).guidelines == ""


@pytest.mark.parametrize("number", [5, 13])
def test_agent_mode_names_files_instead_of_inlining(
    number: int, scenario_cases: dict[str, LoadedCase]
) -> None:
    scenario = BY_NUMBER[number]
    inputs = build_prompt(scenario_cases[scenario.id], mode="agent")
    assert inputs.question == scenario.agent_question
    assert inputs.chat_prompt is None


def test_scenario_13_prompt_document(scenario_cases: dict[str, LoadedCase]) -> None:
    inputs = build_prompt(scenario_cases["scenario-13"], mode="agent")
    uri = Path(inputs.input_files[0]).as_uri()
    assert uri.endswith("/evals/code.js")
    assert prompt_document(inputs) == (
        "Read these attached files:\n"
        f"- {uri}\n"
        "If a file cannot be read, stop and answer: ERROR: missing file <path>\n"
        "\n"
        "[[ ## user_query ## ]]\n"
        "\n"
        'Fix\n<file: path="code.js">'
    )


def test_prompt_document_lists_guidelines_first(scenario_cases: dict[str, LoadedCase]) -> None:
    inputs = build_prompt(scenario_cases["scenario-10"], mode="agent")
    document = prompt_document(inputs)
    lines = document.split("\n")
    assert lines[0] == "Read these guideline files first:"
    assert lines[1] == "- " + Path(inputs.guideline_paths[0]).as_uri()
    assert lines[2] == "Read these attached files:"
    assert lines[3].endswith("/evals/notes.md")
    assert document.endswith("[[ ## user_query ## ]]\n\n" + inputs.question)


def test_prompt_document_without_files_is_only_the_query(
    scenario_cases: dict[str, LoadedCase],
) -> None:
    inputs = build_prompt(scenario_cases["scenario-3"], mode="agent")
    assert prompt_document(inputs) == "[[ ## user_query ## ]]\n\n" + inputs.question


def test_cli_agent_mode(project: ProjectDir) -> None:
    result = run_cli(
        "prompt",
        write_scenarios(project.root),
        "--json",
        "--mode",
        "agent",
        "--eval-id",
        "scenario-13",
    )
    item = result.json()
    assert item["question"] == 'Fix\n<file: path="code.js">'
    assert item["chat_prompt"] is None
    # ``messages`` is always what a chat API would receive: LM mode, never null.
    assert item["messages"] == BY_NUMBER[13].sent
