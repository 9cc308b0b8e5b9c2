"""promptfoo tests chained through ``{{ _conversation }}`` as one evalwright live
conversation (docs/importing.md#conversations)."""

from __future__ import annotations

from typing import Any

from evalwright.importers.promptfoo.asserts import Scripts
from evalwright.importers.promptfoo.cases import CONVERSATION, evaluators, metadata, outcome
from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.prompts import Prompt, render_messages
from evalwright.importers.promptfoo.tests import Test

_REPLY = "\ue000reply {}\ue000"
"""Stands in for the target's reply to turn N while the chain is checked."""


def groups(tests: list[Test]) -> list[list[Test]]:
    """The tests by ``metadata.conversationId`` (promptfoo's key), in order of first test;
    tests without one form one conversation, as in promptfoo."""
    by_key: dict[Any, list[Test]] = {}
    for test in tests:
        by_key.setdefault(test.metadata.get("conversationId"), []).append(test)
    return list(by_key.values())


def conversation_case(
    case_id: str,
    prompt: Prompt,
    chain: list[Test],
    tools: list[dict[str, Any]],
    scripts: Scripts,
    notes: Notes,
) -> dict[str, Any]:
    """One live case whose turns are the chain's last user messages; :class:`Uncarried` when
    the rendered prompts are not each the previous one plus a reply and a user turn."""
    prefix, users = _turns(prompt, chain)
    turns: list[dict[str, Any]] = []
    for test, user in zip(chain, users, strict=True):
        turn: dict[str, Any] = {"content": user}
        found = evaluators(test, tools, scripts, notes)
        if found:
            turn["evaluators"] = found
        turns.append(turn)
    case: dict[str, Any] = {"id": case_id, "expected_outcome": outcome(chain[0])}
    if prefix:
        case["input_messages"] = prefix
    case["turns"] = turns
    case["metadata"] = metadata(prompt, chain[0])
    return case


def _turns(prompt: Prompt, chain: list[Test]) -> tuple[list[dict[str, str]], list[str]]:
    history: list[dict[str, str]] = []
    users: list[str] = []
    prefix: list[dict[str, str]] = []
    for n, test in enumerate(chain):
        variables = {**test.variables, CONVERSATION: history}
        messages = render_messages(prompt, variables)
        if not messages or messages[-1]["role"] != "user":
            raise Uncarried("the rendered conversation does not end with a user message")
        if n == 0:
            prefix = messages[:-1]
            if prefix and prefix[-1]["role"] == "user":
                raise Uncarried("the conversation's fixed start ends with a user message")
        said = prefix + [m for h in history for m in _pair(h)]
        if messages[:-1] != said:
            raise Uncarried(_unlike(n, messages[:-1], said))
        users.append(messages[-1]["content"])
        history = [*history, {"input": users[-1], "output": _REPLY.format(n + 1), "prompt": ""}]
    return prefix, users


def _unlike(n: int, rendered: list[dict[str, str]], said: list[dict[str, str]]) -> str:
    """Why turn ``n`` (0-based) is not the conversation so far: the first message the
    prompt renders otherwise than a live conversation sends it."""
    start = "the prompt does not render each turn as the conversation so far"
    for index, (got, sent) in enumerate(zip(rendered, said, strict=False)):
        if got != sent:
            return (
                f"{start}: turn {n + 1} renders message {index + 1} as {got!r} where the "
                f"conversation sent {sent!r}"
            )
    return f"{start}: turn {n + 1} renders {len(rendered)} earlier messages, not {len(said)}"


def _pair(turn: dict[str, str]) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": turn["input"]},
        {"role": "assistant", "content": turn["output"]},
    ]
