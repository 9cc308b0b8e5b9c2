"""The ``latency`` and ``cost`` evaluators (docs/eval-files.md#latency-and-cost), against the
fake server: each scores the answer's own latency and cost as its row records them, and an
unknown cost is an evaluator error, never a pass."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from evalwright.testing import FakeServer, Text
from tests.conftest import ProjectDir, run_cli

PRICE = {"input": 10.0, "output": 30.0}
"""USD per million tokens."""
COST = (10 * PRICE["input"] + 20 * PRICE["output"]) / 1e6
"""What each answer here costs: 10 input and 20 output tokens."""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer.in_thread() as fake:
        fake.responder = lambda _request: Text("fine", input_tokens=10, output_tokens=20)
        yield fake


def _run(project: ProjectDir, server: FakeServer, evaluators: str, price: bool = True) -> Any:
    priced = f"    price: {{input: {PRICE['input']}, output: {PRICE['output']}}}\n" if price else ""
    project.write(
        ".evalwright/targets.yaml",
        f"targets:\n  - name: t\n    provider: openai\n    model: m\n"
        f"    base_url: {server.url}/v1\n{priced}",
    )
    question = "" if "turns:" in evaluators else "    input: Well?\n"
    project.write(
        "evals/e.yaml",
        f"evalcases:\n  - id: a\n    expected_outcome: Fine.\n{question}"
        f"    execution:\n      evaluators:\n{evaluators}",
    )
    out = project.root / "r.jsonl"
    done = run_cli("eval", project.root / "evals", "--target", "t", "--out", out)
    assert done.code in (0, 1), done.err
    return json.loads(out.read_text(encoding="utf-8").splitlines()[0])


def test_cost_is_the_answers_cost_at_most_the_threshold(
    project: ProjectDir, server: FakeServer
) -> None:
    row = _run(
        project,
        server,
        f"        - {{name: within, type: cost, max_usd: {COST}}}\n"
        f"        - {{name: over, type: cost, max_usd: {COST * 0.99}}}\n",
    )
    assert row["cost_usd"] == pytest.approx(COST)
    scores = {r["name"]: r["score"] for r in row["evaluator_results"]}
    assert scores == {"within": 1.0, "over": 0.0}


def test_latency_is_the_answers_latency_at_most_the_threshold(
    project: ProjectDir, server: FakeServer
) -> None:
    # a real HTTP answer takes more than a microsecond and less than an hour
    row = _run(
        project,
        server,
        "        - {name: hour, type: latency, max_ms: 3600000}\n"
        "        - {name: microsecond, type: latency, max_ms: 0.001}\n",
    )
    results = {r["name"]: r for r in row["evaluator_results"]}
    assert results["hour"]["score"] == 1.0
    assert results["microsecond"]["score"] == 0.0
    assert results["microsecond"]["reasoning"].startswith("latency ")
    assert row["latency_ms"] > 0.001


def test_an_unknown_cost_is_an_error_not_a_pass(project: ProjectDir, server: FakeServer) -> None:
    row = _run(project, server, "        - {name: c, type: cost, max_usd: 1}\n", price=False)
    assert row["status"] == "error"
    (result,) = row["evaluator_results"]
    assert result["status"] == "error"
    assert "cost is unknown" in result["reasoning"]


def test_a_conversation_checks_each_turn_and_the_whole(
    project: ProjectDir, server: FakeServer
) -> None:
    row = _run(
        project,
        server,
        f"        - {{name: both, type: cost, max_usd: {COST * 2}}}\n"
        f"        - {{name: one, type: cost, max_usd: {COST * 1.5}}}\n"
        "    turns:\n"
        "      - {content: Hi, evaluators: [{name: fast, type: latency, max_ms: 3600000}]}\n"
        f"      - {{content: Bye, evaluators: [{{name: cheap, type: cost, max_usd: {COST}}}]}}\n",
    )
    # the whole conversation cost two answers; each turn, one
    assert {r["name"]: r["score"] for r in row["evaluator_results"]} == {"both": 1.0, "one": 0.0}
    turns = [{r["name"]: r["score"] for r in t["evaluator_results"]} for t in row["turns"]]
    assert turns == [{"fast": 1.0}, {"cheap": 1.0}]


def test_agentv_and_promptfoo_spellings_of_the_limit_are_read_as_it(
    project: ProjectDir, server: FakeServer
) -> None:
    row = _run(
        project,
        server,
        f"        - {{name: budget, type: cost, budget: {COST * 0.99}}}\n"
        f"        - {{name: threshold, type: cost, threshold: {COST}}}\n"
        "        - {name: slow, type: latency, threshold: 3600000}\n",
    )
    scores = {r["name"]: r["score"] for r in row["evaluator_results"]}
    assert scores == {"budget": 0.0, "threshold": 1.0, "slow": 1.0}
