"""Batches exactly once, under fire (docs/batch.md#resuming): batched runs (answers, then their
judges) SIGKILLed at random moments (inside a create call, while the API lists a new batch late,
while polling, while reading results, while writing rows) with connections to the fake batch
APIs dropped at random, each followed by ``--resume`` until done. Whatever happened, no request
reaches a batch twice and every case has exactly its one ``ok`` row.

Each trial is seeded from its number: a failing one reruns alone by its test id, with the same
faults as far as the order of its requests allows."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import pytest

from evalwright.orchestrator.batch.state import state_path
from evalwright.testing import ApiName, FakeServer, ReceivedRequest
from evalwright.testing.fake_server import Interrupt
from tests.conftest import ProjectDir, run_cli
from tests.orchestrator.batch.batching import rows
from tests.orchestrator.conftest import QUICK_BATCHES
from tests.orchestrator.forks import ForkServer

CASES = 3
TRIALS = 56
PROVIDERS = {
    "openai": "provider: openai\n    model: {model}\n    base_url: {url}/v1\n    api_key: k",
    "azure": "provider: azure\n    endpoint: {url}\n    deployment: {model}\n    api_key: k",
    "anthropic": "provider: anthropic\n    model: {model}\n    base_url: {url}\n    api_key: k",
    "gemini": "provider: gemini\n    model: {model}\n    base_url: {url}\n    api_key: k",
}
KILLS = (
    "during the upload",
    "before the create call is handled",
    "inside the create call",
    "while a dropped create is looked for",
    "while polling",
    "while reading results",
    "inside the judges' create call",
    "once a row is written",
    "at any moment",
)
HELD = (
    "during the upload",
    "before the create call is handled",
    "inside the create call",
    "while polling",
    "while reading results",
    "inside the judges' create call",
)
"""The moments a request is held unanswered for: once held, the run is killed inside it."""
VERDICT = {"score": 0.75, "hits": ["h"], "misses": [], "reasoning": "fine"}


def _kind(request: ReceivedRequest) -> str:
    """What a batch API request does."""
    path = request.path
    if request.method == "POST":
        if path.endswith("/files"):
            return "upload"
        return "create" if path.endswith(("/batches", ":batchGenerateContent")) else "cancel"
    if path.endswith(("/content", "/results")):
        return "results"
    return "list" if path.endswith("/batches") else "status"


Hold = Callable[[ReceivedRequest, Counter[str]], bool]
"""Whether to hold a request, given how many of each kind the run sent so far."""


def _never(request: ReceivedRequest, seen: Counter[str]) -> bool:
    del request, seen
    return False


class Faults:
    """What the fake batch APIs do to a trial's requests (asked in the server's thread): hold
    the one request the run is killed in, and drop a few others at random."""

    def __init__(self, seed: int, drops: int) -> None:
        self.rng = random.Random(seed)
        """The trial's choices (in the test's thread)."""
        self.dropping = random.Random(seed + 1)
        self.drops = drops
        self.hold: Hold = _never
        self.how: Interrupt = "after"
        self.seen: Counter[str] = Counter()
        self.held = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, request: ReceivedRequest) -> Interrupt | None:
        with self.lock:
            kind = _kind(request)
            self.seen[kind] += 1
            if not self.held.is_set() and self.hold(request, self.seen):
                self.held.set()
                return self.how
            if self.drops and self.dropping.random() < 0.2:
                self.drops -= 1
                return "drop"
            return None


@pytest.fixture(scope="module")
def forks() -> Iterator[ForkServer]:
    with ForkServer(QUICK_BATCHES) as server:
        yield server


def _project(project: ProjectDir, url: str, provider: str, trial: int) -> Path:
    block = PROVIDERS[provider]
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n"
        f"  - name: cand\n    {block.format(model='cand', url=url)}\n"
        "    retry: {max_retries: 1, initial_delay_ms: 10}\n"
        f"  - name: judge\n    {block.format(model='judge', url=url)}\n",
    )
    cases = "".join(
        f"  - id: c{i}\n    expected_outcome: Answers.\n    input: Trial {trial}, question {i}?\n"
        for i in range(CASES)
    )
    judged = "execution:\n  evaluators:\n    - {name: j, type: llm_judge, target: judge}\n"
    text = f"{judged}evalcases:\n{cases}"
    return project.write("evals/suite.yaml", text)


def _moment(kill: str, provider: str, faults: Faults, out: Path) -> Callable[[], bool]:
    """Set the faults for ``kill``; when the run is to be killed."""
    rng = faults.rng
    inline = provider in ("anthropic", "gemini")  # no upload; results come with the status
    at: dict[str, tuple[str, int, Interrupt]] = {
        "during the upload": ("create" if inline else "upload", 1, "before"),
        "before the create call is handled": ("create", 1, "before"),
        "inside the create call": ("create", 1, "after"),
        "while polling": ("status", rng.randint(1, 3), "after"),
        "while reading results": ("status" if provider == "gemini" else "results", 1, "after"),
        "inside the judges' create call": ("create", 2, "after"),
    }
    if kill in HELD:
        kind, nth, how = at[kill]
        faults.hold = lambda request, seen: _kind(request) == kind and seen[kind] == nth
        faults.how = how
        return faults.held.is_set
    if kill == "while a dropped create is looked for":
        faults.hold = lambda request, _: _kind(request) == "create"
        faults.how = "drop"
        return lambda: faults.held.is_set() and faults.seen["list"] > 0
    if kill == "once a row is written":
        return lambda: out.exists() and b"\n" in out.read_bytes()
    started, after = time.monotonic(), rng.uniform(0, 1.5)
    return lambda: time.monotonic() >= started + after


def _batched(server: FakeServer) -> Counter[str]:
    """Every request body the fake APIs hold in a batch, with how many batches hold it."""
    bodies: list[object] = []
    for made in server.openai_batches.batches.values():
        bodies += [line["body"] for line in made.lines]
    for message_batch in server.anthropic_batches.batches.values():
        bodies += [params for _, params in message_batch.requests]
    for job in server.gemini_batches.batches.values():
        bodies += [sent for _, sent in job.requests]
    return Counter(json.dumps(body, sort_keys=True) for body in bodies)


def _ok_lines(out: Path) -> set[str]:
    if not out.exists():
        return set()
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    return {line for line in lines if line.endswith("\n") and '"status":"ok"' in line}


def _resume_until_done(suite: Path, out: Path) -> None:
    """``--resume`` (or, if the killed run wrote nothing, a new run) until every row is ok and
    no batch is left. No run may rewrite a row already ``ok``."""
    said = ""
    for _ in range(8):
        kept = _ok_lines(out)
        how = ("--resume", out) if out.exists() else ("--out", out)
        result = run_cli("eval", suite, "--target", "cand", "--batch", *how)
        assert "Traceback" not in result.err, result.err
        assert result.code in (0, 1), result.err
        assert kept <= _ok_lines(out), "a resume wrote an ok row again"
        said = result.err
        if result.code == 0 and not state_path(out).exists():
            return
    raise AssertionError(f"not done after 8 resumes: {said}")


def _check(server: FakeServer, out: Path, provider: str) -> None:
    written = rows(out)
    assert sorted(r["eval_id"] for r in written) == [f"c{i}" for i in range(CASES)]
    assert {r["status"] for r in written} == {"ok"}
    sent = _batched(server)
    doubled = {body: count for body, count in sent.items() if count > 1}
    assert not doubled, f"submitted more than once: {doubled}"
    for row in written:
        assert json.dumps(row["wire_request"]["body"], sort_keys=True) in sent
        (judged,) = row["evaluator_results"]
        assert judged["score"] == VERDICT["score"]
        assert json.dumps(judged["raw_request"]["body"], sort_keys=True) in sent
    assert len(sent) == 2 * CASES  # each case's answer and judge, nothing else
    assert not server.requests_for(cast(ApiName, provider))  # nothing went out live


@pytest.mark.parametrize(
    ("trial", "provider", "kill"),
    [(n, list(PROVIDERS)[n % 4], KILLS[n % len(KILLS)]) for n in range(TRIALS)],
)
def test_a_killed_batched_run_resumed_submits_each_request_once(
    project: ProjectDir,
    forks: ForkServer,
    quick_batches: None,
    trial: int,
    provider: str,
    kill: str,
) -> None:
    faults = Faults(seed=2300 + trial, drops=random.Random(trial).randint(0, 2))
    with FakeServer.in_thread(judge_verdict=VERDICT) as server:
        server.batch_list_lag = faults.rng.choice([0.0, 0.05, 0.3])
        server.batch_delay = faults.rng.choice([0.0, 0.1, 0.3])
        server.batch_interrupt = faults
        suite = _project(project, server.url, provider, trial)
        out = project.root / "killed.jsonl"
        ready = _moment(kill, provider, faults, out)
        args = ["eval", str(suite), "--target", "cand", "--batch", "--out", str(out)]
        pid = forks.start(args, project.root, {}, project.root / "killed.err")
        code = forks.kill(pid, ready, settle=faults.rng.uniform(0, 0.3))
        if faults.held.is_set() and kill in HELD:  # else the run ended on another path
            assert code == -9, (project.root / "killed.err").read_text()
        faults.hold = _never
        _resume_until_done(suite, out)
        _check(server, out, provider)
