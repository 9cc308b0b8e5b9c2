"""A live conversation at one of its turns, as a case the prompt builder takes
(docs/conversations.md#what-each-turn-sends)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from evalwright.evalfile.resolved import CaseMessage, LoadedCase, TextSegment

Reply = str | tuple[CaseMessage, ...]
"""The target's answer to a turn as the next turns carry it: its text, or, after a tool loop,
every answer, call and result the loop added (docs/tools.md#the-tool-loop)."""


def reply_message(reply: str) -> CaseMessage:
    """The target's reply as the assistant turn the next request carries, exactly as given
    (not tidied: the model sees its own words)."""
    return CaseMessage("assistant", (TextSegment(reply),))


def reply_messages(reply: Reply) -> tuple[CaseMessage, ...]:
    """The messages a reply adds to the conversation."""
    return (reply_message(reply),) if isinstance(reply, str) else reply


def turn_case(case: LoadedCase, replies: Sequence[Reply]) -> LoadedCase:
    """``case`` as it stands at turn ``len(replies) + 1``: the authored history, then each
    earlier user turn followed by the target's reply to it, then this turn's user message.

    The result has no turns of its own, so every stage that builds a single case's prompt
    builds this turn's the same way.
    """
    assert len(replies) < len(case.turns)
    messages = list(case.input_messages)
    for turn, reply in zip(case.turns, replies, strict=False):
        messages.extend((turn.message, *reply_messages(reply)))
    messages.append(case.turns[len(replies)].message)
    return dataclasses.replace(case, input_messages=tuple(messages), turns=())


def simulated_case(case: LoadedCase, sent: Sequence[str], replies: Sequence[Reply]) -> LoadedCase:
    """A simulated user's conversation (docs/conversations.md#simulated-user) as it stands
    at turn ``len(sent)``: the authored history, then each message the simulated user sent
    followed by the target's reply to it; the last message sent has no reply yet."""
    assert len(sent) == len(replies) + 1
    messages = list(case.input_messages)
    for index, text in enumerate(sent):
        messages.append(CaseMessage("user", (TextSegment(text),)))
        if index < len(replies):
            messages.extend(reply_messages(replies[index]))
    return dataclasses.replace(case, input_messages=tuple(messages), turns=(), simulated_user=None)


def first_turn(case: LoadedCase) -> LoadedCase:
    """What a case sends first: a live conversation's first turn, else the case itself (a
    simulated user's whose first message is not written yet: only its history)."""
    if case.turns:
        return turn_case(case, ())
    first = case.simulated_user.first_message if case.simulated_user else None
    return simulated_case(case, (first,), ()) if first is not None else case
