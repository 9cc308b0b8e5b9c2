"""``evalwright prompt`` as a person reads it: clearly sectioned, and errors without a traceback."""

from __future__ import annotations

import json

from tests.conftest import ProjectDir, run_cli
from tests.scenarios import BY_NUMBER, write_scenarios


def test_human_output_has_every_section(project: ProjectDir) -> None:
    path = write_scenarios(project.root, [BY_NUMBER[10], BY_NUMBER[11]])
    result = run_cli("prompt", path)
    assert result.code == 0, result.err
    out = result.out
    assert out.count("=== scenario-") == 2
    assert "=== scenario-10 (evals/scenarios.yaml, lm mode) " in out
    for title in (
        "--- question ",
        "--- guidelines (1 file(s)) ",
        "--- input files ",
        "--- chat prompt ",
    ):
        assert title in out
    assert '<file path="style.instructions.md">\nBe concise.\n</file>' in out
    assert "[2] assistant\nok\n  -> tool call c1 run(" in out
    assert "[3] tool (tool_call_id=c1, name=run)\na.txt" in out


def test_a_case_without_chat_prompt_shows_what_is_sent(project: ProjectDir) -> None:
    result = run_cli("prompt", write_scenarios(project.root, [BY_NUMBER[1]]))
    assert "--- messages sent (no chat prompt: system + the question) " in result.out
    assert "[0] system\nYou are a careful assistant." in result.out
    assert "--- guidelines (0 file(s)) ----" in result.out
    assert "(none)" in result.out


def test_human_output_with_a_target_shows_wire_and_notes(project: ProjectDir) -> None:
    path = write_scenarios(project.root, [BY_NUMBER[12], BY_NUMBER[3]])
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: g\n    provider: gemini\n    model: gemini-x\n",
    )
    result = run_cli("prompt", path, "--target", "g")
    assert result.code == 0, result.err
    assert "--- wire request (g) " in result.out
    assert '"api": "gemini.generateContent"' in result.out
    assert "unmatched_tool_result: chat_prompt[2]" in result.out
    assert "(none: lossless)" in result.out


def test_no_matching_case_is_a_clear_error(project: ProjectDir) -> None:
    result = run_cli("prompt", write_scenarios(project.root), "--eval-id", "nothing-*")
    assert result.code == 2
    assert result.err.startswith("evalwright: error: no case of ")
    assert "--eval-id 'nothing-*'" in result.err
    assert "Traceback" not in result.err


def test_a_broken_file_prints_located_errors(project: ProjectDir) -> None:
    path = project.write("evals/bad.yaml", "evalcases:\n  - id: a\n    input: hi\n")
    result = run_cli("prompt", path)
    assert result.code == 2
    assert "bad.yaml:2:5: error: evalcases[0].expected_outcome: missing required key" in result.err


def test_prompt_takes_a_targets_file_like_eval(project: ProjectDir) -> None:
    """``--targets FILE``: a targets file outside the project's ``.evalwright``."""
    eval_file = project.write("e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    targets = project.write(
        "elsewhere/targets.yaml",
        "targets:\n  - {name: t, provider: openai, model: m, base_url: 'http://127.0.0.1:9/v1',"
        " system_prompt: From the other file.}\n",
    )
    result = run_cli("prompt", eval_file, "--target", "t", "--targets", targets, "--json")
    assert result.code == 0, result.err
    body = result.json()["wire_request"]["body"]
    assert body["messages"][0] == {"role": "system", "content": "From the other file."}
    without = run_cli("prompt", eval_file, "--target", "t", "--json")
    assert without.code == 2
    assert "no targets file" in without.err
    missing = run_cli("prompt", eval_file, "--target", "t", "--targets", project.root / "no.yaml")
    assert missing.code == 2
    assert "no.yaml:1:1: error: cannot read the file" in missing.err


def test_json_lines_stay_one_line_for_every_reader(project: ProjectDir) -> None:
    """Found by fuzzing: U+2028 in a text split a JSON line for readers such as Python's
    ``splitlines``; JSON Lines output escapes the Unicode line ends (the value is unchanged)."""
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - {name: default, provider: mock, response: 'x\u2029y'}\n",
    )
    eval_file = project.write(
        "e.jsonl",
        '{"id": "a", "expected_outcome": "o", "input": "one\\u2028two\\u0085three"}\n'
        '{"id": "b", "expected_outcome": "o", "input": "plain"}\n',
    )
    result = run_cli("prompt", eval_file, "--json")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert len(lines) == 2
    assert "\u2028" not in result.out
    assert json.loads(lines[0])["question"] == "one\u2028two\x85three"
    out = project.root / "r.jsonl"
    assert run_cli("eval", eval_file, "--out", out, "--quiet").code == 0
    rows = out.read_text(encoding="utf-8").splitlines()
    assert len(rows) == 2
    assert {json.loads(row)["candidate_answer"] for row in rows} == {"x\u2029y"}
