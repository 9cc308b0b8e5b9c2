"""evalwright against a real llama.cpp server (docs/local-models.md): every worked example of
docs/delivery.md#worked-examples is accepted and answered, the judge's structured output is
accepted, the cache asks nothing twice, and Ctrl-C then ``--resume`` loses and repeats nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from evalwright.evaluators.texts import SCORES
from tests.conftest import CliResult, ProjectDir, run_cli
from tests.e2e.background import interrupt_after_rows
from tests.e2e.harness import base_env, environment
from tests.local.llama import LlamaServer
from tests.local.proxy import counting_proxy
from tests.scenarios import SCENARIOS, write_scenarios

TOOL_HISTORY = [s for s in SCENARIOS if any(m.get("tool_calls") for m in s.messages)]


def targets(url: str) -> str:
    """A llama.cpp target, answers kept short and deterministic, judged by the same server at
    the judge's default output limit. A 135M judge rambles inside the verdict's strings until
    the limit; llama.cpp's own ``repeat_penalty`` (through ``extra_body``) stops that."""
    return f"""targets:
  - name: default
    provider: openai
    model: smollm2
    base_url: {url}/v1
    api_key: sk-local-unused
    max_output_tokens: 24
    temperature: 0
    workers: 4
    judge_target: judge
    retry: {{max_retries: 1, initial_delay_ms: 50, max_delay_ms: 100}}
  - name: judge
    provider: openai
    model: smollm2
    base_url: {url}/v1
    api_key: sk-local-unused
    workers: 4
    settings: {{extra_body: {{repeat_penalty: 1.3}}}}
"""


ANSWERED = {"evaluators": [{"name": "any-reply", "type": "regex", "value": "^"}]}
"""An evaluator every reply passes, the empty one too (the judge has its own test): a model
may end its turn at once, which is an answer."""


def scenarios(project: ProjectDir, count: int = len(SCENARIOS)) -> None:
    """The worked examples as one eval file, checked by :data:`ANSWERED` only."""
    path = write_scenarios(project.root, SCENARIOS[:count])
    document = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({"execution": ANSWERED, **document}), encoding="utf-8")


def _run(project: ProjectDir, *args: str) -> CliResult:
    with environment(project.root, base_env()):
        return run_cli(*args)


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_worked_example_is_accepted_and_answered(
    llama: LlamaServer, project: ProjectDir
) -> None:
    project.write(".evalwright/targets.yaml", targets(llama.url))
    scenarios(project)
    result = _run(project, "eval", "evals/scenarios.yaml", "--out", "out.jsonl", "--workers", "4")
    assert result.code == 0, result.err + result.out
    rows = _rows(project.root / "out.jsonl")
    assert {r["eval_id"] for r in rows} == {s.id for s in SCENARIOS}
    for row in rows:
        assert row["status"] == "ok", (row["eval_id"], row["error"])
        assert row["finish_reason"] in ("stop", "length"), row["eval_id"]
    # SmolLM2 may end its turn at once after tool results; nearly every case says something.
    assert sum(bool(row["candidate_answer"]) for row in rows) >= len(rows) - 2
    assert TOOL_HISTORY, "the worked examples hold tool-call history"
    textless = [
        m for s in TOOL_HISTORY for m in s.messages if m.get("tool_calls") and not m.get("content")
    ]
    assert textless, "and an assistant turn with tool calls and no text"


JUDGED = [
    ("capital", "Names Paris as the capital of France.", "What is the capital of France?"),
    ("sum", "Gives 4.", "What is 2+2? Answer with a number."),
    ("colour", "Says the sky is blue.", "What colour is a clear daytime sky?"),
    ("greeting", "Greets the user politely.", "Say hello to me."),
]


def test_the_judges_verdicts_parse_under_the_default_structured_output(
    llama: LlamaServer, project: ProjectDir
) -> None:
    # Before the verdict schema listed its scores, llama.cpp's grammar bounded only the type:
    # SmolLM2 answered schema-valid verdicts such as score 4, which failed the range check.
    project.write(".evalwright/targets.yaml", targets(llama.url))
    cases = "".join(
        f"  - id: {name}\n    expected_outcome: {outcome}\n    input: {question}\n"
        for name, outcome, question in JUDGED
    )
    evaluators = "execution:\n  evaluators:\n    - {name: judge, type: llm_judge}\n"
    project.write("evals/judged.yaml", f"{evaluators}evalcases:\n{cases}")
    _run(project, "eval", "evals/judged.yaml", "--out", "out.jsonl", "--workers", "4")
    rows = _rows(project.root / "out.jsonl")
    assert len(rows) == len(JUDGED)
    for row in rows:
        assert row["candidate_answer"], row["error"]
        (judged,) = row["evaluator_results"]
        assert judged["status"] == "ok", judged
        assert judged["score"] in SCORES, judged
        schema = judged["raw_request"]["body"]["response_format"]["json_schema"]["schema"]
        assert schema["properties"]["score"]["enum"] == list(SCORES)


def test_a_second_cached_run_sends_no_request(llama: LlamaServer, project: ProjectDir) -> None:
    scenarios(project, 3)
    with counting_proxy(llama.url) as proxy:
        project.write(".evalwright/targets.yaml", targets(proxy.url))
        first = _run(project, "eval", "evals/scenarios.yaml", "--cache", "--out", "1.jsonl")
        assert first.code == 0, first.err
        assert len([s for s in proxy.seen if s.startswith("POST")]) == 3
        second = _run(project, "eval", "evals/scenarios.yaml", "--cache", "--out", "2.jsonl")
        assert second.code == 0, second.err
        assert len([s for s in proxy.seen if s.startswith("POST")]) == 3, proxy.seen
    answers = {r["eval_id"]: r["candidate_answer"] for r in _rows(project.root / "1.jsonl")}
    assert {r["eval_id"]: r["candidate_answer"] for r in _rows(project.root / "2.jsonl")} == answers


def test_ctrl_c_then_resume_completes_without_duplicates(
    llama: LlamaServer, project: ProjectDir
) -> None:
    project.write(".evalwright/targets.yaml", targets(llama.url))
    lines = ["execution:", "  evaluators:", "    - {name: answered, type: regex, value: .}"]
    lines.append("evalcases:")
    for i in range(24):
        lines += [f"  - id: case-{i:02}", "    expected_outcome: Counts."]
        lines.append(f"    input: Count from {i} to {i + 5}.")
    project.write("evals/many.yaml", "\n".join(lines) + "\n")
    path = project.root / "out.jsonl"
    command = [sys.executable, "-m", "evalwright", "eval", "evals/many.yaml", "--workers", "1"]
    process = subprocess.Popen(
        [*command, "--out", str(path)],
        cwd=project.root,
        env=base_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    err = interrupt_after_rows(path, 2, process, timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    interrupted = _rows(path)
    assert 2 <= len(interrupted) < 24, "Ctrl-C landed mid-run"
    resumed = _run(project, "eval", "evals/many.yaml", "--resume", "out.jsonl")
    assert resumed.code == 0, resumed.err + resumed.out
    rows = _rows(path)
    ids = [r["eval_id"] for r in rows]
    assert sorted(ids) == [f"case-{i:02}" for i in range(24)], "no duplicate, none missing"
    assert all(r["status"] == "ok" for r in rows)
    assert {r["run_id"] for r in rows} == {interrupted[0]["run_id"]}
    assert [json.dumps(r) for r in rows[: len(interrupted)]] == [
        json.dumps(r) for r in interrupted
    ], "the rows written before Ctrl-C are kept as they were"
