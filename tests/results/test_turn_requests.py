"""A conversation's requests stored as what each adds to the previous one, its replies named
by turn, and rebuilt exactly (docs/conversations.md#the-row): what counts as an addition, what
is stored whole instead, and how a damaged row is refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import JsonValue

from evalwright.providers.wire import ChatWireRequest
from evalwright.results.parts import Addition, ReplyText, TurnRecord
from evalwright.results.row import ResultRow
from evalwright.results.turn_requests import MIN_NAMED_REPLY, Compactor, named, rebuild
from tests.results.samples import sample_row

LONG = 'a reply long enough to be named by its turn, with "quotes" and é ' * 2
assert len(LONG) >= MIN_NAMED_REPLY


def _wire(messages: list[JsonValue], **extra: JsonValue) -> ChatWireRequest:
    body: dict[str, JsonValue] = {"model": "m", "messages": messages, **extra}
    return ChatWireRequest(api="openai.chat.completions", model="m", url_path="/v1", body=body)


def _text(wire: object) -> str:
    assert isinstance(wire, ChatWireRequest)
    return json.dumps(wire.model_dump(mode="json"), ensure_ascii=False)


def _stored(requests: list[ChatWireRequest], replies: list[str]) -> list[Any]:
    """Each request as the compactor stores it, the previous request's reply named."""
    compactor = Compactor()
    previous: list[tuple[int, str]] = []
    out: list[Any] = []
    for number, request in enumerate(requests, 1):
        out.append(compactor.store("wire", request, previous))
        previous = [(number, replies[number - 1])]
    return out


def _turn(number: int, wire: ChatWireRequest | None, added: Any, reply: str | None) -> TurnRecord:
    return TurnRecord(
        turn=number,
        wire_request=wire,
        wire_added=added,
        delivery_notes=(),
        reply=reply,
        finish_reason=None,
        usage=None,
        cost_usd=None,
        latency_ms=None,
        attempts=1,
        cache="off",
        evaluator_results=(),
        score=None,
    )


def _row(requests: list[ChatWireRequest], replies: list[str]) -> ResultRow:
    stored = _stored(requests, replies)
    turns = tuple(
        _turn(n, None if added is not None else request, added, reply)
        for n, (request, added, reply) in enumerate(zip(requests, stored, replies, strict=True), 1)
    )
    written = sample_row(turns=turns).model_dump_json()
    return ResultRow.model_validate_json(written)  # as read_results reads it


def _conversation(replies: list[str]) -> list[ChatWireRequest]:
    messages: list[JsonValue] = [{"role": "system", "content": "Be brief."}]
    requests: list[ChatWireRequest] = []
    for number, reply in enumerate(replies, 1):
        messages = [*messages, {"role": "user", "content": f"Turn {number}?"}]
        requests.append(_wire(messages))
        messages = [*messages, {"role": "assistant", "content": reply}]
    return requests


def test_a_conversation_is_stored_as_additions_and_rebuilt_exactly() -> None:
    replies = [LONG + "1", "short", LONG + "3"]
    requests = _conversation(replies)

    row = _row(requests, replies)

    assert row.turns is not None
    assert [t.wire_added is not None for t in row.turns] == [False, True, True]
    second = row.turns[1].wire_added
    assert second is not None
    assert [a.at for a in second] == [("body", "messages")]
    assert second[0].replies == (ReplyText(at=(0, "content"), parts=(1,)),)
    spelled = json.dumps(LONG + "1", ensure_ascii=False)[1:-1]
    assert row.model_dump_json().count(spelled) == 1, "stored once: in its turn's reply"
    third = row.turns[2].wire_added
    assert third is not None
    assert third[0].replies == (), "a short reply is written again"
    assert [_text(t.wire_request) for t in row.full_turns()] == [_text(r) for r in requests]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({"model": "m", "n": 1}, {"n": 1, "model": "m"}),  # keys in another order
        ({"model": "m", "t": 1}, {"model": "m", "t": 1.0}),  # 1 and 1.0 are other JSON
        ({"model": "m", "t": 1}, {"model": "m", "t": True}),
        ({"model": "m", "messages": [1, 2]}, {"model": "m", "messages": [1]}),
        ({"model": "m", "s": "abc"}, {"model": "m", "s": "abd"}),
        ({"model": "m"}, {"model": "m", "extra": 1}),
    ],
)
def test_a_request_that_is_not_the_previous_one_extended_is_stored_whole(
    before: dict[str, JsonValue], after: dict[str, JsonValue]
) -> None:
    first = ChatWireRequest(api="openai.chat.completions", model="m", url_path=None, body=before)
    second = ChatWireRequest(api="openai.chat.completions", model="m", url_path=None, body=after)

    assert _stored([first, second], ["", ""]) == [None, None]


def test_text_and_inner_lists_grow_too() -> None:
    base: dict[str, JsonValue] = {"system": "You are", "messages": [{"parts": ["a"]}], "n": 2}
    grown: dict[str, JsonValue] = {"system": "You are kind", "messages": [{"parts": ["a", "b"]}]}
    grown["n"] = 2
    first = ChatWireRequest(api="gemini.generateContent", model="m", url_path=None, body=base)
    second = ChatWireRequest(api="gemini.generateContent", model="m", url_path=None, body=grown)

    (_, added) = _stored([first, second], ["", ""])

    assert [(a.at, a.value) for a in added] == [
        (("body", "system"), " kind"),
        (("body", "messages", 0, "parts"), ["b"]),
    ]
    rebuilt = rebuild(first.model_dump(mode="json"), added, {})
    assert json.dumps(rebuilt) == json.dumps(second.model_dump(mode="json"))


def test_a_judge_request_names_every_reply_it_holds_in_order() -> None:
    transcript = f"@[User]:\nHi\n\n@[Assistant]:\n{LONG}1\n\n@[User]:\nAnd?"
    judge = _wire([{"role": "user", "content": f"question: {transcript}\nanswer: {LONG}2"}])

    found = named(judge, [(1, LONG + "1"), (2, LONG + "2")])

    assert found is not None
    (text,) = found.replies
    assert text.at == ("body", "messages", 0, "content")
    assert text.parts == (
        "question: @[User]:\nHi\n\n@[Assistant]:\n",
        1,
        "\n\n@[User]:\nAnd?\nanswer: ",
        2,
    )
    assert named(judge, [(3, "not in it" * 10)]) is None


def test_rows_written_before_stored_every_request_whole_and_still_read() -> None:
    replies = ["one", "two"]
    requests = _conversation(replies)
    row = sample_row(turns=[_turn(n, r, None, replies[n - 1]) for n, r in enumerate(requests, 1)])

    assert [t.wire_request for t in row.full_turns()] == requests


def _damaged(added: list[Addition], *, first: ChatWireRequest | None) -> ResultRow:
    return sample_row(turns=[_turn(1, first, None, LONG), _turn(2, None, tuple(added), "two")])


@pytest.mark.parametrize(
    ("added", "first", "problem"),
    [
        ([Addition(at=("body", "messages"), value=[], replies=())], None, "adds to no request"),
        ([Addition(at=("body", "nowhere"), value=[], replies=())], _wire([]), "nothing at"),
        ([Addition(at=("body", "model"), value=[1], replies=())], _wire([]), "cannot append"),
        (
            [
                Addition(
                    at=("body", "messages"), value=[None], replies=(ReplyText(at=(0,), parts=(7,)),)
                )
            ],
            _wire([]),
            "turn 7, which has none",
        ),
        (
            [
                Addition(
                    at=("body", "messages"), value=["x"], replies=(ReplyText(at=(0,), parts=(1,)),)
                )
            ],
            _wire([]),
            "holds a value",
        ),
    ],
)
def test_a_damaged_row_says_which_turn_cannot_be_rebuilt(
    added: list[Addition], first: ChatWireRequest | None, problem: str
) -> None:
    row = _damaged(added, first=first)

    with pytest.raises(ValueError, match=r"^turn 2: a request cannot be rebuilt: .*" + problem):
        list(row.full_turns())
