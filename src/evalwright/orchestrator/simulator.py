"""The simulated user of a live conversation (docs/conversations.md#simulated-user): a chat
target that sees the conversation from the user's side and answers
``{"message": ..., "done": ...}``; a reply that is not that JSON is asked for once more."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evalwright.errors import ProviderError
from evalwright.evalfile.models import SimulatedUser
from evalwright.evaluators.judge import reply_json
from evalwright.orchestrator.calls import TargetCaller
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest, ProviderResponse
from evalwright.redact import clip
from evalwright.results.parts import CacheState, SimulatorRecord
from evalwright.results.rows import total_usage

SIMULATOR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"message": {"type": "string"}, "done": {"type": "boolean"}},
    "required": ["message", "done"],
    "additionalProperties": False,
}
"""Enforced where the simulator's API has structured output; checked by us everywhere."""
OPENING = "(The conversation starts now. Write your first message to the assistant.)"
"""The simulator's first user-side message: chat APIs want a conversation to open with one."""


def system_prompt(user: SimulatedUser) -> str:
    """What the simulator is told: who it plays, what it wants, and how to answer."""
    return (
        "You are playing the user in a conversation with an AI assistant, to test the "
        "assistant. Stay in character; never say you are simulated.\n\n"
        f"Your persona:\n{user.persona}\n\nYour goal:\n{user.goal}\n\n"
        "The assistant's messages are shown to you as the other party's. Answer with JSON "
        'only: {"message": "<your next message to the assistant>", "done": false}; when '
        "your goal is reached, or the assistant cannot reach it, answer "
        '{"message": "", "done": true} instead.'
    )


def own_message(text: str) -> str:
    """A message the user sent, as the simulator sees its own earlier answer."""
    return json.dumps({"message": text, "done": False}, ensure_ascii=False)


def simulator_request(
    case_id: str, user: SimulatedUser, sent: Sequence[str], replies: Sequence[str]
) -> ProviderRequest:
    """The conversation from the user's side: its own ``sent`` messages as the assistant's
    turns, the candidate's ``replies`` as the other party's."""
    messages = [
        ChatMessage(role="system", content=system_prompt(user)),
        ChatMessage(role="user", content=OPENING),
    ]
    for index, text in enumerate(sent):
        messages.append(ChatMessage(role="assistant", content=own_message(text)))
        if index < len(replies):
            messages.append(ChatMessage(role="user", content=replies[index]))
    return ProviderRequest(
        case_id=case_id,
        messages=tuple(messages),
        purpose="simulator",
        response_schema=SIMULATOR_SCHEMA,
    )


def read_reply(text: str) -> tuple[str, bool]:
    """The message and ``done`` of a simulator reply (a fenced JSON block is accepted);
    raise ValueError when it is not that JSON."""
    data = reply_json(text)
    if not isinstance(data, dict):
        raise ValueError(f"not a JSON object: {clip(text.strip(), 120)!r}")
    message, done = data.get("message"), data.get("done")
    if not isinstance(done, bool):
        raise ValueError("'done' is not true or false")
    if not isinstance(message, str) or (not done and not message.strip()):
        raise ValueError("'message' is not a non-empty string")
    return message, done


def _acceptable(response: ProviderResponse) -> bool:
    try:
        read_reply(response.text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class SimulatorTurn:
    """What the simulator answered: its message, whether it is done, and its record."""

    message: str
    done: bool
    record: SimulatorRecord


class SimulatorFailure(ProviderError):
    """The simulator failed, or gave no valid reply in two tries; ``record`` is its last
    reply when it gave one."""

    def __init__(self, message: str, record: SimulatorRecord | None) -> None:
        super().__init__(message)
        self.record = record


async def ask_simulator(
    caller: TargetCaller, request: ProviderRequest, target: str, repeat: int
) -> SimulatorTurn:
    """Ask the simulator, once more after a reply that is not the JSON asked for (that
    second try is not answered from the cache, which would give the same reply)."""
    responses: list[tuple[ProviderResponse, CacheState]] = []
    problem = ""
    for attempt in (1, 2):
        try:
            response, cache = await caller.call(
                target, request, use_cache=attempt == 1, accept=_acceptable, repeat=repeat
            )
        except ProviderError as exc:
            record = _record(target, responses, None) if responses else None
            failure = SimulatorFailure(f"simulated user target '{target}' failed: {exc}", record)
            failure.attempts = exc.attempts
            if exc.error_type == "over_budget":  # refused, not failed: the row says so
                failure.error_type = exc.error_type
            raise failure from None
        responses.append((response, cache))
        try:
            message, done = read_reply(response.text)
        except ValueError as exc:
            problem = str(exc)
            continue
        return SimulatorTurn(message, done, _record(target, responses, done))
    message = f"simulated user target '{target}' gave no valid reply in two tries: {problem}"
    raise SimulatorFailure(message, _record(target, responses, None))


def _record(
    target: str, responses: list[tuple[ProviderResponse, CacheState]], done: bool | None
) -> SimulatorRecord:
    """The record of a simulator's tries: the last one's request and reply, all their costs."""
    last, cache = responses[-1]
    costs = [r.cost_usd for r, _ in responses]
    return SimulatorRecord(
        target=target,
        wire_request=last.wire_request,
        reply=last.text,
        done=done,
        usage=total_usage([r.usage for r, _ in responses]),
        cost_usd=None if None in costs else sum(c for c in costs if c is not None),
        latency_ms=round(sum(r.latency_ms for r, _ in responses), 3),
        tries=len(responses),
        cache=cache,
    )
