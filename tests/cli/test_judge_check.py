"""``evalwright judge-check`` (docs/judges.md#judge-check): a planted label file with a
known Cohen's kappa, Cohen's kappa on a published worked example, panels, ``--json``, and
each bad label as a located error."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import evalwright as ew
from evalwright.testing import FakeServer
from tests.conftest import REPO, ProjectDir, run_cli, run_process
from tests.evaluators.panel_run import run_panel

CASES = [f"c{n}" for n in range(1, 11)]
# The judge passes c1-c6; the humans pass c1-c5 and c7. Both pass 5, the judge only 1
# (c6), the humans only 1 (c7), neither 3: accuracy 0.8; chance agreement
# 0.6 * 0.6 + 0.4 * 0.4 = 0.52; kappa (0.8 - 0.52) / (1 - 0.52) = 0.58333.
JUDGE_PASSES = {"c1", "c2", "c3", "c4", "c5", "c6"}
HUMAN_PASSES = {"c1", "c2", "c3", "c4", "c5", "c7"}
KAPPA = (0.8 - 0.52) / (1 - 0.52)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """The fake server, with an OpenAI key in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer.in_thread() as server:
        yield server


def _labels(project: ProjectDir, lines: list[dict[str, object]]) -> Path:
    text = "".join(json.dumps(line) + "\n" for line in lines)
    return project.write("labels.jsonl", text)


def _planted(project: ProjectDir) -> Path:
    """Human labels of the ten cases; c7's as a score."""
    lines: list[dict[str, object]] = []
    for case in CASES:
        if case == "c7":
            lines.append({"eval_id": case, "target": "cand", "score": 0.9})
        else:
            lines.append({"eval_id": case, "target": "cand", "pass": case in HUMAN_PASSES})
    return _labels(project, lines)


def _single(project: ProjectDir, fake: FakeServer) -> Path:
    script = {case: {"ja": 0.8 if case in JUDGE_PASSES else 0.2} for case in CASES}
    run_panel(project, fake, script, "{name: judge, type: llm_judge, target: ja}")
    return project.root / "r.jsonl"


def test_the_planted_labels_give_the_known_kappa(project: ProjectDir, fake: FakeServer) -> None:
    results = _single(project, fake)
    result = run_cli("judge-check", results, "--labels", _planted(project), "--json")
    assert result.code == 0, result.err
    (judge,) = result.json()["judges"]
    assert judge["judge"] == "judge [ja]"
    assert judge["kappa"] == pytest.approx(KAPPA)
    assert judge["accuracy"] == pytest.approx(0.8)
    assert judge["confusion"] == {"both_pass": 5, "judge_only": 1, "human_only": 1, "both_fail": 3}
    assert {(d["case"], d["judge_pass"], d["human_pass"]) for d in judge["disagreements"]} == {
        ("c6", True, False),
        ("c7", False, True),
    }


def test_the_table_shows_kappa_confusion_and_disagreements(
    project: ProjectDir, fake: FakeServer
) -> None:
    results = _single(project, fake)
    result = run_cli("judge-check", results, "--labels", _planted(project))
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "10 label(s), pass mark 0.5"
    assert lines[2].split() == ["judge", "[ja]", "10", "0", "0.800", f"{KAPPA:.3f}"]
    assert "  judge pass  5           1" in result.out
    assert "  judge fail  1           3" in result.out
    assert "evals/panel.yaml: c6 on cand: judge 0.8 (pass), human fail" in result.out


def test_cohens_kappa_of_a_published_worked_example() -> None:
    # Wikipedia, "Cohen's kappa", the worked example: 50 grant proposals, both readers say
    # yes to 20 and no to 15, A alone yes to 5, B alone yes to 10: kappa 0.4.
    table = ew.Confusion(both_pass=20, judge_only=5, human_only=10, both_fail=15)
    assert table.accuracy == pytest.approx(0.7)
    assert table.kappa == pytest.approx(0.4)
    assert ew.Confusion(both_pass=3).kappa is None  # chance alone agrees every time


def test_a_panel_is_checked_judge_by_judge_and_by_its_aggregate(
    project: ProjectDir, fake: FakeServer
) -> None:
    script = {
        "c1": {"ja": 0.9, "jb": 0.9, "jc": 0.1},
        "c2": {"ja": 0.1, "jb": "no verdict", "jc": 0.9},
    }
    run_panel(project, fake, script, "{name: p, type: llm_judge, judges: [ja, jb, jc]}")
    labels = _labels(
        project,
        [
            {"eval_id": "c1", "target": "cand", "pass": True},
            {"eval_id": "c2", "target": "cand", "pass": False},
        ],
    )
    check = ew.judge_check(project.root / "r.jsonl", labels)
    found = {j.judge: (j.accuracy, j.no_verdict) for j in check.judges}
    assert found == {
        "p [ja]": (1.0, 0),
        "p [jb]": (1.0, 1),
        "p [jc]": (0.0, 0),
        "p [mean]": (0.5, 0),  # c1 0.633 passes, c2 0.5 passes
    }


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"eval_id": "c1", "target": "cand", "pass": "yes"}', ":2:37: error: pass: "),
        ('{"eval_id": "c1", "target": "cand"}', ":2:1: error: give exactly one of 'pass'"),
        ('{"eval_id": "c1", "target": "cand", "score": 2}', ":2:37: error: score: "),
        (
            '{"eval_id": "c1", "target": "cand", "pass": true, "who": 1}',
            ":2:51: error: who: unknown key",
        ),
        ("{not json", ":2:2: error: invalid JSON: key must be a string"),
        # 5,000 digits: past what Python turns into an integer (a traceback before).
        (
            '{"eval_id": "c1", "target": "cand", "score": ' + "1" * 5000 + "}",
            ":2:4347: error: invalid JSON: number out of range",
        ),
        ('{"eval_id": "c1", "target": "cand", "score": 1e999}', ":2:37: error: score: "),
        (
            '{"eval_id": "c1", "target": "cand", "score": NaN}',
            ":2:37: error: score: Input should be a finite number",
        ),
        ('{"eval_id": "zz", "target": "cand", "pass": true}', ":2:1: error: no row of the results"),
    ],
)
def test_a_bad_label_is_a_located_error(
    project: ProjectDir, fake: FakeServer, line: str, expected: str
) -> None:
    results = _single(project, fake)
    good = json.dumps({"eval_id": "c1", "target": "cand", "pass": True})
    labels = project.write("labels.jsonl", f"{good}\n{line}\n")
    result = run_cli("judge-check", results, "--labels", labels)
    assert result.code == 2
    assert f"labels.jsonl{expected}" in result.err, result.err
    assert "Traceback" not in result.err


def test_the_example_validates_runs_and_checks(project: ProjectDir) -> None:
    example = REPO / "examples" / "judges"
    checked = run_cli("validate", example)
    assert checked.code == 0, checked.out + checked.err
    assert "2 files checked" in checked.err  # the targets and eval files; not the labels
    shutil.copytree(example, project.root / "judges")
    out = project.root / "judged.jsonl"
    ran = run_cli("eval", project.root / "judges" / "evals", "--out", out, "--quiet")
    assert "panel judge-a, judge-b, judge-c: 3 case(s)" in ran.out
    labels = project.root / "judges" / "labels.jsonl"
    check = ew.judge_check(out, labels)
    # The offline mock judges pass everything; the humans fail one answer.
    assert {j.judge: j.accuracy for j in check.judges} == pytest.approx(
        {f"panel [{name}]": 2 / 3 for name in ("judge-a", "judge-b", "judge-c", "majority")}
    )


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_labels_that_are_no_regular_file_are_refused_at_once(
    project: ProjectDir, fake: FakeServer, kind: str
) -> None:
    results = _single(project, fake)
    if kind == "fifo":
        labels = project.root / "labels.jsonl"
        os.mkfifo(labels)  # reading it would wait for a writer forever
    else:
        labels = Path("/dev/zero")  # reading it would never end
    # In a process of its own, with a time limit: before, it waited or read forever.
    result = run_process("judge-check", results, "--labels", labels, cwd=project.root, timeout=30)
    assert result.code == 2
    assert "not a regular file" in result.err, result.err
    assert "Traceback" not in result.err
