"""``--max-cost`` as a hard budget (docs/running.md#--max-cost), against the fake server: the
run never spends past it, at ``--workers 32`` and with simulated users (both overspent it
several times before), a call it cannot bound is never sent, a call whose bill is unknown
keeps its worst case, cache hits are free, and a batch submits only what the budget covers.

The fake server bills every call the most it may: as many input tokens as the body has bytes,
and as many output tokens as the request's limit. What it answered is summed from the requests
it received, apart from what evalwright recorded."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalwright.orchestrator.batch import engine as batch
from evalwright.providers.http import encode_json
from evalwright.providers.pricing import BATCH_DISCOUNT
from evalwright.testing import Action, Drop, FakeServer, Fault, ReceivedRequest, Stall, Text
from tests.conftest import CliResult, ProjectDir, run_cli
from tests.orchestrator.batch.batching import creations, input_lines

PRICE = {"input": 10.0, "output": 30.0}
"""USD per million tokens, of every target here."""
BUDGET = 0.10


@pytest.fixture
def server(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setattr(batch, "POLL_FIRST", 0.01)
    with FakeServer.in_thread() as fake:
        yield fake


def _target(name: str, url: str, model: str, extra: str = "") -> str:
    return f"""  - name: {name}
    provider: openai
    model: {model}
    base_url: {url}/v1
    price: {{input: {PRICE["input"]}, output: {PRICE["output"]}}}
    retry: {{max_retries: 0}}
{extra}"""


def _targets(project: ProjectDir, *targets: str) -> None:
    project.write(".evalwright/targets.yaml", "targets:\n" + "".join(targets))


def _cases(count: int) -> str:
    return "evalcases:\n" + "".join(
        f"  - {{id: c{i}, expected_outcome: Fine., input: Question {i}?, "
        "execution: {evaluators: [{name: ok, type: contains, value: fine}]}}\n"
        for i in range(count)
    )


def _limit(request: ReceivedRequest) -> int:
    return int(request.json["max_completion_tokens"])


def _billed(text: str, request: ReceivedRequest, latency_ms: float = 0.0) -> Text:
    """``text``, billed the most the request allows."""
    return Text(
        text, input_tokens=len(request.body), output_tokens=_limit(request), latency_ms=latency_ms
    )


def _answered_cost(server: FakeServer) -> float:
    """What the chat calls the fake server answered cost, from its own bills."""
    return sum(
        (len(r.body) * PRICE["input"] + _limit(r) * PRICE["output"]) / 1e6
        for r in server.requests
        if r.api == "openai"
    )


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _recorded_cost(row: dict[str, Any]) -> float:
    """What a row records its calls cost: its target's (each turn's), its simulated user's
    and its judges'."""
    total = row["judge_cost_usd"] or 0.0
    if not row.get("turns"):
        return total + (row["cost_usd"] or 0.0)
    for turn in row["turns"]:
        total += turn["cost_usd"] or 0.0
        for key in ("simulator", "simulator_done"):
            if turn.get(key) is not None:
                total += turn[key]["cost_usd"] or 0.0
    return total


def _eval(project: ProjectDir, target: str, *options: str) -> CliResult:
    return run_cli(
        "eval", project.root / "evals", "--target", target,
        "--out", project.root / "r.jsonl", *options,
    )  # fmt: skip


def _not_run(result: CliResult) -> int:
    line = next(line for line in result.err.splitlines() if "stopped by --max-cost" in line)
    return int(line.split(" case(s) not run")[0].rsplit("; ", 1)[1])


def test_32_workers_spend_no_more_than_the_budget(project: ProjectDir, server: FakeServer) -> None:
    # A case costs about $0.016 (what a request of 500 output tokens may): 32 at once are $0.5.
    _targets(project, _target("t", server.url, "m", "    max_output_tokens: 500\n"))
    project.write("evals/suite.yaml", _cases(100))
    server.responder = lambda request: _billed("fine", request, latency_ms=100)

    result = _eval(project, "t", "--workers", "32", "--max-cost", str(BUDGET))

    assert result.code == 1, result.err
    rows = _rows(project.root / "r.jsonl")
    assert all(row["status"] == "ok" for row in rows)
    answered = _answered_cost(server)
    assert answered <= BUDGET, f"the fake server billed ${answered:.4f}"
    assert sum(map(_recorded_cost, rows)) == pytest.approx(answered)
    # A call is refused only when it would not fit even once the calls in flight settle: what
    # is left then is less than one call's worst case (under $0.03).
    assert answered > BUDGET - 0.03, "calls waited for room rather than being refused"
    assert len(server.requests) == len(rows) == 100 - _not_run(result)
    assert "a candidate request to 't' could cost up to $0.0" in result.err
    assert "--resume" in result.err


SIMULATED = """evalcases:
""" + "".join(
    f"""  - id: talk{i}
    expected_outcome: Helps.
    input_messages:
      - {{role: system, content: You help.}}
    simulated_user:
      target: sim
      persona: A talkative customer.
      goal: Never satisfied.
      max_turns: 5
    execution:
      evaluators:
        - {{name: replied, type: contains, value: fine}}
"""
    for i in range(20)
)


def _talk(request: ReceivedRequest) -> Action:
    """The simulated user never ends the conversation; the target answers each turn."""
    if request.model == "sim-test":
        return _billed(json.dumps({"message": "And then?", "done": False}), request, 20)
    return _billed("fine", request, 20)


def test_simulated_users_spend_no_more_than_the_budget(
    project: ProjectDir, server: FakeServer
) -> None:
    # Each conversation is 10 calls (5 turns, each the simulator's and the target's): $0.08.
    _targets(
        project,
        _target("t", server.url, "m", "    max_output_tokens: 200\n"),
        _target("sim", server.url, "sim-test", "    max_output_tokens: 100\n"),
    )
    project.write("evals/suite.yaml", SIMULATED)
    server.responder = _talk

    result = _eval(project, "t", "--workers", "32", "--max-cost", str(BUDGET))

    assert result.code == 1, result.err
    rows = _rows(project.root / "r.jsonl")
    answered = _answered_cost(server)
    assert answered <= BUDGET, f"the fake server billed ${answered:.4f}"
    assert sum(map(_recorded_cost, rows)) == pytest.approx(answered), "every call is in a row"
    assert answered > BUDGET - 0.03  # less is left than a call's worst case
    # A conversation cut short by the budget keeps what it got, as an over_budget error.
    for row in rows:
        assert row["status"] == "ok" or row["error"]["type"] == "over_budget", row["error"]
    assert len(rows) == 20 - _not_run(result)


@pytest.mark.parametrize(
    ("target", "why"),
    [
        pytest.param(
            "  - name: t\n    provider: openai\n    model: m\n    base_url: {url}/v1\n"
            "    price: {{input: 1, output: 2}}\n",
            "it sets no output limit (set the target's max_output_tokens",
            id="no-output-limit",
        ),
        pytest.param(
            "  - name: t\n    provider: openai\n    model: m\n    base_url: {url}/v1\n"
            "    max_output_tokens: 100\n",
            "its price is unknown (give the target a price:",
            id="unknown-price",
        ),
        pytest.param(
            "  - name: t\n    provider: cli\n    command: [echo, fine]\n"
            "    price: {{input: 1, output: 2}}\n",
            "an agent's run has no token bound before it runs",
            id="agent",
        ),
    ],
)
def test_a_call_without_a_worst_case_is_never_sent(
    project: ProjectDir, server: FakeServer, target: str, why: str
) -> None:
    _targets(project, target.format(url=server.url))
    project.write("evals/suite.yaml", _cases(3))

    result = _eval(project, "t", "--max-cost", "5")

    assert result.code == 1
    assert not server.requests
    assert not _rows(project.root / "r.jsonl")
    assert (
        "evalwright: stopped by --max-cost: the cost of a candidate request to 't' has no "
        f"bound: {why}"
    ) in result.err
    assert "; 3 case(s) not run" in result.err


def test_a_free_target_needs_no_limit(project: ProjectDir) -> None:
    _targets(project, "  - name: t\n    provider: cli\n    command: [echo, fine]\n"
             "    price: {input: 0, output: 0}\n")  # fmt: skip
    project.write("evals/suite.yaml", _cases(3))

    result = _eval(project, "t", "--max-cost", "0.01")

    assert result.code == 0, result.err
    assert len(_rows(project.root / "r.jsonl")) == 3


@pytest.mark.parametrize(
    ("first", "kept"),
    [(Fault(500), False), (Stall(), True)],
    ids=["an-error-status-is-not-billed", "a-timeout-may-have-been"],
)
def test_a_failed_call_gives_its_reservation_back_only_when_it_cannot_be_billed(
    project: ProjectDir, server: FakeServer, first: Action, kept: bool
) -> None:
    extra = "    max_output_tokens: 1000\n    timeout_seconds: 2\n"
    _targets(project, _target("t", server.url, "m", extra))
    project.write("evals/suite.yaml", _cases(2))
    answers = iter([first])
    server.responder = lambda request: next(answers, None) or _billed("fine", request)
    # A call's worst case is about $0.041 ($0.03 of output): $0.06 holds a second one only if
    # the first gave its reservation back.
    result = _eval(project, "t", "--workers", "1", "--max-cost", "0.06")

    rows = _rows(project.root / "r.jsonl")
    assert rows[0]["status"] == "error"
    assert len(server.requests) == (1 if kept else 2)
    if kept:
        assert "--max-cost counted $0.04" in result.err  # its worst case
        assert "; 1 case(s) not run" in result.err
    else:
        assert rows[1]["status"] == "ok", result.err


def test_cache_hits_cost_nothing_and_need_no_room(project: ProjectDir, server: FakeServer) -> None:
    _targets(project, _target("t", server.url, "m", "    max_output_tokens: 500\n"))
    project.write("evals/suite.yaml", _cases(3))
    server.responder = lambda request: _billed("fine", request)
    assert _eval(project, "t", "--cache").code == 0
    sent = len(server.requests)

    # Less than one call's worst case ($0.026): only answers from the cache fit.
    again = _eval(project, "t", "--cache", "--max-cost", "0.001")

    assert again.code == 0, again.err
    assert len(server.requests) == sent
    assert [row["cache"] for row in _rows(project.root / "r.jsonl")] == ["hit"] * 3


def test_a_batch_submits_only_what_the_budget_covers(
    project: ProjectDir, server: FakeServer
) -> None:
    _targets(
        project, _target("t", server.url, "m", "    max_output_tokens: 500\n    batch: true\n")
    )
    project.write("evals/suite.yaml", _cases(10))
    server.responder = lambda request: _billed("fine", request)

    # A request's worst case at batch prices (half the live ones) is about $0.0134.
    result = _eval(project, "t", "--max-cost", "0.045")

    assert result.code == 1
    submitted = input_lines(server)
    assert len(creations(server)) == 1
    assert len(submitted) == 3
    billed = sum(
        (len(encode_json(line["body"])) * PRICE["input"]
         + line["body"]["max_completion_tokens"] * PRICE["output"]) / 1e6 * BATCH_DISCOUNT
        for line in submitted
    )  # fmt: skip
    assert billed <= 0.045
    rows = _rows(project.root / "r.jsonl")
    assert [row["status"] for row in rows] == ["ok"] * 3
    assert sum(map(_recorded_cost, rows)) == pytest.approx(billed)
    assert "a batched candidate request to 't' could cost up to $0.01" in result.err
    assert "; 7 case(s) not run" in result.err


def test_a_batch_answer_that_cannot_be_used_keeps_its_worst_case(
    project: ProjectDir, server: FakeServer
) -> None:
    """A case edited while its batch ran gets no answer (docs/batch.md#memory); the answer was
    billed all the same, so its worst case stays counted."""
    _targets(
        project, _target("t", server.url, "m", "    max_output_tokens: 500\n    batch: true\n")
    )
    check = {"execution": {"evaluators": [{"name": "ok", "type": "contains", "value": "fine"}]}}
    suite = project.write(
        "evals/stream.jsonl",
        "".join(
            json.dumps({"id": f"s{i}", "expected_outcome": "Fine.", "input": f"Q{i}?", **check})
            + "\n"
            for i in range(2)
        ),
    )
    server.responder = lambda request: _billed("fine", request)
    server.batch_delay = 1.0

    def edit_once_submitted() -> None:
        deadline = time.monotonic() + 30
        while not creations(server) and time.monotonic() < deadline:
            time.sleep(0.01)
        suite.write_text(suite.read_text().replace('"Q1?"', '"Q1, edited?"'))

    editor = threading.Thread(target=edit_once_submitted)
    editor.start()
    result = _eval(project, "t", "--max-cost", "1")
    editor.join()

    rows = {row["eval_id"]: row for row in _rows(project.root / "r.jsonl")}
    assert rows["s1"]["status"] == "error"
    assert "--max-cost counted $0.01" in result.err  # s1's worst case, about $0.0133
    assert f"cost: ${rows['s0']['cost_usd']:.6f} in total" in result.out


@pytest.mark.parametrize(("budget", "retried"), [("0.1", True), ("0.06", False)])
def test_a_retry_after_a_call_that_may_have_been_billed_reserves_again(
    project: ProjectDir, server: FakeServer, budget: str, retried: bool
) -> None:
    retry = "    retry: {max_retries: 1, initial_delay_ms: 1}\n"
    extra = "    max_output_tokens: 1000\n" + retry
    _targets(
        project, _target("t", server.url, "m", extra).replace("    retry: {max_retries: 0}\n", "")
    )
    project.write("evals/suite.yaml", _cases(1))
    answers = iter([Drop()])
    server.responder = lambda request: next(answers, None) or _billed("fine", request)

    # The attempt whose connection dropped keeps its worst case (about $0.041): a second one
    # fits in $0.1, not in $0.06.
    result = _eval(project, "t", "--max-cost", budget)

    assert len(server.requests) == (2 if retried else 1), result.err
    rows = _rows(project.root / "r.jsonl")
    if retried:
        assert (rows[0]["status"], rows[0]["attempts"]) == ("ok", 2), result.err
    else:
        assert not rows
        assert "a retry of a candidate request to 't' could cost up to $0.04" in result.err
    assert "--max-cost counted $0.04" in result.err
