"""``evalwright eval`` (the whole runner, in this process) against the fake server, checked row
by row."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from evalwright.results.rows import ROW_KEYS
from evalwright.testing import ReceivedRequest, Text
from tests.e2e.harness import (
    E2E,
    JUDGE_PREFIX,
    OPENAI_KEY,
    is_judge,
    judge_user_text,
    question_section,
)

SPEC_KEYS = {
    "run_id",
    "timestamp",
    "eval_file",
    "eval_id",
    "dataset",
    "conversation_id",
    "target",
    "provider",
    "status",
    "score",
    "hits",
    "misses",
    "reasoning",
    "candidate_answer",
    "finish_reason",
    "expected_outcome",
    "reference_answer",
    "raw_request",
    "wire_request",
    "delivery_notes",
    "trace",
    "evaluator_results",
    "usage",
    "latency_ms",
    "attempts",
    "cache",
    "error",
}
CHECK = """import json, sys
case = json.load(sys.stdin)
keys = sorted(case)
ok = "answer" in case["candidate_answer"]
print(json.dumps({"score": 1 if ok else 0, "hits": keys, "misses": [], "reasoning": "seen"}))
"""
EVAL = """description: end to end
execution:
  evaluators:
    - {name: says-answer, type: contains, value: answer}
    - {name: script, type: code, script: [python3, check.py], weight: 2}
    - {name: judge, type: llm_judge}
evalcases:
  - id: single
    expected_outcome: Answers briefly.
    input: What is 2+2?
    expected_output: "4"
  - id: multi
    conversation_id: thread-7
    metadata: {owner: qa, tags: [a, b]}
    expected_outcome: Reviews the code using the guideline.
    input_messages:
      - role: system
        content: You review code.
      - role: user
        content:
          - Review this
          - {type: file, value: style.instructions.md}
          - {type: file, value: code.js}
      - role: assistant
        content: Which part?
      - role: user
        content: All of it.
  - id: tools
    expected_outcome: Lists the files.
    input_messages:
      - {role: user, content: Run it}
      - role: assistant
        content: ok
        tool_calls: [{id: c1, name: run, arguments: {cmd: ls}}]
      - {role: tool, content: a.txt, tool_call_id: c1, name: run}
      - {role: user, content: Which files?}
"""
VERDICT = {"score": 0.8, "hits": ["clear"], "misses": ["terse"], "reasoning": "fine"}


def _answer_for(request: ReceivedRequest) -> Text | None:
    """A distinct answer per request, so each judge request can be tied to its row."""
    if is_judge(request):
        return None
    digest = hashlib.sha256(request.body).hexdigest()[:10]
    return Text(f"answer {request.api} {digest}", input_tokens=11, output_tokens=5)


def _write(e2e: E2E, text: str = EVAL) -> None:
    e2e.project.write("evals/e2e.yaml", text)
    e2e.project.write("evals/check.py", CHECK)
    e2e.project.write("evals/style.instructions.md", "Be concise.\n")
    e2e.project.write("evals/code.js", "console.log('test')\n")


def test_rows_are_complete_and_match_what_the_server_received(e2e: E2E) -> None:
    _write(e2e)
    e2e.server.responder = _answer_for
    e2e.server.judge_verdict = VERDICT
    result = e2e.run(
        "eval",
        "evals/e2e.yaml",
        "--target",
        "oa",
        "--target",
        "an",
        "--target",
        "ge",
        "--out",
        "results.jsonl",
    )
    assert result.code == 0, result.err + result.out
    assert "Traceback" not in result.err
    rows = e2e.rows()
    assert len(rows) == 9
    assert {(r["eval_id"], r["target"]) for r in rows} == {
        (c, t) for c in ("single", "multi", "tools") for t in ("oa", "an", "ge")
    }
    judges = {judge_user_text(r): r for r in e2e.judges()}
    candidates = e2e.candidates()
    assert len(candidates) == 9
    assert len(judges) == 9
    for row in rows:
        _check_row(row, candidates, judges)
    assert len({r["run_id"] for r in rows}) == 1
    assert OPENAI_KEY not in (e2e.root / "results.jsonl").read_text(encoding="utf-8")


def _check_row(
    row: dict[str, Any], candidates: list[ReceivedRequest], judges: dict[str, ReceivedRequest]
) -> None:
    late = {"metadata", "tags", "repeat", "passed", "pass_rule", "cost_usd", "judge_cost_usd"}
    assert set(row) == SPEC_KEYS | late
    assert list(row) == list(ROW_KEYS)
    assert row["status"] == "ok", row["error"]
    assert (row["passed"], row["pass_rule"]) == (True, "all")
    assert row["error"] is None
    received = [c for c in candidates if c.json == row["wire_request"]["body"]]
    assert len(received) == 1, "the body the server got is the recorded wire body"
    assert row["provider"] == {"oa": "openai", "an": "anthropic", "ge": "gemini"}[row["target"]]
    assert row["candidate_answer"].startswith("answer ")
    assert row["usage"] == {"input_tokens": 11, "output_tokens": 5}
    assert (row["cost_usd"], row["judge_cost_usd"]) == (None, None), "no price for a test server"
    assert (row["attempts"], row["cache"]) == (1, "off")
    assert row["eval_file"] == "evals/e2e.yaml"
    assert row["dataset"] == "e2e"
    results = {r["name"]: r for r in row["evaluator_results"]}
    assert [r["name"] for r in row["evaluator_results"]] == ["says-answer", "script", "judge"]
    assert results["says-answer"]["score"] == 1.0
    assert results["script"]["raw_request"]["argv"] == ["python3", "check.py"]
    assert results["script"]["hits"] == sorted(
        [
            "question",
            "expected_outcome",
            "reference_answer",
            "candidate_answer",
            "guidelines",
            "input_messages",
            "expected_messages",
            "guideline_paths",
            "input_files",
            "tool_calls",
            "case_id",
            "target",
            "metadata",
            "vars",
            "usage",
            "trace",
            # AgentV's and promptfoo's names for the same facts (docs/eval-files.md#code).
            "output",
            "input",
            "criteria",
            "expected_output",
            "token_usage",
        ]
    )
    judge_row = results["judge"]
    assert (judge_row["score"], judge_row["hits"], judge_row["misses"]) == (
        0.8,
        ["clear"],
        ["terse"],
    )
    assert row["score"] == (1.0 * 1 + 1.0 * 2 + 0.8 * 1) / 4
    assert row["reasoning"].splitlines()[-1] == "judge: fine"
    judge = next(text for text in judges if row["candidate_answer"] in text)
    assert question_section(judge) == row["raw_request"]["question"]
    assert judges[judge].json == judge_row["raw_request"]["body"]
    assert judge_row["raw_request"]["body"]["messages"][0]["content"].startswith(JUDGE_PREFIX)
    assert judges[judge].json["response_format"]["type"] == "json_schema"
    _check_case_fields(row)


def _check_case_fields(row: dict[str, Any]) -> None:
    raw = row["raw_request"]
    if row["eval_id"] == "single":
        assert raw["chat_prompt"] is None
        assert raw["question"] == "What is 2+2?"
        assert row["reference_answer"] == "4"
    elif row["eval_id"] == "multi":
        assert row["conversation_id"] == "thread-7"
        assert row["metadata"] == {"owner": "qa", "tags": ["a", "b"]}
        assert raw["guidelines"] == '<file path="style.instructions.md">\nBe concise.\n</file>'
        assert raw["guideline_paths"][0].endswith("/evals/style.instructions.md")
        assert raw["input_files"][0].endswith("/evals/code.js")
        assert [m["role"] for m in raw["chat_prompt"]] == ["system", "user", "assistant", "user"]
    else:
        assert raw["chat_prompt"][2]["tool_calls"] == [
            {"id": "c1", "name": "run", "arguments": {"cmd": "ls"}}
        ]
        assert row["delivery_notes"] == []


def test_the_judge_gets_expected_and_reference_texts(e2e: E2E) -> None:
    _write(e2e)
    e2e.server.judge_verdict = VERDICT
    result = e2e.run(
        "eval", "evals/e2e.yaml", "--target", "oa", "--eval-id", "single", "--out", "results.jsonl"
    )
    assert result.code == 0, result.err
    (judge,) = e2e.judges()
    prompt = judge_user_text(judge)
    assert "[[ ## expected_outcome ## ]]\nAnswers briefly.\n\n" in prompt
    assert "[[ ## reference_answer ## ]]\n4\n\n" in prompt
    assert prompt.endswith("[[ ## candidate_answer ## ]]\nfake answer")
    assert "[[ ## Guidelines ## ]]" not in prompt
    assert judge.json["messages"][0]["role"] == "system"


def test_default_results_path_and_summary(e2e: E2E) -> None:
    _write(e2e)
    e2e.server.judge_verdict = VERDICT
    result = e2e.run("eval", "evals/e2e.yaml", "--target", "an", "--eval-id", "s*")
    assert result.code == 0, result.err
    found = list((e2e.root / ".evalwright" / "results").glob("e2e-*.jsonl"))
    assert len(found) == 1
    row = json.loads(found[0].read_text(encoding="utf-8"))
    assert found[0].name == f"e2e-{row['run_id']}.jsonl", "the default name holds the run id"
    assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{8}", row["run_id"])
    assert f"results: .evalwright/results/e2e-{row['run_id']}.jsonl" in result.out
    assert sorted(p.name for p in found[0].parent.iterdir()) == [found[0].name], "no lock left"
    header = result.out.splitlines()[0].split()
    assert header[:4] == ["target", "cases", "mean", "passed"]
    line = next(ln for ln in result.out.splitlines() if ln.startswith("an "))
    assert line.split()[1:5] == ["1", "0.950", "1/1", "0"]
    assert row["score"] == 0.95
