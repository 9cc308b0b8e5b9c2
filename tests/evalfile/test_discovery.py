"""Searching a directory for eval files (docs/running.md#directories): ``validate`` and ``eval``
say what each file was read as and which YAML or JSON Lines files they skipped and why;
results files, AgentV baselines and promptfoo configs are never read as cases, and naming one
says what it is instead of a pile of unknown-key errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalwright.evalfile.discovery import Found, Skipped, survey
from tests.conftest import DATA, ProjectDir, run_cli

CASES = "evalcases:\n  - id: a\n    expected_outcome: Says hi.\n    input: hi\n"
PF_SAYS = "a promptfoo config: run `evalwright import promptfoo {path}`"
PROMPTFOO = "prompts: ['{{q}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - vars: {q: hi}\n"
# A results row with only the keys detection looks at: not one the run wrote.
pytestmark = pytest.mark.invalid_rows
RESULT_ROW = {"run_id": "r", "eval_id": "a", "target": "t", "score": 1.0}
AGENTV_ROW = {"timestamp": "2026-01-01T00:00:00Z", "test_id": "a", "score": 1, "target": "t"}


@pytest.fixture
def mixed(project: ProjectDir) -> Path:
    """A directory holding one of each kind of file a search meets."""
    project.write("evals/a.yaml", CASES)
    project.write("evals/b.yaml", "$schema: agentv-eval-v2\n" + CASES.replace("a\n", "b\n", 1))
    project.write(
        "evals/c.jsonl",
        json.dumps({"id": "c", "expected_outcome": "Says hi.", "input": "hi"}) + "\n",
    )
    project.write("evals/results.jsonl", json.dumps(RESULT_ROW) + "\n")
    project.write("evals/agentv-results.jsonl", json.dumps(AGENTV_ROW) + "\n")
    project.write("evals/suite.baseline.jsonl", json.dumps({"id": "x", "input": "hi"}) + "\n")
    project.write("evals/promptfooconfig.yaml", "description: x\n")
    project.write("evals/pf.yaml", PROMPTFOO)
    project.write("evals/notes.yaml", "title: not an eval file\n")
    head_suite = DATA / "agentv-head-examples" / "basic" / "evals" / "suite.yaml"
    shutil.copy(head_suite, project.root / "evals" / "s.yaml")
    return project.root / "evals"


def test_survey_says_what_each_file_is(mixed: Path) -> None:
    found, skipped = survey(mixed)
    assert found == [
        Found(mixed / "a.yaml", "evalwright YAML"),
        Found(mixed / "b.yaml", "AgentV YAML"),
        Found(mixed / "c.jsonl", "JSONL cases"),
    ]
    pf = "a promptfoo config: run `evalwright import promptfoo {}`"
    assert skipped == [
        Skipped(
            mixed / "agentv-results.jsonl",
            "an AgentV results file (its rows have test_id and score), not cases",
        ),
        Skipped(mixed / "notes.yaml", "no top-level 'evalcases' key"),
        Skipped(mixed / "pf.yaml", pf.format(mixed / "pf.yaml")),
        Skipped(mixed / "promptfooconfig.yaml", pf.format(mixed / "promptfooconfig.yaml")),
        Skipped(
            mixed / "results.jsonl",
            "an evalwright results file (its rows have run_id and eval_id), not cases",
        ),
        Skipped(
            mixed / "s.yaml",
            "an AgentV suite (tests, vars, assert): "
            f"run `evalwright import agentv {mixed / 's.yaml'}`",
        ),
        Skipped(mixed / "suite.baseline.jsonl", "an AgentV baseline (results) file, not cases"),
    ]


def test_validate_prints_what_it_read_and_skipped(mixed: Path) -> None:
    result = run_cli("validate", mixed)
    assert result.code == 0, result.out + result.err
    assert f"note: {mixed / 'b.yaml'}: read as AgentV YAML" in result.err.splitlines()
    skipped = f"note: {mixed / 'suite.baseline.jsonl'}: skipped: an AgentV baseline"
    assert any(line.startswith(skipped) for line in result.err.splitlines())
    assert "3 files checked: 0 error(s)" in result.err


def test_eval_prints_what_it_skipped_not_each_plain_file(mixed: Path) -> None:
    result = run_cli("eval", mixed, "--dry-run", "--out", mixed.parent / "r.jsonl")
    assert result.code == 0, result.err
    assert "read as JSONL cases" not in result.err  # a run's log names only the exceptions
    assert f"note: {mixed / 'results.jsonl'}: skipped: an evalwright results file" in result.err


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("pf.yaml", PROMPTFOO, PF_SAYS),
        ("promptfooconfig.yaml", "tests: []\n", PF_SAYS),
        (
            "r.jsonl",
            json.dumps(RESULT_ROW) + "\n",
            "an evalwright results file (its rows have run_id and eval_id), not cases",
        ),
        (
            "x.baseline.jsonl",
            json.dumps(AGENTV_ROW) + "\n",
            "an AgentV baseline (results) file, not cases",
        ),
    ],
)
def test_naming_a_file_that_holds_no_cases_says_what_it_is(
    project: ProjectDir, name: str, text: str, says: str
) -> None:
    path = project.write(name, text)
    expected = says.format(path=path)
    checked = run_cli("validate", path)
    assert (checked.code, checked.out.strip()) == (1, f"{path}:1:1: error: {expected}")
    ran = run_cli("eval", path, "--dry-run")
    assert ran.code == 2
    assert expected in ran.err
    assert "Traceback" not in checked.out + checked.err + ran.out + ran.err


def test_agentv_head_examples_are_never_read_as_cases() -> None:
    """In AgentV HEAD's examples/features, its test rows (``id``, ``vars``, ``assert``), its
    transcript fixtures and its suites (tests inline or in another file) are skipped, each
    saying what it is, instead of 62 errors about keys evalwright's cases do not have."""
    head = DATA / "agentv-head-examples"
    found, skipped = survey(head)
    assert found == []
    reasons = {s.path.relative_to(head).as_posix(): s.reason for s in skipped}
    rows = "AgentV tests (id, vars, assert): import the suite that names them with "
    for name in ("basic-jsonl/evals/cases.jsonl", "sdk-python/evals/cases.jsonl"):
        assert reasons[name].startswith(rows), name
    transcript = "copilot-transcript-replay/fixtures/copilot-transcript.jsonl"
    assert reasons[transcript].startswith("an AgentV transcript")
    for suite in ("basic-jsonl/evals/suite.yaml", "sdk-python/evals/suite.yaml"):
        assert reasons[suite] == (
            f"an AgentV suite (tests, vars, assert): run `evalwright import agentv {head / suite}`"
        )
