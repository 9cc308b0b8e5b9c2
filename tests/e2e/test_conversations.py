"""Live conversations (``turns:``, docs/conversations.md) end to end against the fake server:
each turn's request grows by the previous reply and the next user turn on every chat API,
per-turn evaluators, the judge's transcript, concurrency, resume, cache and a cli target."""

from __future__ import annotations

import json
import re
import sys
from typing import Any, cast

import pytest

from evalwright import jsontext
from evalwright.providers.wire import AgentWireRequest
from evalwright.results.row import ROW_KEYS
from evalwright.testing import Fault, ReceivedRequest, Text
from tests.e2e.harness import E2E, body_bytes, is_judge, judge_user_text, question_section

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
      pass: mean  # graded by the mean: turn three's check fails on purpose
      evaluators:
        - {name: whole, type: contains, value: reply 3}
"""
AZURE = """  - name: az
    provider: azure
    endpoint: {url}
    deployment: dep-test
    judge_target: judge
  - name: az-responses
    provider: azure
    endpoint: {url}
    deployment: dep-test
    judge_target: judge
    api: responses
"""
TARGETS = ["oa", "az", "an", "ge", "az-responses"]


def _entries(request: ReceivedRequest) -> list[Any]:
    """The request's conversation in its API's own form (system prompt apart)."""
    body = request.json
    if request.api == "gemini":
        return list(body["contents"])
    entries = body["input"] if request.api == "responses" else body["messages"]
    return [m for m in entries if m["role"] not in ("system", "developer")]


def _role_text(api: str, entry: Any) -> tuple[str, str]:
    """An entry's role (``user`` or ``assistant``) and text, in any API's form."""
    if api == "gemini":
        role = "assistant" if entry["role"] == "model" else entry["role"]
        return role, "".join(part["text"] for part in entry["parts"])
    content: Any = entry["content"]
    if isinstance(content, list):
        blocks = cast(list[dict[str, str]], content)
        content = "".join(block["text"] for block in blocks)
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
    if request.api == "responses":
        from openai.types.responses.response_create_params import (
            ResponseCreateParamsNonStreaming,
        )

        errors = [e.message for e in openapi_validator("CreateResponse").iter_errors(body)]
        assert not errors, errors
        sdk: TypeAdapter[Any] = TypeAdapter(ResponseCreateParamsNonStreaming)
        assert materialize(sdk.validate_python(body)) == body
    elif request.api in ("openai", "azure"):
        errors = [
            e.message for e in openapi_validator("CreateChatCompletionRequest").iter_errors(body)
        ]
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


@pytest.mark.parametrize("target", TARGETS)
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
    (row,) = e2e.results()
    assert row.turns is not None
    assert [t.wire_added is not None for t in row.turns] == [False, True, True], "stored linearly"
    turns = list(row.full_turns())
    assert [t.reply for t in turns] == ["reply 1", "reply 2", "reply 3"]
    assert [body_bytes(t.wire_request) for t in turns] == [r.body for r in sent]
    assert (row.raw_request, row.wire_request) == (None, None), "the last turn holds them"
    assert row.candidate_answer == "reply 3"


def test_each_turn_is_scored_and_the_case_score_combines_them(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, THREE_TURNS)
    e2e.server.responder = _numbered

    e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    (row,) = e2e.rows()
    assert list(row) == [*ROW_KEYS, "turns"]
    turns = row["turns"]
    assert [t["turn"] for t in turns] == [1, 2, 3]
    assert [t["score"] for t in turns] == [1.0, None, 0.0]
    assert [[r["name"] for r in t["evaluator_results"]] for t in turns] == [
        ["first"],
        [],
        ["third"],
    ]
    assert [r["name"] for r in row["evaluator_results"]] == ["whole"]
    # whole (1) + first (1) + third (0), each of weight 1
    assert row["score"] == pytest.approx(2 / 3)
    assert "turn 3: " in " ".join(row["misses"])
    assert row["usage"]["input_tokens"] == sum(t["usage"]["input_tokens"] for t in turns)


def test_under_the_default_rule_a_failed_turn_check_fails_the_case(e2e: E2E) -> None:
    """Without ``pass: mean`` the case is judged by ``all`` (docs/eval-files.md#pass-rules):
    turn three's failed check fails it, whatever its weighted score of 2/3."""
    e2e.project.write(EVAL_FILE, THREE_TURNS.replace("      pass: mean", "      pass: all"))
    e2e.server.responder = _numbered

    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    assert result.code == 1, result.err
    (row,) = e2e.rows()
    assert (row["score"], row["passed"]) == (pytest.approx(2 / 3), False)
    why = "evaluator 'third' scored 0, below the pass mark 0.5"
    assert why in row["misses"]
    assert row["reasoning"].splitlines()[0] == why


def test_the_judge_sees_the_whole_transcript(e2e: E2E) -> None:
    e2e.project.write(
        EVAL_FILE,
        THREE_TURNS.replace(
            "{name: whole, type: contains, value: reply 3}", "{name: j, type: llm_judge}"
        ),
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
    (row,) = e2e.results()
    last = list(row.full_turns())[-1]
    assert last.raw_request is not None
    assert question_section(prompt) == last.raw_request.question
    assert "[[ ## candidate_answer ## ]]\nreply 3" in prompt


JUDGED = """evalcases:
  - id: talk
    expected_outcome: Keeps track of the conversation.
    input_messages:
      - {role: system, content: Be brief.}
    turns:
      - Turn one?
      - content: Turn two?
        evaluators:
          - {name: second, type: llm_judge}
      - Turn three?
    execution:
      evaluators:
        - {name: whole, type: llm_judge}
"""
ESCAPED = '"quoted" back\\slash, tab\t, line\n, café, \U0001f600, a separator \u2028. '


def _long_reply(n: int) -> str:
    return f"Reply {n}: " + ESCAPED * 20


def _long(request: ReceivedRequest) -> Text | None:
    """Answer a long ``Reply N`` (N user turns) that JSON escapes; judges fall through."""
    return None if is_judge(request) else Text(_long_reply(_users(request)))


def _in_line(text: str) -> str:
    """``text`` as a results line spells it."""
    return jsontext.one_line(json.dumps(text, ensure_ascii=False)[1:-1])


@pytest.mark.parametrize("target", TARGETS)
def test_each_reply_is_stored_once_and_every_request_rebuilt_byte_for_byte(
    e2e: E2E, target: str
) -> None:
    _with_azure(e2e)
    e2e.project.write(EVAL_FILE, JUDGED)
    e2e.server.responder = _long
    e2e.server.judge_verdict = {"score": 1, "hits": [], "misses": [], "reasoning": "fine"}

    result = e2e.run("eval", EVAL_FILE, "--target", target, "--out", "results.jsonl")

    assert result.code == 0, result.err
    line = (e2e.root / "results.jsonl").read_text(encoding="utf-8")
    # Every request but the first held the replies before it; the last reply is also the
    # row's candidate_answer.
    assert [line.count(_in_line(_long_reply(n))) for n in (1, 2, 3)] == [1, 1, 2]
    (row,) = e2e.results()
    assert row.turns is not None
    assert row.turns[1].evaluator_results[0].raw_named is not None, "stored naming replies"
    turns = list(row.full_turns())
    assert [body_bytes(t.wire_request) for t in turns] == [r.body for r in e2e.candidates()]
    second, whole = turns[1].evaluator_results[0], row.full_evaluator_results()[0]
    judged = {judge_user_text(r): r.body for r in e2e.judges()}
    sent = {body_bytes(second.raw_request), body_bytes(whole.raw_request)}
    assert sent == set(judged.values())
    questions = {question_section(prompt) for prompt in judged}
    assert {t.raw_request.question for t in (turns[1], turns[2]) if t.raw_request} == questions


def test_a_failed_turn_keeps_the_request_it_sent(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, JUDGED)

    def fail_third(request: ReceivedRequest) -> Text | Fault | None:
        if not is_judge(request) and _users(request) == 3:
            return Fault(400)
        return _long(request)

    e2e.server.responder = fail_third

    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    assert result.code != 0
    (row,) = e2e.results()
    assert row.status == "error"
    assert (row.raw_request, row.wire_request) == (None, None), "the failed turn holds them"
    turns = list(row.full_turns())
    assert [t.reply for t in turns] == [_long_reply(1), _long_reply(2), None]
    assert [body_bytes(t.wire_request) for t in turns] == [r.body for r in e2e.candidates()]
    assert turns[2].raw_request is not None
    assert turns[2].raw_request.question.endswith("@[User]:\nTurn three?")
    assert e2e.judges() == [], "an unfinished conversation is not judged"


def _many(count: int, turns: int) -> str:
    lines = [
        "execution:",
        "  evaluators:",
        "    - {name: replied, type: contains, value: reply}",
        "evalcases:",
    ]
    for c in range(count):
        lines += [f"  - id: c{c:03}", "    expected_outcome: Talks.", "    turns:"]
        lines += [f"      - c{c:03} t{t}" for t in range(1, turns + 1)]
    return "\n".join(lines) + "\n"


def _conversation_of(request: ReceivedRequest) -> str:
    entries = _entries(request)
    text = _role_text(request.api, entries[0])[1]
    match = re.match(r"c\d{3}", text)
    assert match, text
    return match.group(0)


def test_many_conversations_run_at_once_each_in_order(e2e: E2E) -> None:
    count, turns, latency = 200, 5, 0.1
    e2e.project.write(EVAL_FILE, _many(count, turns))
    e2e.server.latency_ms = latency * 1000
    e2e.server.responder = _numbered

    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--workers", "32", "--out", "r.jsonl")

    assert result.code == 0, result.err
    sent = sorted(e2e.candidates(), key=lambda r: r.received_at)
    assert len(sent) == count * turns
    by_conversation: dict[str, list[int]] = {}
    for request in sent:
        by_conversation.setdefault(_conversation_of(request), []).append(_users(request))
    assert all(order == [1, 2, 3, 4, 5] for order in by_conversation.values())
    # At once, not one after another: by the order of arrival (never a wall-clock bound),
    # many conversations had begun before the first one sent its last turn.
    first = _conversation_of(sent[0])
    last_of_first = max(i for i, r in enumerate(sent) if _conversation_of(r) == first)
    begun = {_conversation_of(r) for r in sent[: last_of_first + 1]}
    assert len(begun) >= 16, f"{len(begun)} conversations ran beside the first (32 workers)"
    rows = e2e.rows("r.jsonl")
    assert len(rows) == count
    assert all(
        [t["reply"] for t in r["turns"]] == [f"reply {n}" for n in range(1, 6)] for r in rows
    )


def test_a_cached_rerun_sends_nothing(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, THREE_TURNS)
    e2e.server.responder = _numbered
    first = e2e.run("eval", EVAL_FILE, "--target", "oa", "--cache", "--out", "a.jsonl")
    assert first.code == 0, first.err
    assert len(e2e.candidates()) == 3
    e2e.server.clear()

    again = e2e.run("eval", EVAL_FILE, "--target", "oa", "--cache", "--out", "b.jsonl")

    assert again.code == 0, again.err
    assert e2e.server.requests == []
    (row,) = e2e.rows("b.jsonl")
    assert row["cache"] == "hit"
    assert [t["cache"] for t in row["turns"]] == ["hit"] * 3
    assert [t["reply"] for t in row["turns"]] == ["reply 1", "reply 2", "reply 3"]
    (before,) = e2e.rows("a.jsonl")
    assert [t["cache"] for t in before["turns"]] == ["miss"] * 3


def test_resume_restarts_an_unfinished_conversation_from_its_first_turn(e2e: E2E) -> None:
    from tests.e2e.background import start_eval, wait_for_rows, wait_until

    e2e.project.write(EVAL_FILE, _many(2, 3))

    def stall_second(request: ReceivedRequest) -> Text | None:
        if _conversation_of(request) == "c001" and _users(request) == 2:
            return Text("too late", latency_ms=60_000)
        return _numbered(request)

    e2e.server.responder = stall_second
    path = e2e.root / "results.jsonl"
    process = start_eval(e2e, "eval", EVAL_FILE, "--target", "oa", "--workers", "1", "--out", path)
    try:
        wait_for_rows(path, 1, process)
        wait_until(
            lambda: any(_conversation_of(r) == "c001" and _users(r) == 2 for r in e2e.candidates()),
            timeout=30,
            what="the second turn of c001",
        )
        process.kill()
        process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    (kept,) = e2e.rows()
    assert kept["eval_id"] == "c000", "an unfinished conversation writes no row"
    e2e.server.clear()
    e2e.server.responder = _numbered

    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--resume", "results.jsonl")

    assert result.code == 0, result.err
    asked = [(_conversation_of(r), _users(r)) for r in e2e.candidates()]
    assert asked == [("c001", 1), ("c001", 2), ("c001", 3)]
    rows = {r["eval_id"]: r for r in e2e.rows()}
    assert set(rows) == {"c000", "c001"}
    assert [t["reply"] for t in rows["c001"]["turns"]] == ["reply 1", "reply 2", "reply 3"]


COUNT_USERS = "import sys; p = sys.argv[1]; print('reply', max(1, p.count('@[User]:')))"


def test_a_cli_target_gets_the_whole_transcript_each_turn(e2e: E2E) -> None:
    targets = e2e.root / ".evalwright/targets.yaml"
    command = json.dumps([sys.executable, "-c", COUNT_USERS, "{PROMPT}"])
    targets.write_text(
        targets.read_text(encoding="utf-8")
        + f"  - name: sh\n    provider: cli\n    command: {command}\n",
        encoding="utf-8",
    )
    e2e.project.write(EVAL_FILE, THREE_TURNS)

    result = e2e.run("eval", EVAL_FILE, "--target", "sh", "--out", "results.jsonl")

    assert result.code == 0, result.err
    (row,) = e2e.results()
    turns = list(row.full_turns())
    assert [t.reply for t in turns] == ["reply 1", "reply 2", "reply 3"]
    last = turns[-1]
    assert last.raw_request is not None
    assert last.raw_request.question == (
        "@[System]:\nBe brief.\n\n@[User]:\nTurn one?\n\n@[Assistant]:\nreply 1\n\n"
        "@[User]:\nTurn two?\n\n@[Assistant]:\nreply 2\n\n@[User]:\nTurn three?"
    )
    assert isinstance(last.wire_request, AgentWireRequest)
    assert last.wire_request.argv[-1] == last.raw_request.question
