"""A run on a target with ``api: responses`` (docs/targets.md#the-responses-api): candidate
and judge both on the Responses API, a retried 429, the answer's usage priced, and a second
run served from the cache without a request."""

from __future__ import annotations

from typing import Any, cast

import pytest

from evalwright.testing import Fault, ReceivedRequest, Text
from tests.e2e.harness import E2E, is_judge

EVAL_FILE = "evals/responses.yaml"
EVAL = """execution:
  evaluators:
    - {name: says, type: contains, value: Paris}
    - {name: judge, type: llm_judge}
evalcases:
  - id: capital
    expected_outcome: Names Paris.
    input: What is the capital of France?
"""
TARGETS = """  - name: gpt-r
    provider: openai
    model: gpt-test
    base_url: {url}/v1
    api: responses
    judge_target: judge-r
    price: {{input: 1.0, output: 2.0}}
    retry: {{max_retries: 2, initial_delay_ms: 10, max_delay_ms: 50}}
  - name: judge-r
    provider: openai
    model: gpt-judge
    base_url: {url}/v1
    api: responses
"""
VERDICT = {"score": 0.75, "hits": ["names it"], "misses": [], "reasoning": "right"}


def _setup(e2e: E2E) -> list[ReceivedRequest]:
    targets = e2e.root / ".evalwright/targets.yaml"
    extra = TARGETS.format(url=e2e.server.url)
    targets.write_text(targets.read_text(encoding="utf-8") + extra, encoding="utf-8")
    e2e.project.write(EVAL_FILE, EVAL)
    received: list[ReceivedRequest] = []
    faults = iter([Fault(status=429, retry_after=0)])

    def answer(request: ReceivedRequest) -> Text | Fault | None:
        received.append(request)
        if is_judge(request):
            return None  # the server's judge verdict
        fault = next(faults, None)
        return fault or Text("Paris.", input_tokens=1000, output_tokens=500, cache_read_tokens=200)

    e2e.server.responder = answer
    e2e.server.judge_verdict = VERDICT
    return received


def test_a_responses_target_runs_judges_retries_prices_and_caches(e2e: E2E) -> None:
    received = _setup(e2e)

    first = e2e.run("eval", EVAL_FILE, "--target", "gpt-r", "--out", "first.jsonl", "--cache")

    assert first.code == 0, first.err + first.out
    assert [r.path for r in received] == ["/v1/responses"] * 3, "429, candidate, judge"
    assert all(r.api == "responses" for r in received)
    judge_body = cast(dict[str, Any], received[-1].json)
    assert judge_body["text"]["format"]["type"] == "json_schema"
    assert judge_body["store"] is False
    [row] = e2e.rows("first.jsonl")
    assert (row["status"], row["candidate_answer"], row["score"]) == ("ok", "Paris.", 0.875)
    assert row["attempts"] == 2
    assert row["finish_reason"] == "completed"
    assert row["wire_request"]["api"] == "openai.responses"
    assert row["usage"] == {
        "input_tokens": 1000,
        "output_tokens": 500,
        "cache_read_tokens": 200,
        "reasoning_tokens": 0,
    }
    assert row["cost_usd"] == pytest.approx((1000 * 1.0 + 500 * 2.0) / 1e6)

    received.clear()
    second = e2e.run("eval", EVAL_FILE, "--target", "gpt-r", "--out", "second.jsonl", "--cache")

    assert second.code == 0, second.err + second.out
    assert received == [], "the cache answers every request"
    [again] = e2e.rows("second.jsonl")
    assert again["cache"] == "hit"
    for key in ("candidate_answer", "score", "usage", "wire_request", "finish_reason"):
        assert again[key] == row[key], key
