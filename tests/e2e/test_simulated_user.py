"""A simulated user (``simulated_user:``, docs/conversations.md#simulated-user) end to end
against the fake server, which scripts the simulator by its model name: it stops on ``done``
and at ``max_turns``, the candidate's requests grow by its reply and the simulator's next
message, the simulator sees the conversation from the user's side, a bad simulator reply is
retried then errors the row; cache and resume as for ``turns:``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalwright.orchestrator.simulator import OPENING
from evalwright.testing import ReceivedRequest, Text
from tests.e2e.harness import E2E, body_bytes, is_judge

EVAL_FILE = "evals/sim.yaml"
SIMULATOR = """  - name: sim
    provider: openai
    model: sim-test
    base_url: {url}/v1
    retry: {{max_retries: 1, initial_delay_ms: 10, max_delay_ms: 50}}
"""
CASE = """evalcases:
  - id: book
    expected_outcome: Books the table.
    input_messages:
      - {{role: system, content: You book tables.}}
    simulated_user:
      target: sim
      persona: A hurried customer.
      goal: A table for two.
      max_turns: {max_turns}{extra}
    execution:
      evaluators:
        - {{name: replied, type: contains, value: reply}}
"""


def _case(max_turns: int = 5, extra: str = "") -> str:
    return CASE.format(max_turns=max_turns, extra=extra)


def _is_simulator(request: ReceivedRequest) -> bool:
    return request.model == "sim-test"


def _user_said(n: int) -> str:
    return f"user message {n}"


def _script(done_after: int | None, bad: int = 0) -> Any:
    """The fake server's responder: the simulator writes ``user message N`` (N = its turn)
    until ``done_after`` messages, the first ``bad`` of its replies not JSON; the candidate
    answers ``reply N`` to the request carrying N user messages."""
    left = [bad]

    def respond(request: ReceivedRequest) -> Text | None:
        if is_judge(request):
            return None
        messages = request.json["messages"]
        if _is_simulator(request):
            if left[0] > 0:
                left[0] -= 1
                return Text("Sure! Here is my message.")
            written = sum(1 for m in messages if m["role"] == "assistant")
            done = done_after is not None and written >= done_after
            body = {"message": "" if done else _user_said(written + 1), "done": done}
            return Text(json.dumps(body))
        users = sum(1 for m in messages if m["role"] == "user")
        return Text(f"reply {users}")

    return respond


def _setup(e2e: E2E, text: str) -> None:
    targets = e2e.root / ".evalwright/targets.yaml"
    extra = SIMULATOR.format(url=e2e.server.url)
    targets.write_text(targets.read_text(encoding="utf-8") + extra, encoding="utf-8")
    e2e.project.write(EVAL_FILE, text)


def _run(e2e: E2E, *options: str) -> dict[str, Any]:
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl", *options)
    assert "Traceback" not in result.err
    (row,) = e2e.rows()
    return row


def _conversation(request: ReceivedRequest) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in request.json["messages"]]


def _candidates(e2e: E2E) -> list[ReceivedRequest]:
    return [r for r in e2e.candidates() if not _is_simulator(r)]


def _simulators(e2e: E2E) -> list[ReceivedRequest]:
    return [r for r in e2e.server.requests if _is_simulator(r)]


def _own(n: int) -> tuple[str, str]:
    """The simulator's own message N as it sees it again."""
    return ("assistant", json.dumps({"message": _user_said(n), "done": False}))


def test_the_simulator_stops_on_done_and_its_message_is_never_sent(e2e: E2E) -> None:
    _setup(e2e, _case(max_turns=5))
    e2e.server.responder = _script(done_after=2)

    row = _run(e2e)

    assert row["status"] == "ok", row["error"]
    sent = _candidates(e2e)
    assert len(sent) == 2
    system = ("system", "You book tables.")
    assert _conversation(sent[0]) == [system, ("user", _user_said(1))]
    assert _conversation(sent[1]) == [
        *_conversation(sent[0]),
        ("assistant", "reply 1"),
        ("user", _user_said(2)),
    ]
    asked = _simulators(e2e)
    assert len(asked) == 3
    opening = _conversation(asked[0])
    assert opening[0][0] == "system"
    assert "A hurried customer." in opening[0][1]
    assert "A table for two." in opening[0][1]
    assert "You book tables." not in opening[0][1], "the candidate's prompt is not the user's"
    assert opening[1:] == [("user", OPENING)]
    assert _conversation(asked[1])[1:] == [("user", OPENING), _own(1), ("user", "reply 1")]
    assert _conversation(asked[2])[1:] == [
        *_conversation(asked[1])[1:],
        _own(2),
        ("user", "reply 2"),
    ]
    assert asked[0].json["response_format"]["type"] == "json_schema"
    turns = row["turns"]
    assert [t["reply"] for t in turns] == ["reply 1", "reply 2"]
    assert [json.loads(t["simulator"]["reply"])["message"] for t in turns] == [
        _user_said(1),
        _user_said(2),
    ]
    assert turns[0]["simulator"]["usage"]["input_tokens"] > 0
    assert "simulator_done" not in turns[0]
    assert turns[1]["simulator_done"]["done"] is True
    assert row["candidate_answer"] == "reply 2"
    (read,) = e2e.results()
    full = list(read.full_turns())
    simulators = [t.simulator for t in full]
    assert [body_bytes(s.wire_request if s else None) for s in simulators] == [
        r.body for r in asked[:2]
    ]
    done = full[1].simulator_done
    assert done is not None
    assert body_bytes(done.wire_request) == asked[2].body


def _long_reply(n: int) -> str:
    return f"reply {n}: " + "a long answer that the next requests hold, " * 10


def test_long_replies_are_stored_once_and_every_simulator_request_rebuilt(e2e: E2E) -> None:
    _setup(e2e, _case(max_turns=5))
    script = _script(done_after=2)

    def respond(request: ReceivedRequest) -> Text | None:
        if is_judge(request) or _is_simulator(request):
            return script(request)
        users = sum(1 for m in request.json["messages"] if m["role"] == "user")
        return Text(_long_reply(users))

    e2e.server.responder = respond

    row = _run(e2e)

    assert row["status"] == "ok", row["error"]
    line = (e2e.root / "results.jsonl").read_text(encoding="utf-8")
    # Held by the second candidate request and every simulator request after each.
    assert [line.count(_long_reply(n)) for n in (1, 2)] == [1, 2], "the last is the answer too"
    (read,) = e2e.results()
    full = list(read.full_turns())
    assert [body_bytes(t.wire_request) for t in full] == [r.body for r in _candidates(e2e)]
    done = full[-1].simulator_done
    records = [*(t.simulator for t in full), done]
    assert [body_bytes(r.wire_request if r else None) for r in records] == [
        r.body for r in _simulators(e2e)
    ]


def test_a_simulator_failing_after_a_turn_keeps_its_last_request(e2e: E2E) -> None:
    _setup(e2e, _case(max_turns=3))
    script = _script(done_after=None)

    def respond(request: ReceivedRequest) -> Text | None:
        messages = request.json["messages"]
        if _is_simulator(request) and any(m["role"] == "assistant" for m in messages):
            return Text("Sure! Here is my message.")
        if is_judge(request) or _is_simulator(request):
            return script(request)
        return Text(_long_reply(1))

    e2e.server.responder = respond

    row = _run(e2e)

    assert row["status"] == "error"
    (read,) = e2e.results()
    assert (read.raw_request, read.wire_request) == (None, None), "the first turn holds them"
    first, failed = read.full_turns()
    assert (first.reply, failed.reply, failed.wire_request) == (_long_reply(1), None, None)
    assert failed.simulator is not None
    assert failed.simulator.tries == 2
    assert body_bytes(failed.simulator.wire_request) == _simulators(e2e)[-1].body


def test_the_simulator_stops_at_max_turns(e2e: E2E) -> None:
    _setup(e2e, _case(max_turns=3))
    e2e.server.responder = _script(done_after=None)

    row = _run(e2e)

    assert row["status"] == "ok", row["error"]
    assert len(_candidates(e2e)) == 3
    assert len(_simulators(e2e)) == 3, "no simulator call after the last turn"
    assert [t["reply"] for t in row["turns"]] == ["reply 1", "reply 2", "reply 3"]
    assert all("simulator_done" not in t for t in row["turns"])


def test_a_first_message_is_sent_as_written(e2e: E2E) -> None:
    _setup(e2e, _case(max_turns=2, extra="\n      first_message: Hello there"))
    e2e.server.responder = _script(done_after=None)

    row = _run(e2e)

    sent = _candidates(e2e)
    assert _conversation(sent[0])[1:] == [("user", "Hello there")]
    (asked,) = _simulators(e2e)
    own = json.dumps({"message": "Hello there", "done": False})
    assert _conversation(asked)[1:] == [("user", OPENING), ("assistant", own), ("user", "reply 1")]
    assert _conversation(sent[1])[-1] == ("user", _user_said(2))
    assert "simulator" not in row["turns"][0]
    simulator = list(e2e.results()[0].full_turns())[1].simulator
    assert simulator is not None
    assert body_bytes(simulator.wire_request) == asked.body


def test_a_bad_simulator_reply_is_retried_once(e2e: E2E) -> None:
    _setup(e2e, _case(max_turns=1))
    e2e.server.responder = _script(done_after=None, bad=1)

    row = _run(e2e)

    assert row["status"] == "ok", row["error"]
    assert len(_simulators(e2e)) == 2
    assert row["turns"][0]["simulator"]["tries"] == 2


def test_two_bad_simulator_replies_make_an_error_row_naming_it(e2e: E2E) -> None:
    _setup(e2e, _case(max_turns=3))
    e2e.server.responder = _script(done_after=None, bad=2)

    row = _run(e2e)

    assert row["status"] == "error"
    assert row["error"]["type"] == "target_error"
    assert row["error"]["message"].startswith(
        "simulated user target 'sim' gave no valid reply in two tries: not JSON"
    )
    assert _candidates(e2e) == []
    (turn,) = row["turns"]
    assert turn["reply"] is None
    assert turn["wire_request"] is None
    assert turn["simulator"]["reply"] == "Sure! Here is my message."
    assert turn["simulator"]["tries"] == 2
    assert turn["simulator"]["done"] is None


def test_done_before_the_first_message_is_an_error_row(e2e: E2E) -> None:
    _setup(e2e, _case(max_turns=3))
    e2e.server.responder = _script(done_after=0)

    row = _run(e2e)

    assert row["status"] == "error"
    assert "ended the conversation before its first message" in row["error"]["message"]
    assert _candidates(e2e) == []


def test_a_cached_rerun_sends_nothing(e2e: E2E) -> None:
    _setup(e2e, _case(max_turns=5))
    e2e.server.responder = _script(done_after=2)
    first = e2e.run("eval", EVAL_FILE, "--target", "oa", "--cache", "--out", "a.jsonl")
    assert first.code == 0, first.err
    e2e.server.clear()

    again = e2e.run("eval", EVAL_FILE, "--target", "oa", "--cache", "--out", "b.jsonl")

    assert again.code == 0, again.err
    assert e2e.server.requests == []
    (row,) = e2e.rows("b.jsonl")
    assert row["cache"] == "hit"
    assert [t["simulator"]["cache"] for t in row["turns"]] == ["hit", "hit"]
    assert row["turns"][-1]["simulator_done"]["cache"] == "hit"
    assert [t["reply"] for t in row["turns"]] == ["reply 1", "reply 2"]


def test_a_bad_reply_is_not_cached(e2e: E2E) -> None:
    _setup(e2e, _case(max_turns=1))
    e2e.server.responder = _script(done_after=None, bad=1)
    assert e2e.run("eval", EVAL_FILE, "--target", "oa", "--cache", "--out", "a.jsonl").code == 0
    e2e.server.clear()

    again = e2e.run("eval", EVAL_FILE, "--target", "oa", "--cache", "--out", "b.jsonl")

    assert again.code == 0, again.err
    assert e2e.server.requests == []
    (row,) = e2e.rows("b.jsonl")
    assert row["turns"][0]["simulator"]["tries"] == 1


def _many(count: int) -> str:
    cases = [
        _case(max_turns=3).split("evalcases:\n", 1)[1].replace("id: book", f"id: c{c}")
        for c in range(count)
    ]
    return "evalcases:\n" + "".join(cases)


def test_resume_restarts_an_unfinished_simulated_conversation(e2e: E2E) -> None:
    from tests.e2e.background import start_eval, wait_for_rows, wait_until

    _setup(e2e, _many(2))
    script = _script(done_after=None)

    def stall(request: ReceivedRequest) -> Text | None:
        messages = request.json["messages"]
        users = sum(1 for m in messages if m["role"] == "user")
        if not _is_simulator(request) and users == 2 and _rows_written(e2e) == 1:
            return Text("too late", latency_ms=60_000)
        return script(request)

    e2e.server.responder = stall
    path = e2e.root / "results.jsonl"
    process = start_eval(e2e, "eval", EVAL_FILE, "--target", "oa", "--workers", "1", "--out", path)
    try:
        wait_for_rows(path, 1, process)
        wait_until(lambda: _rows_written(e2e) == 1 and _stalled(e2e), timeout=30, what="the stall")
        process.kill()
        process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    (kept,) = e2e.rows()
    e2e.server.clear()
    e2e.server.responder = script

    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--resume", "results.jsonl")

    assert result.code == 0, result.err
    assert len(_candidates(e2e)) == 3
    first = _simulators(e2e)[0]
    assert _conversation(first)[1:] == [("user", OPENING)], "restarted from its first turn"
    rows = {r["eval_id"]: r for r in e2e.rows()}
    assert set(rows) == {"c0", "c1"}
    other = ({"c0", "c1"} - {kept["eval_id"]}).pop()
    assert [t["reply"] for t in rows[other]["turns"]] == ["reply 1", "reply 2", "reply 3"]


def _rows_written(e2e: E2E) -> int:
    """How many rows the results file holds."""
    path = e2e.root / "results.jsonl"
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def _stalled(e2e: E2E) -> bool:
    return len(_candidates(e2e)) >= 5


@pytest.mark.parametrize("candidate", ["an", "ge"])
def test_other_apis_hold_a_simulated_conversation(e2e: E2E, candidate: str) -> None:
    _setup(e2e, _case(max_turns=2))

    def respond(request: ReceivedRequest) -> Text | None:
        if _is_simulator(request):
            return _script(done_after=None)(request)
        return Text("reply")

    e2e.server.responder = respond

    result = e2e.run("eval", EVAL_FILE, "--target", candidate, "--out", "results.jsonl")

    assert result.code == 0, result.err
    (row,) = e2e.rows()
    assert [t["reply"] for t in row["turns"]] == ["reply", "reply"]
    last = _candidates(e2e)[-1]
    assert _user_said(2) in json.dumps(last.json)
