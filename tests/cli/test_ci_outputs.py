"""``eval --junit FILE`` and ``--summary-md FILE`` (docs/running.md#ci-outputs): the JUnit file
validates against the Jenkins/Ant JUnit schema CI systems read (tests/data/junit-10.xsd), one
``testcase`` per row; the Markdown summary holds the per-target table and the failed cases,
and is appended to ``$GITHUB_STEP_SUMMARY`` when that is set."""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from tests.conftest import REPO, CliResult, ProjectDir, run_cli

XSD = REPO / "tests" / "data" / "junit-10.xsd"
HOSTILE = "bad </failure> <img src=x onerror=alert(1)> | [x](javascript:alert(1)) \x1b[31m\x00 é"

TARGETS = """\
targets:
  - name: default
    provider: mock
    response: "Paris"
    responses: {bad: "Lyon", scripted: "Paris"}
"""


def _suite(project: ProjectDir) -> Path:
    verdict = {"score": 0.2, "hits": [], "misses": ["no <tests>"], "reasoning": HOSTILE}
    judge = project.write("judge.py", f"print({json.dumps(json.dumps(verdict))})\n")
    broken = project.write("broken.py", "import sys\nsys.exit('the grader crashed')\n")
    project.write(".evalwright/targets.yaml", TARGETS)
    project.write(
        "evals/more.yaml",
        "evalcases:\n  - id: other\n    expected_outcome: x\n    input: Capital?\n"
        "    execution:\n      evaluators: [{name: paris, type: contains, value: Paris}]\n",
    )
    lines = [
        "execution:",
        "  evaluators: [{name: paris, type: contains, value: Paris}]",
        "evalcases:",
        "  - {id: good, expected_outcome: x, input: Capital?}",
        "  - {id: bad, expected_outcome: x, input: Capital?}",
        "  - id: scripted",
        "    expected_outcome: x",
        "    input: Capital?",
        "    execution:",
        f"      evaluators: [{{name: judge, type: code, script: {_argv(judge)}}}]",
        "  - id: crashing",
        "    expected_outcome: x",
        "    input: Capital?",
        "    execution:",
        f"      evaluators: [{{name: grader, type: code, script: {_argv(broken)}}}]",
    ]
    return project.write("evals/suite.yaml", "\n".join(lines) + "\n")


def _argv(script: Path) -> str:
    return json.dumps([sys.executable, str(script)])


@pytest.fixture
def ran(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> CliResult:
    _suite(project)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return run_cli(
        "eval",
        project.root / "evals",
        "--out",
        project.root / "r.jsonl",
        "--junit",
        project.root / "junit.xml",
        "--summary-md",
        project.root / "summary.md",
        "--quiet",
        "--workers",
        "1",
    )


def _cases(path: Path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    return {case.attrib["name"]: case for case in root.iter("testcase")}


def test_the_junit_file_validates_against_the_schema(ran: CliResult, project: ProjectDir) -> None:
    assert ran.code == 1, ran.err
    xmlschema.XMLSchema(XSD).validate(project.root / "junit.xml")


def test_one_testcase_per_row(ran: CliResult, project: ProjectDir) -> None:
    root = ET.parse(project.root / "junit.xml").getroot()
    assert (root.tag, root.attrib["tests"], root.attrib["failures"]) == ("testsuites", "5", "2")
    assert root.attrib["errors"] == "1"
    suites = {s.attrib["name"]: s for s in root.iter("testsuite")}
    assert sorted(suites) == ["evals/more.yaml", "evals/suite.yaml"]
    assert suites["evals/suite.yaml"].attrib["tests"] == "4"
    cases = _cases(project.root / "junit.xml")
    assert sorted(cases) == [
        "bad [default]",
        "crashing [default]",
        "good [default]",
        "other [default]",
        "scripted [default]",
    ]
    assert cases["good [default]"].attrib["classname"] == "evals/suite.yaml"
    assert cases["other [default]"].attrib["classname"] == "evals/more.yaml"
    assert list(cases["good [default]"]) == []


def test_a_failure_carries_the_reasoning(ran: CliResult, project: ProjectDir) -> None:
    case = _cases(project.root / "junit.xml")["scripted [default]"]
    failure = case.find("failure")
    assert failure is not None
    assert failure.attrib["message"] == "score 0.200 does not pass (pass rule all)"
    # Text XML cannot hold (ESC, NUL) is shown escaped; everything else is kept as text.
    shown = HOSTILE.replace("\x1b", "\\x1b").replace("\x00", "\\x00")
    why = "evaluator 'judge' scored 0.2, below the pass mark 0.5"
    assert failure.text == f"{why}\njudge: {shown}\n\nmisses:\n- no <tests>\n- {why}"
    assert case.findtext("system-out") == "Paris"


def test_an_error_carries_the_error_message(ran: CliResult, project: ProjectDir) -> None:
    case = _cases(project.root / "junit.xml")["crashing [default]"]
    error = case.find("error")
    assert error is not None
    assert error.attrib["type"] == "evaluator_error"
    assert "the grader crashed" in error.attrib["message"]
    assert error.text == error.attrib["message"]
    assert case.find("failure") is None


def test_the_markdown_summary(ran: CliResult, project: ProjectDir) -> None:
    text = (project.root / "summary.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "## evalwright: FAILED"
    assert "| default | 5 | 0.550 | 2/4 | 1 |" in lines
    assert "### Failed cases (3)" in lines
    failed = [line for line in lines if line.startswith("| evals")]
    assert [line.split(" | ")[1] for line in failed] == ["bad", "scripted", "crashing"]
    assert "error" in failed[2]
    assert "the grader crashed" in failed[2]


def test_the_markdown_summary_shows_hostile_text_as_text(
    ran: CliResult, project: ProjectDir
) -> None:
    text = (project.root / "summary.md").read_text(encoding="utf-8")
    scripted = next(line for line in text.splitlines() if "scripted" in line)
    assert "<img" not in text
    assert "</failure>" not in text
    assert "| evals/suite.yaml | scripted |" in scripted
    assert "&lt;img src=x onerror=alert\\(1\\)&gt;" in scripted
    assert "\\[x\\]\\(javascript:alert\\(1\\)\\)" in scripted
    assert scripted.count(" | ") == 4, "a | in the text does not add a column"
    assert "\x1b" not in text
    assert "\x00" not in text


def test_github_step_summary_is_appended_to(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    _suite(project)
    step = project.write("step.md", "earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", os.fspath(step))
    result = run_cli(
        "eval", project.root / "evals" / "more.yaml", "--out", project.root / "r.jsonl", "--quiet"
    )
    assert result.code == 0, result.err
    lines = step.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == ["earlier step", "## evalwright: passed"]
    assert "| default | 1 | 1.000 | 1/1 | 0 |" in lines
    assert not any(line.startswith("### Failed") for line in lines)


@pytest.mark.parametrize("option", ["--junit", "--summary-md"])
def test_an_output_that_cannot_be_written_is_refused_before_the_run(
    project: ProjectDir, option: str
) -> None:
    _suite(project)
    result = run_cli(
        "eval",
        project.root / "evals",
        "--out",
        project.root / "r.jsonl",
        option,
        project.root / "missing" / "out.xml",
        "--quiet",
    )
    assert result.code == 2
    assert result.err.startswith(f"evalwright: error: {option} ")
    assert "no such directory" in result.err
    assert not (project.root / "r.jsonl").exists(), "nothing ran"


def test_a_resumed_run_reports_every_row_of_its_file(project: ProjectDir) -> None:
    """The kept rows of the earlier part are in the JUnit file too, once each."""
    _suite(project)
    out, junit = project.root / "r.jsonl", project.root / "junit.xml"
    first = run_cli("eval", project.root / "evals", "--out", out, "--quiet")
    assert first.code == 1
    again = run_cli("eval", "--resume", out, project.root / "evals", "--junit", junit, "--quiet")
    assert again.code == 1, again.err
    assert len(_cases(junit)) == 5
    assert len(list(ET.parse(junit).getroot().iter("testcase"))) == 5
