"""The judges of a batched run in a second batch phase, or live with ``--judge-live``
(docs/batch.md#judges), against the fake server's batch APIs."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from evalwright.orchestrator.batch.state import state_path
from evalwright.testing import FakeServer, Fault, ReceivedRequest, Verdict
from evalwright.testing.fake_server import Interrupt
from evalwright.testing.http11 import Reply
from tests.conftest import ProjectDir, run_cli
from tests.evaluators.panel_run import run_panel, write_project
from tests.orchestrator.batch.batching import creations as _creations
from tests.orchestrator.batch.batching import input_lines as _input_lines
from tests.orchestrator.batch.batching import rows as _rows
from tests.orchestrator.batch.batching import stop_batched_run

PANEL = "{name: p, type: llm_judge, judges: [ja, jb, jc]}"
SCRIPT: dict[str, dict[str, float | str]] = {
    "a": {"ja": 0.9, "jb": 0.8, "jc": 1.0},
    "b": {"ja": 0.2, "jb": 0.1, "jc": 0.1},
    "c": {"ja": 0.1, "jb": 0.9, "jc": 0.5},
    "d": {"ja": 1.0, "jb": 1.0, "jc": 0.0},
    "e": {"ja": 0.6, "jb": 0.7, "jc": 0.8},
}
VARYING = {"run_id", "timestamp", "latency_ms", "cost_usd"}


@pytest.fixture
def fake(quick_batches: None) -> Iterator[FakeServer]:
    with FakeServer.in_thread() as server:
        yield server


def _chat_requests(server: FakeServer) -> list[str]:
    """The models asked live."""
    return [r.json["model"] for r in server.requests if r.path == "/v1/chat/completions"]


def _lines_per_model(server: FakeServer) -> Counter[str]:
    return Counter(line["body"]["model"] for line in _input_lines(server))


def _judge_bodies(rows: list[dict[str, Any]]) -> list[str]:
    """Every judge request body the rows record."""
    bodies: list[str] = []
    for row in rows:
        for result in row["evaluator_results"]:
            for verdict in result["judges"]:
                bodies.append(json.dumps(verdict["raw_request"]["body"], sort_keys=True))
    return sorted(bodies)


def test_a_batched_panel_sends_its_judges_in_one_batch_per_judge_target(
    project: ProjectDir, fake: FakeServer
) -> None:
    """With one worker, every case's three judges still go out in one batch per judge: a
    case waiting on a batch gives its slot back."""
    live, live_rows = run_panel(project, fake, SCRIPT, PANEL)
    fake.clear()
    result, rows = run_panel(project, fake, SCRIPT, PANEL, "--batch", "--workers", "1")
    assert result.code == live.code, result.err
    assert len(_creations(fake)) == 4  # the answers', then one per judge target
    assert not _chat_requests(fake)  # nothing went out live
    assert _lines_per_model(fake) == {"cand": 5, "model-ja": 5, "model-jb": 5, "model-jc": 5}
    # Each judge line's body is what the row records of that judge's request.
    judge_lines = [line["body"] for line in _input_lines(fake) if line["body"]["model"] != "cand"]
    assert _judge_bodies(rows) == sorted(json.dumps(b, sort_keys=True) for b in judge_lines)
    # The verdicts, scores and judge requests are the live run's.
    assert [_same(r) for r in rows] == [_same(r) for r in live_rows]
    out = project.root / "r.jsonl"
    assert not state_path(out).exists()


def _same(row: dict[str, Any]) -> str:
    kept = {k: v for k, v in row.items() if k not in VARYING}
    for result in kept["evaluator_results"]:
        result.pop("cost_usd", None)
        for verdict in result.get("judges") or ():
            verdict.pop("cost_usd", None)
    return json.dumps(kept, sort_keys=True)


def test_judge_live_calls_the_judges_live(project: ProjectDir, fake: FakeServer) -> None:
    result, rows = run_panel(project, fake, SCRIPT, PANEL, "--batch", "--judge-live")
    assert result.code == 1, result.err  # case b fails its panel
    assert len(_creations(fake)) == 1  # the answers' batch only
    assert Counter(_chat_requests(fake)) == {"model-ja": 5, "model-jb": 5, "model-jc": 5}
    assert [r["evaluator_results"][0]["score"] for r in rows] == pytest.approx(
        [0.9, 0.133, 0.5, 0.667, 0.7], abs=0.001
    )


@pytest.mark.parametrize("provider", ["openai", "azure", "anthropic", "gemini", "mock"])
def test_a_judge_of_each_provider_is_batched_and_a_mock_judge_is_called_live(
    project: ProjectDir, fake: FakeServer, provider: str
) -> None:
    fake.judge_verdict = {"score": 0.8, "hits": ["h"], "misses": [], "reasoning": "ok"}
    judge = {
        "openai": f"provider: openai\n    model: j\n    base_url: {fake.url}/v1",
        "azure": f"provider: azure\n    endpoint: {fake.url}\n    deployment: j\n    api_key: k",
        "anthropic": f"provider: anthropic\n    model: j\n    base_url: {fake.url}\n    api_key: k",
        "gemini": f"provider: gemini\n    model: j\n    base_url: {fake.url}\n    api_key: k",
        "mock": "provider: mock",
    }[provider]
    project.write(
        ".evalwright/targets.yaml",
        f"targets:\n  - name: cand\n    provider: openai\n    model: cand\n"
        f"    base_url: {fake.url}/v1\n    api_key: k\n  - name: judge\n    {judge}\n",
    )
    body = "".join(f"  - id: c{i}\n    expected_outcome: Good.\n    input: Q{i}?\n" for i in "abc")
    suite = project.write(
        "evals/j.yaml",
        "execution:\n  evaluators:\n    - {name: j, type: llm_judge, target: judge}\n"
        f"evalcases:\n{body}",
    )
    out = project.root / "j.jsonl"
    result = run_cli("eval", suite, "--target", "cand", "--batch", "--out", out)
    assert result.code == 0, result.err
    assert len(_creations(fake)) == (1 if provider == "mock" else 2)
    judged = [r["evaluator_results"][0] for r in _rows(out)]
    assert all(j["status"] == "ok" for j in judged), judged
    if provider != "mock":
        assert {j["score"] for j in judged} == {0.8}
        assert len(_input_lines(fake)) == 6
        assert not _chat_requests(fake)


def test_a_judge_line_that_failed_is_sent_again_in_a_follow_up_batch(
    project: ProjectDir, fake: FakeServer
) -> None:
    suite = write_project(project, fake.url, ["a", "b"], "{name: j, type: llm_judge, target: ja}")
    # The targets of write_project do not retry; this judge does.
    targets = project.root / ".evalwright/targets.yaml"
    targets.write_text(targets.read_text().replace("max_retries: 0", "max_retries: 2", 1))
    verdict = Verdict(0.7).to_text()
    answers = iter([Fault(500), verdict, verdict])

    def respond(request: Any) -> Any:
        return "fine" if request.json["model"] == "cand" else next(answers)

    fake.responder = lambda request: _as_action(respond(request))
    out = project.root / "retry.jsonl"
    result = run_cli("eval", suite, "--target", "cand", "--batch", "--out", out)
    assert result.code == 0, result.err
    assert len(_creations(fake)) == 3  # answers, judges, the judge that failed again
    rows = _rows(out)
    assert [r["evaluator_results"][0]["score"] for r in rows] == [0.7, 0.7]
    tries = sorted(r["evaluator_results"][0]["tries"][0]["attempts"] for r in rows)
    assert tries == [1, 2]


def _as_action(given: Any) -> Any:
    from evalwright.testing import Text

    return Text(given) if isinstance(given, str) else given


def test_resume_during_the_judges_phase_submits_nothing_again(
    project: ProjectDir, fake: FakeServer
) -> None:
    """Killed while the judges batch runs: ``--resume`` reads the answers' batch and the
    judges' batch again, and submits neither twice."""
    suite = write_project(project, fake.url, list(SCRIPT), "{name: j, type: llm_judge, target: ja}")
    fake.judge_verdict = {"score": 0.9, "hits": [], "misses": [], "reasoning": "fine"}
    out = project.root / "judged.jsonl"

    def judges_batch_created() -> bool:
        if any(r.path.endswith("/content") for r in fake.requests):
            # The answers are read: the judges batch, polled later, stays in progress.
            fake.batch_delay = 3600
        return len(_creations(fake)) >= 2  # the answers' batch, then the judges'

    stop_batched_run(
        [str(suite), "--target", "cand", "--batch", "--out", str(out)],
        project.root,
        judges_batch_created,
        "the judges batch",
        settle=0.3,  # the state file is written right after the create call
    )
    phases = Counter(b["phase"] for b in json.loads(state_path(out).read_text())["batches"])
    assert phases == {"answers": 1, "judges": 1}
    assert not out.exists() or not _rows(out)
    fake.batch_delay = 0
    result = run_cli("eval", suite, "--target", "cand", "--batch", "--resume", out)
    assert result.code == 0, result.err
    assert len(_creations(fake)) == 2
    rows = _rows(out)
    assert sorted(r["eval_id"] for r in rows) == list(SCRIPT)
    assert {r["evaluator_results"][0]["score"] for r in rows} == {0.9}
    assert not state_path(out).exists()


def test_a_cached_batched_run_sends_no_batch_at_all(project: ProjectDir, fake: FakeServer) -> None:
    suite = write_project(project, fake.url, ["a", "b"], "{name: j, type: llm_judge, target: ja}")
    fake.judge_verdict = {"score": 0.9, "hits": [], "misses": [], "reasoning": "fine"}
    for name in ("first", "second"):
        out = project.root / f"{name}.jsonl"
        result = run_cli("eval", suite, "--target", "cand", "--batch", "--cache", "--out", out)
        assert result.code == 0, result.err
    assert len(_creations(fake)) == 2  # the first run's answers and judges only
    assert {r["cache"] for r in _rows(project.root / "second.jsonl")} == {"hit"}


def test_a_judges_submission_that_cannot_be_looked_up_is_not_sent_again(
    project: ProjectDir, fake: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed inside the judges' create call, resumed while the list of batches cannot be
    read: the judges batch may exist, so its requests fail rather than go out a second time;
    the next ``--resume`` finds it."""
    suite = write_project(project, fake.url, ["a", "b"], "{name: j, type: llm_judge, target: ja}")
    fake.judge_verdict = {"score": 0.9, "hits": [], "misses": [], "reasoning": "fine"}
    batches = fake.openai_batches.batches

    def hold_the_judges_create(request: ReceivedRequest) -> Interrupt | None:
        second = request.method == "POST" and request.path == "/v1/batches" and bool(batches)
        return "after" if second else None

    fake.batch_interrupt = hold_the_judges_create
    out = project.root / "judges.jsonl"
    stop_batched_run(
        [str(suite), "--target", "cand", "--batch", "--out", str(out)],
        project.root,
        lambda: len(batches) == 2,
        "the judges' create call",
        settle=0.2,
    )
    fake.batch_interrupt = None

    def listing_down(*_: object) -> Reply:
        return Reply(503, b'{"error": {"message": "listing is down"}}')

    with monkeypatch.context() as down:
        down.setattr(fake.openai_batches, "_list", listing_down)
        failed = run_cli("eval", suite, "--target", "cand", "--batch", "--resume", out)
    assert failed.code == 1
    assert len(_creations(fake)) == 2  # the judges' requests did not go out again
    rows = _rows(out)
    assert {r["status"] for r in rows} == {"error"}
    assert all("whether the judges batch tagged" in json.dumps(r) for r in rows)
    again = run_cli("eval", suite, "--target", "cand", "--batch", "--resume", out)
    assert again.code == 0, again.err
    assert len(_creations(fake)) == 2
    assert {r["evaluator_results"][0]["score"] for r in _rows(out)} == {0.9}
    assert not state_path(out).exists()


def test_a_case_whose_judges_could_not_be_sent_takes_its_answer_from_its_batch_on_resume(
    project: ProjectDir, fake: FakeServer
) -> None:
    """The judges' upload is lost: the rows are errors, and the answers batch stays in the
    state file with the requests it answered, so that ``--resume`` judges those answers
    rather than paying for them twice."""
    suite = write_project(project, fake.url, ["a", "b"], "{name: j, type: llm_judge, target: ja}")
    fake.judge_verdict = {"score": 0.9, "hits": [], "misses": [], "reasoning": "fine"}
    batches = fake.openai_batches.batches

    def drop_the_judges_upload(request: ReceivedRequest) -> Interrupt | None:
        judges = request.method == "POST" and request.path == "/v1/files" and bool(batches)
        return "drop" if judges else None

    fake.batch_interrupt = drop_the_judges_upload
    out = project.root / "unjudged.jsonl"
    failed = run_cli("eval", suite, "--target", "cand", "--batch", "--out", out)
    assert failed.code == 1
    assert {r["status"] for r in _rows(out)} == {"error"}
    (kept,) = json.loads(state_path(out).read_text())["batches"]
    assert (kept["phase"], len(kept["requests"]), len(kept["sent"])) == ("answers", 2, 2)
    fake.batch_interrupt = None
    again = run_cli("eval", suite, "--target", "cand", "--batch", "--resume", out)
    assert again.code == 0, again.err
    assert len(_creations(fake)) == 2  # the answers' batch once, then the judges'
    assert _lines_per_model(fake)["cand"] == 2  # (the lost upload holds the judges' too)
    assert sum(len(made.lines) for made in batches.values()) == 4
    assert {r["evaluator_results"][0]["score"] for r in _rows(out)} == {0.9}
    assert not state_path(out).exists()
