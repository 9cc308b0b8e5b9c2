"""Judge panels through the command line (docs/judges.md#panels): three scripted judges on
the fake server, each aggregate, a judge that fails, and validate's located errors."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evalwright.testing import Action, FakeServer, Text, Verdict
from evalwright.testing.recorded import ReceivedRequest
from tests.conftest import ProjectDir, run_cli
from tests.evaluators.panel_run import run_panel, write_project

SCRIPT = {
    "one": {"ja": 0.2, "jb": 0.6, "jc": 0.9},
    "two": {"ja": 0.4, "jb": "no verdict here", "jc": 0.8},
    "three": {"ja": 0.1, "jb": 0.3, "jc": 0.7},
}


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """The fake server, with an OpenAI key in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer.in_thread() as server:
        yield server


def _panel(aggregate: str | None) -> str:
    chosen = f", aggregate: {aggregate}" if aggregate else ""
    return f"{{name: panel, type: llm_judge, judges: [ja, jb, jc]{chosen}}}"


@pytest.mark.parametrize(
    ("aggregate", "expected"),
    [
        # two: jb gave no verdict, so the aggregate is over ja and jc.
        (None, {"one": (0.2 + 0.6 + 0.9) / 3, "two": 0.6, "three": (0.1 + 0.3 + 0.7) / 3}),
        ("mean", {"one": (0.2 + 0.6 + 0.9) / 3, "two": 0.6, "three": (0.1 + 0.3 + 0.7) / 3}),
        ("median", {"one": 0.6, "two": 0.6, "three": 0.3}),
        # one: 2 of 3 pass; two: 1 of 2 pass, a tie, which fails; three: 1 of 3 pass.
        ("majority", {"one": 1.0, "two": 0.0, "three": 0.0}),
    ],
)
def test_a_panel_of_three_scripted_judges_scores_by_its_aggregate(
    project: ProjectDir, fake: FakeServer, aggregate: str | None, expected: dict[str, float]
) -> None:
    result, rows = run_panel(project, fake, SCRIPT, _panel(aggregate))
    assert result.code in (0, 1), result.err
    scores = {row["eval_id"]: row["score"] for row in rows}
    assert scores == pytest.approx(expected)
    for row in rows:
        (panel,) = row["evaluator_results"]
        assert panel["aggregate"] == (aggregate or "mean")
        assert [j["target"] for j in panel["judges"]] == ["ja", "jb", "jc"]


def test_each_judges_verdict_is_kept_with_its_request_and_tries(
    project: ProjectDir, fake: FakeServer
) -> None:
    _, rows = run_panel(project, fake, SCRIPT, _panel("mean"))
    one, _, two = rows  # sorted: one, three, two
    ja, jb, jc = one["evaluator_results"][0]["judges"]
    assert (ja["score"], ja["passed"], ja["status"]) == (0.2, False, "ok")
    assert (jc["score"], jc["passed"]) == (0.9, True)
    assert ja["reasoning"] == "model-ja on one"
    assert ja["raw_request"]["model"] == "model-ja"
    assert jb["raw_request"]["model"] == "model-jb"
    assert ja["tries"] == [{"attempts": 1, "outcome": "verdict"}]
    # The same judge prompt for every judge.
    messages = {json_messages(j) for j in (ja, jb, jc)}
    assert len(messages) == 1
    failed = two["evaluator_results"][0]["judges"][1]
    assert (failed["status"], failed["score"], failed["passed"]) == ("error", None, None)
    assert "no valid verdict in two tries" in failed["reasoning"]
    assert failed["reply"] == "no verdict here"
    assert failed["tries"] == [
        {"attempts": 1, "outcome": "no_verdict"},
        {"attempts": 1, "outcome": "no_verdict"},
    ]
    assert two["status"] == "ok"


def json_messages(judge: dict[str, object]) -> str:
    """A judge request's messages, as text."""
    raw = judge["raw_request"]
    assert isinstance(raw, dict)
    return repr(raw["body"]["messages"])  # pyright: ignore[reportUnknownArgumentType]


def test_the_judges_are_asked_concurrently(project: ProjectDir, fake: FakeServer) -> None:
    suite = write_project(project, fake.url, ["one"], _panel(None))

    def slow(request: ReceivedRequest) -> Action:
        if request.json["model"] == "cand":
            return Text("fine")
        return Verdict(0.5, latency_ms=600).to_text()

    fake.responder = slow
    run_cli("eval", suite, "--target", "cand", "--out", project.root / "r.jsonl")
    times = [r.received_at for r in fake.requests_for("openai") if r.json["model"] != "cand"]
    assert len(times) == 3
    # One after another they would be 600 ms apart at least.
    assert max(times) - min(times) < 0.4


def test_a_panel_none_of_whose_judges_answers_is_an_evaluator_error(
    project: ProjectDir, fake: FakeServer
) -> None:
    script = {"one": {"ja": "no", "jb": "nope", "jc": "never"}}
    _, rows = run_panel(project, fake, script, _panel("median"))
    (row,) = rows
    assert row["status"] == "error"
    assert row["error"]["type"] == "evaluator_error"
    assert "no judge of the panel gave a verdict" in row["error"]["message"]
    assert [j["status"] for j in row["evaluator_results"][0]["judges"]] == ["error"] * 3


@pytest.mark.parametrize(
    ("evaluator", "message"),
    [
        (
            "{name: p, type: llm_judge, judges: [ja, nobody]}",
            "judges[1]: unknown target 'nobody'",
        ),
        (
            "{name: p, type: llm_judge, target: ja, judges: [ja, jb]}",
            "judges: give either 'target' (one judge) or 'judges' (a panel)",
        ),
        ("{name: p, type: llm_judge, judges: [ja]}", "a panel needs at least two judges"),
        ("{name: p, type: llm_judge, judges: [ja, ja]}", "each judge target may be named once"),
        ("{name: p, type: llm_judge, aggregate: mean}", "'aggregate' needs a panel of 'judges'"),
        ("{name: p, type: llm_judge, judges: [ja, jb], aggregate: mode}", "aggregate"),
    ],
)
def test_validate_reports_a_bad_panel_where_it_is(
    project: ProjectDir, evaluator: str, message: str
) -> None:
    suite = write_project(project, "http://127.0.0.1:9", ["one"], evaluator)
    result = run_cli("validate", suite)
    assert result.code == 1
    assert ":3:" in result.out, result.out
    assert message in result.out
