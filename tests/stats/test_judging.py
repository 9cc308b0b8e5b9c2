"""Judge run metrics (docs/judges.md#run-metrics): counted from the rows, in the summary
and ``RunResult.judges``, right after ``--resume``; Krippendorff's alpha as the package
computes it and as the published worked example gives it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from nltk.metrics.agreement import AnnotationTask  # pyright: ignore[reportMissingTypeStubs]
from nltk.metrics.distance import interval_distance  # pyright: ignore[reportMissingTypeStubs, reportUnknownVariableType]

import evalwright as ew
from evalwright.results.judge_facts import JudgeUse
from evalwright.results.parts import JudgeTry
from evalwright.stats.judging import krippendorff_alpha
from evalwright.testing import FakeServer, Text, Verdict
from evalwright.testing.recorded import ReceivedRequest
from tests.conftest import ProjectDir, run_cli
from tests.evaluators.panel_run import JUDGES, responder, run_panel, write_project

PANEL = "{name: panel, type: llm_judge, judges: [ja, jb, jc]}"
# Seven cases; jb's reply to 'c' is no verdict (twice), so that unit has two scores.
SCRIPT: dict[str, dict[str, float | str]] = {
    "a": {"ja": 0.9, "jb": 0.8, "jc": 1.0},
    "b": {"ja": 0.2, "jb": 0.3, "jc": 0.1},
    "c": {"ja": 0.6, "jb": "not a verdict", "jc": 0.4},
    "d": {"ja": 0.1, "jb": 0.9, "jc": 0.5},
    "e": {"ja": 0.7, "jb": 0.7, "jc": 0.7},
    "f": {"ja": 0.0, "jb": 0.6, "jc": 0.2},
    "g": {"ja": 0.5, "jb": 0.4, "jc": 0.9},
}

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four
# observers, twelve units, missing values; interval alpha = 0.849.
PUBLISHED = [
    [1, 1, None, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [None, 5, 5, 5],
    [None, None, 1, 1],
    [None, 3, None, None],
]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """The fake server, with an OpenAI key in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer.in_thread() as server:
        yield server


def _nltk_alpha(script: dict[str, dict[str, float | str]]) -> float:
    """The package's own alpha of the scripted scores."""
    data = [
        (judge, case, score)
        for case, scores in script.items()
        for judge, score in scores.items()
        if not isinstance(score, str)
    ]
    task = AnnotationTask(data=data, distance=interval_distance)  # pyright: ignore[reportUnknownVariableType]
    return float(task.alpha())  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]


def test_alpha_is_the_published_worked_examples() -> None:
    coders = ("A", "B", "C", "D")
    units = [[None if v is None else float(v) for v in unit] for unit in PUBLISHED]
    assert krippendorff_alpha(coders, units) == pytest.approx(0.849, abs=5e-4)


def test_alpha_is_undefined_without_a_unit_of_two_scores() -> None:
    assert krippendorff_alpha(("a", "b"), [[0.5, None], [None, 0.2]]) is None


def test_retries_count_a_second_try_and_transport_retries() -> None:
    tries = (JudgeTry(attempts=3, outcome="no_verdict"), JudgeTry(attempts=1, outcome="verdict"))
    assert JudgeUse.of("j", tries) == JudgeUse("j", calls=2, parse_failures=1, retries=3)


def test_a_panel_runs_metrics_from_its_rows(project: ProjectDir, fake: FakeServer) -> None:
    suite = write_project(project, fake.url, list(SCRIPT), PANEL)
    fake.responder = responder(SCRIPT)
    result = ew.run(suite, targets=["cand"], out=project.root / "r.jsonl")
    metrics = result.judges
    assert metrics is not None
    assert {
        name: (s.calls, s.parse_failures, s.retries) for name, s in metrics.targets.items()
    } == {
        "ja": (7, 0, 0),
        "jb": (8, 2, 1),
        "jc": (7, 0, 0),
    }
    (panel,) = metrics.panels
    assert panel.judges == JUDGES
    assert panel.cases == 7
    assert panel.alpha == pytest.approx(_nltk_alpha(SCRIPT))
    # Same pass/fail at 0.5 from every judge that answered: a, b, e.
    assert panel.agreement == pytest.approx(3 / 7)
    spreads = [(d.case, round(d.spread, 6)) for d in panel.disagreements]
    assert spreads == [("d", 0.8), ("f", 0.6), ("g", 0.5), ("a", 0.2), ("b", 0.2)]
    assert panel.disagreements[0].scores == {"ja": 0.1, "jb": 0.9, "jc": 0.5}


def test_the_summary_shows_the_metrics_and_resume_keeps_them(
    project: ProjectDir, fake: FakeServer
) -> None:
    first, _ = run_panel(project, fake, SCRIPT, PANEL)
    assert "jb     8      2               1" in first.out
    alpha = f"Krippendorff's alpha {_nltk_alpha(SCRIPT):.3f}"
    assert alpha in first.out
    assert "  d on cand: spread 0.8 (ja 0.1, jb 0.9, jc 0.5)" in first.out
    sent = len(fake.requests_for("openai"))
    out = project.root / "r.jsonl"
    again = run_cli("eval", project.root / "evals", "--target", "cand", "--resume", out)
    assert len(fake.requests_for("openai")) == sent  # every row kept, nothing asked
    assert "jb     8      2               1" in again.out
    assert alpha in again.out


def test_a_run_without_a_judge_shows_no_judge_metrics(
    project: ProjectDir, fake: FakeServer
) -> None:
    result, _ = run_panel(project, fake, {"a": {}}, "{name: c, type: contains, value: fine}")
    assert result.code == 0, result.err
    assert "parse failures" not in result.out
    assert "Krippendorff" not in result.out


LIVE = """evalcases:
  - id: talk
    expected_outcome: Keeps track.
    turns:
      - content: Case one?
        evaluators: [{name: first, type: llm_judge, target: ja}]
      - content: Case two?
        evaluators: [{name: second, type: llm_judge, judges: [ja, jb]}]
    execution:
      evaluators: [{name: whole, type: llm_judge, target: jc}]
"""


def test_the_judges_of_each_turn_are_counted(project: ProjectDir, fake: FakeServer) -> None:
    write_project(project, fake.url, [], "{name: unused, type: contains, value: x}")
    suite = project.write("evals/panel.yaml", LIVE)

    def respond(request: ReceivedRequest) -> Text:
        model = request.json["model"]
        return Text("fine") if model == "cand" else Verdict(0.8).to_text()

    fake.responder = respond
    result = ew.run(suite, targets=["cand"], out=project.root / "r.jsonl")

    metrics = result.judges
    assert metrics is not None
    assert {name: s.calls for name, s in metrics.targets.items()} == {"ja": 2, "jb": 1, "jc": 1}
    (panel,) = metrics.panels
    assert (panel.judges, panel.cases) == (("ja", "jb"), 1)
