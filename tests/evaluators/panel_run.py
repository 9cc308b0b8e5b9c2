"""A project whose candidate target and three judge targets (``ja``, ``jb``, ``jc``) are
OpenAI targets on one fake server, each judge scripted per case by its model name."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from evalwright.testing import Action, FakeServer, Text, Verdict
from evalwright.testing.recorded import ReceivedRequest
from tests.conftest import CliResult, ProjectDir, run_cli

JUDGES = ("ja", "jb", "jc")
Script = Mapping[str, Mapping[str, float | str]]
"""Per case id, per judge target: its score, or a text that is no verdict."""


def write_project(project: ProjectDir, url: str, cases: list[str], evaluator: str) -> Path:
    """The targets file and one eval file of ``cases`` (each asks ``Case ID?``) judged by
    ``evaluator`` (a flow mapping); returns the eval file."""
    targets = [f"  - name: cand\n    provider: openai\n    model: cand\n    base_url: {url}/v1\n"]
    for judge in JUDGES:
        targets.append(
            f"  - name: {judge}\n    provider: openai\n    model: model-{judge}\n"
            f"    base_url: {url}/v1\n    retry: {{max_retries: 0}}\n"
        )
    project.write(".evalwright/targets.yaml", "targets:\n" + "".join(targets))
    body = "".join(
        f"  - id: {case}\n    expected_outcome: Good.\n    input: Case {case}?\n" for case in cases
    )
    text = f"execution:\n  evaluators:\n    - {evaluator}\nevalcases:\n{body}"
    return project.write("evals/panel.yaml", text)


def responder(script: Script) -> Callable[[ReceivedRequest], Action]:
    """Answers the candidate with ``fine``, and each judge as ``script`` says."""

    def respond(request: ReceivedRequest) -> Action:
        model = request.json["model"]
        if model == "cand":
            return Text("fine")
        prompt = json.dumps(request.json["messages"])
        case = next(c for c in script if f"Case {c}?" in prompt)
        given = script[case][model.removeprefix("model-")]
        if isinstance(given, str):
            return Text(given)
        return Verdict(given, reasoning=f"{model} on {case}").to_text()

    return respond


def run_panel(
    project: ProjectDir, fake: FakeServer, script: Script, evaluator: str, *options: str
) -> tuple[CliResult, list[dict[str, Any]]]:
    """Run the scripted cases through the command line; the result and the rows."""
    suite = write_project(project, fake.url, list(script), evaluator)
    fake.responder = responder(script)
    out = project.root / "r.jsonl"
    result = run_cli("eval", suite, "--target", "cand", "--out", out, *options)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return result, sorted(rows, key=lambda row: row["eval_id"])
