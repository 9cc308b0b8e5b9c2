"""The structured conversation a chat API receives (docs/delivery.md#the-chat-prompt)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from evalwright.evalfile.messages import Role, ToolCall
from evalwright.evalfile.resolved import CaseMessage, MediaSegment
from evalwright.jsontext import JsonObject
from evalwright.prompts.render import block, content_text, render_segment
from evalwright.records import ReasoningPart, RecordModel

DEFAULT_SYSTEM_PROMPT = "You are a careful assistant."
GUIDELINES_HEADING = "[[ ## Guidelines ## ]]\n\n"
NoteRule = Literal[
    "system_mid_conversation",
    "unmatched_tool_result",
    "unanswered_tool_call",
    "conversation_start_inserted",
    "assistant_prefill",
    "output_limit_ignored",
    "template_dropped_content",
    "template_not_checked",
    "setting_unsupported",
    "unknown_tool",
    "name_unsupported",
    "system_as_developer",
    "system_messages_merged",
    "empty_message_dropped",
    "media_omitted",
]
ChatPart = str | MediaSegment
"""A piece of a message with media: text, or a media part sent natively
(docs/delivery.md#media)."""


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One entry of a chat prompt; tool calls stay structured.

    Built on the per-case path of every run from already validated parts, so a plain
    dataclass: it never reads a user's file.
    """

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    """A tool result reporting the tool's failure (docs/tools.md#failures)."""
    reasoning: tuple[ReasoningPart, ...] = ()
    """An assistant turn's reasoning from this run's tool loop, for the APIs that need it
    back (docs/tools.md#the-tool-loop); not part of the chat prompt's JSON."""
    parts: tuple[ChatPart, ...] = ()
    """A user turn with media: its text and media in order, for the APIs that take media
    natively; empty for a text-only message. ``content`` is then its text with a marker
    where each media part was (docs/delivery.md#media)."""

    def to_json(self) -> JsonObject:
        """``{"role", "content"}`` plus ``tool_calls``, ``tool_call_id``, ``name`` where present."""
        out: JsonObject = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls
            ]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        if self.is_error:
            out["is_error"] = True
        if self.parts:
            out["media"] = [media_json(p) for p in self.parts if isinstance(p, MediaSegment)]
        return out


def media_json(segment: MediaSegment) -> JsonObject:
    """What a row records of a media part: never its bytes (docs/delivery.md#media)."""
    if segment.media is None:
        return {"type": segment.kind, "url": segment.url}
    media = segment.media
    return {
        "type": segment.kind,
        "path": segment.display,
        "media_type": media.media_type,
        "size": media.size,
        "sha256": media.sha256,
    }


def chat_parts(message: CaseMessage) -> tuple[ChatPart, ...]:
    """A message's text and media in order, adjacent text joined by ``\n``; empty when it
    has no media (docs/delivery.md#media)."""
    if not any(isinstance(s, MediaSegment) for s in message.segments):
        return ()
    parts: list[ChatPart] = []
    texts: list[str] = []
    for segment in message.segments:
        if isinstance(segment, MediaSegment):
            if texts:
                parts.append("\n".join(texts))
                texts = []
            parts.append(segment)
        else:
            texts.append(render_segment(segment, "lm"))
    if texts:
        parts.append("\n".join(texts))
    return tuple(parts)


class DeliveryNote(RecordModel):
    """A change an API forced on the conversation (docs/delivery.md#delivery-notes);
    recorded as ``{rule, detail}`` on the row and in ``prompt --json``."""

    rule: NoteRule
    detail: str


def name_notes(api: str, messages: Sequence[ChatMessage]) -> list[DeliveryNote]:
    """One ``name_unsupported`` note per named non-tool message, for an API with no field
    for a participant name: the message is sent without it
    (docs/delivery.md#delivery-notes)."""
    return [
        DeliveryNote(
            rule="name_unsupported",
            detail=(
                f"chat_prompt[{index}]: {api} has no field for a message's name; the {m.role} "
                f"message is sent without name {m.name!r}"
            ),
        )
        for index, m in enumerate(messages)
        if m.name is not None and m.role != "tool"
    ]


def developer_notes(system_role: str, messages: Sequence[ChatMessage]) -> list[DeliveryNote]:
    """One ``system_as_developer`` note per system message sent with the role ``developer``,
    as the target's ``system_role`` asks (docs/delivery.md#delivery-notes)."""
    if system_role == "system":
        return []
    return [
        DeliveryNote(
            rule="system_as_developer",
            detail=(
                f"chat_prompt[{index}]: the system message is sent with role {system_role!r}, "
                f"as the target's system_role asks"
            ),
        )
        for index, m in enumerate(messages)
        if m.role == "system"
    ]


def system_blocks(messages: Sequence[CaseMessage]) -> list[str]:
    """The blocks of the leading system turns that show (docs/delivery.md#the-system-message)."""
    return [block(m, "lm") for _, m in _leading_shown(messages)]


def _leading_shown(messages: Sequence[CaseMessage]) -> list[tuple[int, CaseMessage]]:
    """The leading system turns that show, with their indexes."""
    shown: list[tuple[int, CaseMessage]] = []
    for index, message in enumerate(messages):
        if message.role != "system":
            break
        if message.visible:
            shown.append((index, message))
    return shown


def system_content(
    messages: Sequence[CaseMessage], guidelines: str, system_prompt: str | None
) -> str:
    """The base (leading system turns, else the target's prompt) plus guidelines
    (docs/delivery.md#the-system-message)."""
    blocks = system_blocks(messages)
    if blocks:
        base = "\n\n".join(blocks)
    else:
        base = DEFAULT_SYSTEM_PROMPT if system_prompt is None else system_prompt
    guideline_block = GUIDELINES_HEADING + guidelines if guidelines else ""
    return "\n\n".join(item for item in (base, guideline_block) if item)


def system_entries(
    messages: Sequence[CaseMessage], system: str, guidelines: str, separate: bool
) -> tuple[tuple[ChatMessage, ...], list[DeliveryNote]]:
    """The chat prompt's system entries: ``system`` whole, with a ``system_messages_merged``
    note when it joins several system turns (and a ``name_unsupported`` one per name the
    merge loses); with ``separate``, one entry per turn with its name, the guidelines after
    the last (docs/delivery.md#the-system-message)."""
    shown = _leading_shown(messages)
    if len(shown) < 2:
        name = shown[0][1].name if shown else None
        return ((ChatMessage("system", system, name=name),) if system else ()), []
    if separate:
        guideline_block = GUIDELINES_HEADING + guidelines if guidelines else ""
        entries = [ChatMessage("system", block(m, "lm"), name=m.name) for _, m in shown]
        last = "\n\n".join(item for item in (entries[-1].content, guideline_block) if item)
        entries[-1] = ChatMessage("system", last, name=entries[-1].name)
        return tuple(entries), []
    detail = (
        f"chat_prompt[0]: the {len(shown)} leading system messages are sent as one, joined by "
        "a blank line; the target's system_messages: separate keeps them apart"
    )
    notes = [DeliveryNote(rule="system_messages_merged", detail=detail)]
    notes.extend(
        DeliveryNote(
            rule="name_unsupported",
            detail=(
                f"input_messages[{index}]: the system message's name {m.name!r} is not sent: "
                "it is merged into one system message"
            ),
        )
        for index, m in shown
        if m.name is not None
    )
    return (ChatMessage("system", system),), notes


def leading_system(
    messages: Sequence[ChatMessage],
) -> tuple[tuple[str, ...], Sequence[ChatMessage]]:
    """The texts of the leading system entries, and the entries after them."""
    count = 0
    while count < len(messages) and messages[count].role == "system":
        count += 1
    return tuple(m.content for m in messages[:count]), messages[count:]


def needs_chat_prompt(messages: Sequence[CaseMessage]) -> bool:
    """A chat prompt is built iff some turn is not ``user``, or several are visible."""
    if any(m.role != "user" or chat_parts(m) for m in messages):
        return True
    return sum(1 for m in messages if m.visible) > 1


def chat_prompt(
    messages: Sequence[CaseMessage],
    system: Sequence[ChatMessage],
) -> tuple[tuple[ChatMessage, ...], tuple[DeliveryNote, ...]]:
    """The system entries first (one, unless the target keeps several apart), then every
    later turn in order (docs/delivery.md#the-chat-prompt)."""
    entries = list(system)
    start = 0
    while start < len(messages) and messages[start].role == "system":
        start += 1
    mid_system: list[int] = []
    empty: list[DeliveryNote] = []
    for index, message in enumerate(messages[start:], start):
        if message.role == "tool":
            entries.append(
                ChatMessage(
                    role="tool",
                    content=content_text(message),
                    tool_call_id=message.tool_call_id,
                    name=message.name,
                    is_error=message.is_error,
                )
            )
        elif not message.visible:
            # A guideline-only turn went to the system message; an empty one is just gone.
            if not message.segments:
                empty.append(_empty_note(index, message.role))
            continue
        elif message.role == "system":
            if message.name is not None:
                empty.append(_mid_name_note(index, message.name))
            mid_system.append(len(entries))
            entries.append(
                ChatMessage(role="assistant", content="@[System]:\n" + block(message, "lm"))
            )
        else:
            entries.append(
                ChatMessage(
                    role=message.role,
                    content=content_text(message),
                    tool_calls=message.tool_calls,
                    name=message.name,
                    reasoning=message.reasoning,
                    parts=chat_parts(message),
                )
            )
    notes = [_place_mid_system(entries, index) for index in mid_system]
    return tuple(entries), (*empty, *notes)


def _mid_name_note(index: int, name: str) -> DeliveryNote:
    return DeliveryNote(
        rule="name_unsupported",
        detail=(
            f"input_messages[{index}]: the system message's name {name!r} is not sent: it "
            "comes after the conversation started and is sent as a marked turn"
        ),
    )


def _empty_note(index: int, role: str) -> DeliveryNote:
    return DeliveryNote(
        rule="empty_message_dropped",
        detail=(
            f"input_messages[{index}]: the {role} message has no content and no tool calls; "
            "it is not sent (no API takes an empty turn alike)"
        ),
    )


def _place_mid_system(entries: list[ChatMessage], index: int) -> DeliveryNote:
    """Keep a late system message in place: an assistant turn, or a user turn when last
    (an assistant entry in last place would be continued by the model as its own words)."""
    last = index == len(entries) - 1
    if last:
        entries[index] = ChatMessage(role="user", content=entries[index].content)
    turn = "a user turn, as the last entry" if last else "an assistant turn"
    return DeliveryNote(
        rule="system_mid_conversation",
        detail=(
            f"chat_prompt[{index}]: a system message after the conversation started is sent as "
            f"{turn}, marked @[System]:"
        ),
    )
