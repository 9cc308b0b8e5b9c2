"""Real runs for the report's aggregate views: two priced OpenAI targets of the fake server,
tagged cases with an evaluator each, repeated, one case flaky on one target."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

from evalwright.testing import FakeServer, ReceivedRequest, Text
from tests.conftest import ProjectDir, run_cli
from tests.e2e.harness import base_env, environment

REPEATS = 4
EVAL = """tags: [demo]
evalcases:
  - id: capital
    tags: [geo, easy]
    expected_outcome: Names Paris.
    input: Capital of France?
    execution: {evaluators: [{name: names-paris, type: contains, value: Paris}]}
  - id: louvre
    tags: [geo]
    expected_outcome: Names Paris.
    input: City of the Louvre?
    execution: {evaluators: [{name: names-paris, type: contains, value: Paris}]}
  - id: greeting
    tags: [manners]
    expected_outcome: Says please.
    input: Want tea?
    execution: {evaluators: [{name: polite, type: contains, value: please}]}
  - id: sum
    tags: [math]
    expected_outcome: Says 4.
    input: Two plus two?
    execution: {evaluators: [{name: four, type: contains, value: "4"}]}
"""
TARGETS = """targets:
  - name: cheap
    provider: openai
    model: cheap-model
    base_url: {url}/v1
    price: {{input: 1, output: 2}}
  - name: dear
    provider: openai
    model: dear-model
    base_url: {url}/v1
    price: {{input: 10, output: 30}}
"""
ANSWERS = {
    ("cheap-model", "Capital of France?"): "Paris.",
    ("dear-model", "Capital of France?"): "Paris, the capital.",
    ("cheap-model", "City of the Louvre?"): "Lyon.",
    ("dear-model", "City of the Louvre?"): "Paris.",
    ("dear-model", "Want tea?"): "Yes please.",
    ("cheap-model", "Two plus two?"): "4",
    ("dear-model", "Two plus two?"): "Five.",
}
"""Each target's answer to each question; ``cheap`` answers the greeting with and without
"please" in turn (flaky: 2 of 4 repeats pass)."""


class Model:
    """The fake server's answers: :data:`ANSWERS`, and the flaky greeting; with ``worse``,
    ``dear`` answers the Louvre wrong too (the baseline run)."""

    def __init__(self, worse: bool = False) -> None:
        self.worse = worse
        self.calls: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()

    def __call__(self, request: ReceivedRequest) -> Text:
        model = request.json["model"]
        question = next(m["content"] for m in request.json["messages"] if m["role"] == "user")
        with self.lock:
            self.calls[(model, question)] += 1
            calls = self.calls[(model, question)]
        if model == "cheap-model" and question == "Want tea?":
            return Text("Yes please." if calls % 2 else "No.")
        if self.worse and model == "dear-model" and question == "City of the Louvre?":
            return Text("Lyon.")
        return Text(ANSWERS[(model, question)])


def run_priced(root: Path, name: str, *, worse: bool = False) -> Path:
    """A real run of :data:`EVAL` on ``cheap`` and ``dear``, :data:`REPEATS` times: its
    results file ``NAME.jsonl`` in ``root``."""
    project = ProjectDir(root)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    with FakeServer.in_thread() as server:
        project.write(".evalwright/targets.yaml", TARGETS.format(url=server.url))
        project.write("evals/priced.yaml", EVAL)
        server.responder = Model(worse)
        out = root / f"{name}.jsonl"
        with environment(root, base_env()):
            result = run_cli(
                "eval", "evals/priced.yaml", "--target", "cheap", "--target", "dear",
                "--repeat", str(REPEATS), "--out", out,
            )  # fmt: skip
        assert result.code in (0, 1), result.err
        return out
