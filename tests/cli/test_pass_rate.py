"""Gates over repeats through the command line (docs/running.md#gates-over-repeats): with
``--repeat K`` a case passes when at least ``pass_rate`` of its repeats pass (every one
without it), set by ``--pass-rate``, a file's or a case's ``execution.pass_rate``; the flaky
cases it lets through are named as a warning, and the exit status, the JUnit file and the
Markdown summary follow the same verdict. Against the fake server of test_repeat.py."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from evalwright.testing import FakeServer
from tests.cli.conftest import EVAL, FLAKY_ONLY, K, eval_rel, result_rows
from tests.conftest import ProjectDir, run_cli
from tests.results.samples import sample_row

STEADY_AND_FLAKY = EVAL.split("  - id: never", maxsplit=1)[0]
"""``steady`` passes its 5 repeats, ``flaky`` 2 of 5 (0.4)."""


@pytest.fixture
def two_cases(project: ProjectDir, repeat_server: FakeServer) -> FakeServer:
    """The fake server, and an eval file of ``steady`` and ``flaky`` only."""
    project.write("evals/rel.yaml", STEADY_AND_FLAKY)
    return repeat_server


def _failed_repeats(path: str, project: ProjectDir) -> list[str]:
    root = ET.parse(project.root / path).getroot()
    return [c.attrib["name"] for c in root.iter("testcase") if c.find("failure") is not None]


def test_a_case_within_its_pass_rate_passes_and_is_named_flaky(
    project: ProjectDir, two_cases: FakeServer
) -> None:
    result = eval_rel(
        project, "r.jsonl", "--repeat", str(K), "--pass-rate", "0.4",
        "--junit", str(project.root / "j.xml"), "--summary-md", str(project.root / "s.md"),
    )  # fmt: skip

    assert result.code == 0, result.out
    lines = result.out.splitlines()
    flaky = "flaky on a (passed 2 of 5 repeats (pass_rate 0.4))"
    assert f"flaky, passed within their pass_rate: {flaky}" in lines
    assert not any(line.startswith("failed:") for line in lines)
    assert {r["pass_rate"] for r in result_rows(project.root / "r.jsonl")} == {0.4}
    # The JUnit file agrees: flaky's three failed repeats are no failures, each says why.
    root = ET.parse(project.root / "j.xml").getroot()
    assert root.attrib["failures"] == "0"
    notes = [c.findtext("system-out") for c in root.iter("testcase")]
    assert notes.count("this repeat failed; the case passed 2 of 5 repeats (pass_rate 0.4)") == 3
    markdown = (project.root / "s.md").read_text(encoding="utf-8")
    assert markdown.startswith("## evalwright: passed")
    assert "Failed cases" not in markdown


def test_a_case_below_its_pass_rate_fails_the_run(
    project: ProjectDir, two_cases: FakeServer
) -> None:
    result = eval_rel(
        project, "r.jsonl", "--repeat", str(K), "--pass-rate", "0.6",
        "--junit", str(project.root / "j.xml"),
    )  # fmt: skip

    assert result.code == 1
    lines = result.out.splitlines()
    assert "failed: flaky on a (passed 2 of 5 repeats (pass_rate 0.6))" in lines
    assert "pass rule all, pass mark 0.5: 1 case(s) failed" in lines
    failed = _failed_repeats("j.xml", project)
    assert failed == ["flaky (repeat 1) [a]", "flaky (repeat 3) [a]", "flaky (repeat 4) [a]"]
    message = next(
        f.attrib["message"] for f in ET.parse(project.root / "j.xml").getroot().iter("failure")
    )
    assert message.endswith("; the case passed 2 of 5 repeats (pass_rate 0.6)")


def test_without_a_pass_rate_every_repeat_must_pass(
    project: ProjectDir, two_cases: FakeServer
) -> None:
    result = eval_rel(project, "r.jsonl", "--repeat", str(K))

    assert result.code == 1
    assert "failed: flaky on a (passed 2 of 5 repeats (every repeat))" in result.out.splitlines()
    assert all("pass_rate" not in row for row in result_rows(project.root / "r.jsonl"))


def test_a_case_pass_rate_wins_over_its_files_and_the_runs(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    """The file asks 0.9 of every case, the run 0.8; flaky's own 0.4 lets it pass."""
    suite = (
        "execution:\n  pass_rate: 0.9\n"
        + EVAL.split("evalcases:\n")[0].split("execution:\n")[1]
        + "evalcases:\n"
        + FLAKY_ONLY
        + "    execution: {pass_rate: 0.4}\n"
    )
    project.write("evals/rel.yaml", suite)

    result = eval_rel(project, "r.jsonl", "--repeat", str(K), "--pass-rate", "0.8")

    assert result.code == 0, result.out
    assert {r["pass_rate"] for r in result_rows(project.root / "r.jsonl")} == {0.4}
    project.write("evals/rel.yaml", suite.replace("    execution: {pass_rate: 0.4}\n", ""))
    assert eval_rel(project, "f.jsonl", "--repeat", str(K), "--pass-rate", "0.4").code == 1
    assert {r["pass_rate"] for r in result_rows(project.root / "f.jsonl")} == {0.9}


def test_a_pass_rate_out_of_range_is_a_located_error(project: ProjectDir) -> None:
    project.write(
        "evals/rel.yaml", "execution:\n  pass_rate: 1.5\n" + FLAKY_ONLY.join(["evalcases:\n", ""])
    )
    result = run_cli("validate", project.root / "evals")
    assert result.code == 1
    assert "rel.yaml:2:14: error: execution.pass_rate:" in result.out, result.out
    flag = run_cli("eval", project.root / "evals", "--pass-rate", "2")
    assert flag.code == 2
    assert "--pass-rate: expected a number from 0 to 1, got 2" in flag.err


def _repeats(path: Path, verdicts: str) -> Path:
    """A results file of case ``c``: one row per repeat, ``P`` passed and ``F`` failed, its
    pass rate 0.6."""
    rows = [
        sample_row(eval_id="c", repeat=r, score=1.0 if v == "P" else 0.0, passed=v == "P",
                   pass_rate=0.6)
        for r, v in enumerate(verdicts)
    ]  # fmt: skip
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
    return path


def test_compare_judges_a_case_with_a_pass_rate_over_its_repeats(tmp_path: Path) -> None:
    """Repeat 1 flips to failed and repeat 3 to passed: the case still passes 3 of 5, so
    ``--fail-on regression`` does not trip; at 2 of 5 it regressed, once, as a case."""
    old = _repeats(tmp_path / "old.jsonl", "PPPFF")
    same = _repeats(tmp_path / "same.jsonl", "PFPPF")
    worse = _repeats(tmp_path / "worse.jsonl", "PFPFF")
    junit = tmp_path / "j.xml"

    held = run_cli("compare", old, same, "--junit", junit)
    assert held.code == 0, held.out
    assert held.out.splitlines()[-1] == "--fail-on regression: passed"
    assert ET.parse(junit).getroot().attrib["failures"] == "0"

    fell = run_cli("compare", old, worse, "--junit", junit)
    assert fell.code == 1
    assert fell.out.splitlines()[-1] == "--fail-on regression: FAILED by 1 of 1"
    root = ET.parse(junit).getroot()
    (failure,) = root.iter("failure")
    target = sample_row().target
    assert [c.attrib["name"] for c in root.iter("testcase")] == [f"c [{target}]"]
    assert failure.attrib["message"] == (
        "regressed: passed 3 of 5 repeats (pass_rate 0.6) before, "
        "passed 2 of 5 repeats (pass_rate 0.6) now"
    )
