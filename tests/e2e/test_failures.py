"""How failures end up on rows: bad judge replies, failing scripts, failing targets."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalwright.testing import Fault, Text
from tests.e2e.harness import E2E

JUDGED = """execution:
  evaluators:
    - {name: keyword, type: contains, value: fake}
    - {name: judge, type: llm_judge}
evalcases:
  - id: only
    expected_outcome: Says something.
    input: Say something.
"""


def _run(e2e: E2E, eval_text: str = JUDGED, *args: str) -> list[dict[str, Any]]:
    e2e.project.write("evals/case.yaml", eval_text)
    result = e2e.run("eval", "evals/case.yaml", "--target", "oa", "--out", "results.jsonl", *args)
    assert "Traceback" not in result.err
    rows = e2e.rows()
    # The rows' recorded verdicts decide the exit status (docs/running.md#exit-status).
    assert result.code == (0 if all(r["passed"] for r in rows) else 1), result.err
    return rows


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("The answer looks good to me, I would give it a high score.", "not JSON"),
        ('{"score": 0.5, "hits": [', "not JSON"),
        ('{"score": 1.7, "hits": [], "misses": [], "reasoning": "great"}', "outside [0, 1]"),
    ],
    ids=["prose", "broken-json", "out-of-range"],
)
def test_a_bad_judge_reply_twice_is_an_evaluator_error(e2e: E2E, reply: str, problem: str) -> None:
    e2e.server.enqueue(Text("fake answer"), Text(reply), Text(reply))
    (row,) = _run(e2e)
    assert (row["status"], row["score"]) == ("error", None)
    assert row["error"]["type"] == "evaluator_error"
    assert problem in row["error"]["message"]
    assert "judge" in row["error"]["message"]
    results = {r["name"]: r for r in row["evaluator_results"]}
    assert results["keyword"]["status"] == "ok"  # every evaluator that ran is kept
    assert results["judge"]["status"] == "error"
    assert results["judge"]["score"] is None
    assert results["judge"]["raw_request"]["api"] == "openai.chat.completions"
    assert len(e2e.judges()) == 2


def test_one_bad_judge_reply_is_retried(e2e: E2E) -> None:
    verdict = json.dumps({"score": 0.4, "hits": [], "misses": ["x"], "reasoning": "meh"})
    e2e.server.enqueue(Text("fake answer"), Text("no idea"), Text(f"```json\n{verdict}\n```"))
    (row,) = _run(e2e)
    assert row["status"] == "ok"
    assert row["score"] == pytest.approx((1.0 + 0.4) / 2)
    assert row["passed"] is False, "the judge's 0.4 is below the pass mark: rule all fails it"
    assert len(e2e.judges()) == 2


def test_a_failing_code_evaluator_carries_its_stderr_tail(e2e: E2E) -> None:
    e2e.project.write(
        "evals/fail.py",
        "import sys\nprint('x' * 3000, file=sys.stderr)\n"
        "print('the real reason: no config', file=sys.stderr)\nsys.exit(1)\n",
    )
    text = JUDGED.replace(
        "{name: judge, type: llm_judge}", "{name: script, type: code, script: [python3, fail.py]}"
    )
    (row,) = _run(e2e, text)
    assert (row["status"], row["score"]) == ("error", None)
    assert row["error"]["type"] == "evaluator_error"
    message = row["error"]["message"]
    assert "exited with status 1" in message
    assert message.endswith("the real reason: no config")
    assert len(message) < 2200  # only the last 2,000 characters of stderr


def test_a_code_evaluator_timeout_and_bad_output(e2e: E2E) -> None:
    e2e.project.write("evals/slow.py", "import time\ntime.sleep(30)\n")
    e2e.project.write("evals/noisy.py", "print('not json')\n")
    text = JUDGED.replace(
        "{name: judge, type: llm_judge}",
        "{name: slow, type: code, script: 'exec python3 slow.py', timeout_seconds: 0.5}\n"
        "    - {name: noisy, type: code, script: [python3, noisy.py]}",
    )
    (row,) = _run(e2e, text)
    results = {r["name"]: r for r in row["evaluator_results"]}
    assert "timed out after 0.5 s" in results["slow"]["reasoning"]
    assert "printed no valid verdict" in results["noisy"]["reasoning"]
    assert row["error"]["message"].startswith("evaluator 'slow'")


def test_a_target_failure_is_a_row_not_a_crash(e2e: E2E) -> None:
    e2e.server.enqueue(Fault(401, body={"error": {"message": "bad key"}}))
    (row,) = _run(e2e)
    assert (row["status"], row["score"]) == ("error", None)
    url = f"{e2e.server.url}/v1/chat/completions"
    assert row["error"] == {"type": "target_error", "message": f"HTTP 401 from {url}: bad key"}
    assert row["evaluator_results"] == []
    assert row["wire_request"]["api"] == "openai.chat.completions"
    assert row["attempts"] == 1


def test_retries_are_counted_on_the_row(e2e: E2E) -> None:
    e2e.server.enqueue(Fault(503), Text("fake answer"))
    e2e.server.judge_verdict = {"score": 1, "hits": [], "misses": [], "reasoning": "ok"}
    (row,) = _run(e2e)
    assert row["status"] == "ok"
    assert row["attempts"] == 2


def test_one_failing_case_does_not_stop_the_others(e2e: E2E) -> None:
    text = (
        JUDGED
        + """  - id: second
    expected_outcome: Says something else.
    input: Say something else.
"""
    )
    e2e.server.judge_verdict = {"score": 1, "hits": [], "misses": [], "reasoning": "ok"}
    e2e.server.enqueue(Fault(400, body={"error": {"message": "nope"}}), api="openai")
    rows = _run(e2e, text, "--workers", "1")
    assert [r["status"] for r in rows] == ["error", "ok"]
