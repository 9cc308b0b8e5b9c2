"""Tool-call pairing (docs/delivery.md#tool-call-pairing), shared by every chat API's converter.

After pairing, every structured call of an assistant entry is answered by exactly one
``tool`` entry in the unbroken run right after it, and every ``tool`` entry answers one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from evalwright.evalfile.messages import ToolCall
from evalwright.prompts import ChatMessage, DeliveryNote
from evalwright.prompts.render import tool_call_line


def pair_tool_calls(
    messages: Sequence[ChatMessage],
) -> tuple[list[ChatMessage], list[DeliveryNote]]:
    """Pair calls with results; unmatched results become user turns, unanswered calls text."""
    out: list[ChatMessage] = []
    notes: list[DeliveryNote] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        if message.role == "tool":
            out.append(_unmatched(message, index, notes))
            index += 1
            continue
        end = index + 1
        while end < len(messages) and messages[end].role == "tool":
            end += 1
        if message.role != "assistant" or not message.tool_calls:
            out.append(message)
            index += 1
            continue
        out.extend(_pair_run(message, index, messages[index + 1 : end], notes))
        index = end
    return out, notes


def _pair_run(
    assistant: ChatMessage, index: int, run: Sequence[ChatMessage], notes: list[DeliveryNote]
) -> list[ChatMessage]:
    calls = {call.id for call in assistant.tool_calls}
    answers: list[ChatMessage] = []
    leftovers: list[ChatMessage] = []
    answered: set[str] = set()
    for offset, result in enumerate(run, start=index + 1):
        call_id = result.tool_call_id
        if call_id in calls and call_id not in answered:
            answered.add(call_id)
            answers.append(result)
        else:
            leftovers.append(_unmatched(result, offset, notes))
    content = assistant.content
    for call in assistant.tool_calls:
        if call.id not in answered:
            content = f"{content}\n{tool_call_line(call)}" if content else tool_call_line(call)
            notes.append(
                DeliveryNote(
                    rule="unanswered_tool_call",
                    detail=(
                        f"chat_prompt[{index}]: call {call.id} ({call.name}) has no tool result; "
                        "it is sent as text in the assistant turn"
                    ),
                )
            )
    kept = tuple(call for call in assistant.tool_calls if call.id in answered)
    paired = ChatMessage(
        role="assistant", content=content, tool_calls=kept, reasoning=assistant.reasoning
    )
    return [paired, *answers, *leftovers]


def _unmatched(result: ChatMessage, index: int, notes: list[DeliveryNote]) -> ChatMessage:
    what = f"tool result for {result.tool_call_id}" if result.tool_call_id else "tool result"
    notes.append(
        DeliveryNote(
            rule="unmatched_tool_result",
            detail=(
                f"chat_prompt[{index}]: {what} answers no call of the assistant turn before it; "
                "it is sent as a user turn marked @[Tool]:"
            ),
        )
    )
    return ChatMessage(role="user", content="@[Tool]:\n" + result.content)


def with_results(
    paired: Sequence[ChatMessage],
) -> Iterator[tuple[ChatMessage, list[tuple[ToolCall, ChatMessage]]]]:
    """Each non-tool entry of a paired conversation, with the results answering its calls,
    as ``(call, result)`` in call order (APIs that group results want that order)."""
    index = 0
    while index < len(paired):
        message = paired[index]
        index += 1
        results: dict[str, ChatMessage] = {}
        while index < len(paired) and paired[index].role == "tool":
            results[paired[index].tool_call_id or ""] = paired[index]
            index += 1
        yield (
            message,
            [(call, results[call.id]) for call in message.tool_calls if call.id in results],
        )
