"""Live conversations (``turns:``, docs/conversations.md) end to end against the fake server:
each turn's request grows by the previous reply and the next user turn on every chat API,
per-turn evaluators, the judge's transcript, concurrency, resume, cache and a cli target."""

from __future__ import annotations

import json
import re
import sys
import time
from typing import Any

import pytest

from evalwright.testing import FakeServer, ReceivedRequest, Text
from tests.e2e.harness import E2E, is_judge, judge_user_text, question_section

EVAL_FILE = "evals/talk.yaml"
THREE_TURNS = """evalcases:
  - id: talk
    expected_outcome: Keeps track of the conversation.
    input_messages:
      - {role: system, content: Be brief.}
    turns:
      - content: Turn one?
        evaluators:
          - {name: first, type: contains, value: reply 1}
      - Turn two?
      - content: [Turn three?]
        evaluators:
          - {name: third, type: contains, value: nowhere}
    execution:
      evaluators:
        - {name: whole, type: contains, value: reply 3}
"""
AZURE = """  - name: az
    provider: azure
    endpoint: {url}
    deployment: dep-test
    judge_target: judge
"""


def _entries(request: ReceivedRequest) -> list[Any]:
    """The request's conversation in its API's own form (system prompt apart)."""
    body = request.json
    if request.api == "gemini":
        return list(body["contents"])
    return [m for m in body["messages"] if m["role"] not in ("system", "developer")]


def _role_text(api: str, entry: Any) -> tuple[str, str]:
    """An entry's role (``user`` or ``assistant``) and text, in any API's form."""
    if api == "gemini":
        role = "assistant" if entry["role"] == "model" else entry["role"]
        return role, "".join(part["text"] for part in entry["parts"])
    content = entry["content"]
    if isinstance(content, list):
        content = "".join(block["text"] for block in content)
    return entry["role"], content


def _users(request: ReceivedRequest) -> int:
    """How many user turns a candidate request carries."""
    return sum(1 for e in _entries(request) if _role_text(request.api, e)[0] == "user")


def _numbered(request: ReceivedRequest) -> Text | None:
    """Answer ``reply N`` to the request with N user turns (judges fall through)."""
    if is_judge(request):
        return None
    return Text(f"reply {_users(request)}")


def _oracle(request: ReceivedRequest) -> None:
    """The body passes the API's outside oracle (tests/providers/test_oracles.py)."""
    from pydantic import TypeAdapter

    from tests.providers.test_oracles import materialize, openapi_validator

    body = request.json
    if request.api in ("openai", "azure"):
        errors = [e.message for e in openapi_validator("CreateChatCompletionRequest").iter_errors(body)]
        assert not errors, errors
    elif request.api == "anthropic":
        from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

        adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
        assert materialize(adapter.validate_python(body)) == body
    else:
        from google.genai import types

        for content in body["contents"]:
            types.Content.model_validate(content)


def _with_azure(e2e: E2E) -> None:
    targets = e2e.root / ".evalwright/targets.yaml"
    text = targets.read_text(encoding="utf-8")
    targets.write_text(text + AZURE.format(url=e2e.server.url), encoding="utf-8")
    e2e.env["AZURE_OPENAI_API_KEY"] = "az-test-key-0123456789"


@pytest.mark.parametrize("target", ["oa", "az", "an", "ge"])
def test_three_turns_grow_by_the_reply_and_the_next_turn(e2e: E2E, target: str) -> None:
    _with_azure(e2e)
    e2e.project.write(EVAL_FILE, THREE_TURNS)
    e2e.server.responder = _numbered

    result = e2e.run("eval", EVAL_FILE, "--target", target, "--out", "results.jsonl")

    assert result.code == 0, result.err
    sent = e2e.candidates()
    assert len(sent) == 3
    api = sent[0].api
    convo = [[_role_text(api, e) for e in _entries(r)] for r in sent]
    assert convo[0] == [("user", "Turn one?")]
    assert convo[1] == [*convo[0], ("assistant", "reply 1"), ("user", "Turn two?")]
    assert convo[2] == [*convo[1], ("assistant", "reply 2"), ("user", "Turn three?")]
    assert all(r.system_prompt == "Be brief." for r in sent)
    for request in sent:
        _oracle(request)
    (row,) = e2e.rows()
    assert [t["reply"] for t in row["turns"]] == ["reply 1", "reply 2", "reply 3"]
    assert [t["wire_request"]["body"] for t in row["turns"]] == [r.json for r in sent]
    assert row["wire_request"]["body"] == sent[-1].json
    assert row["candidate_answer"] == "reply 3"


def test_each_turn_is_scored_and_the_case_score_combines_them(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, THREE_TURNS)
    e2e.server.responder = _numbered

    e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    (row,) = e2e.rows()
    turns = row["turns"]
    assert [t["turn"] for t in turns] == [1, 2, 3]
    assert [t["score"] for t in turns] == [1.0, None, 0.0]
    assert [[r["name"] for r in t["evaluator_results"]] for t in turns] == [["first"], [], ["third"]]
    assert [r["name"] for r in row["evaluator_results"]] == ["whole"]
    # whole (1) + first (1) + third (0), each of weight 1
    assert row["score"] == pytest.approx(2 / 3)
    assert "turn 3: " in " ".join(row["misses"])
    assert row["usage"]["input_tokens"] == sum(t["usage"]["input_tokens"] for t in turns)


def test_the_judge_sees_the_whole_transcript(e2e: E2E) -> None:
    e2e.project.write(
        EVAL_FILE,
        THREE_TURNS.replace("{name: whole, type: contains, value: reply 3}", "{name: j, type: llm_judge}"),
    )
    e2e.server.responder = _numbered
    e2e.server.judge_verdict = {"score": 1, "hits": [], "misses": [], "reasoning": "fine"}

    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    assert result.code in (0, 1), result.err
    (judge,) = e2e.judges()
    prompt = judge_user_text(judge)
    assert question_section(prompt) == (
        "@[System]:\nBe brief.\n\n@[User]:\nTurn one?\n\n@[Assistant]:\nreply 1\n\n"
        "@[User]:\nTurn two?\n\n"
        "@[Assistant]:\nreply 2\n\n@[User]:\nTurn three?"
    )
    (row,) = e2e.rows()
    assert question_section(prompt) == row["raw_request"]["question"]
    assert "[[ ## candidate_answer ## ]]\nreply 3" in prompt
