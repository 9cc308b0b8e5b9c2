"""A live conversation at one of its turns, as a case the prompt builder takes
(docs/conversations.md#what-each-turn-sends)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from evalwright.evalfile.resolved import CaseMessage, LoadedCase, TextSegment


def reply_message(reply: str) -> CaseMessage:
    """The target's reply as the assistant turn the next request carries, exactly as given
    (not tidied: the model sees its own words)."""
    return CaseMessage("assistant", (TextSegment(reply),))


def turn_case(case: LoadedCase, replies: Sequence[str]) -> LoadedCase:
    """``case`` as it stands at turn ``len(replies) + 1``: the authored history, then each
    earlier user turn followed by the target's reply to it, then this turn's user message.

    The result has no turns of its own, so every stage that builds a single case's prompt
    builds this turn's the same way.
    """
    assert len(replies) < len(case.turns)
    messages = list(case.input_messages)
    for turn, reply in zip(case.turns, replies, strict=False):
        messages.extend((turn.message, reply_message(reply)))
    messages.append(case.turns[len(replies)].message)
    return dataclasses.replace(case, input_messages=tuple(messages), turns=())


def first_turn(case: LoadedCase) -> LoadedCase:
    """What a case sends first: a live conversation's first turn, else the case itself."""
    return turn_case(case, ()) if case.turns else case
