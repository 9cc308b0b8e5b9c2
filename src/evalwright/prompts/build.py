"""``build_prompt``: an eval case becomes its question, guidelines and chat prompt."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalwright.evalfile.resolved import (
    CaseMessage,
    FileSegment,
    GuidelineSegment,
    LoadedCase,
    MediaSegment,
)
from evalwright.prompts.chat import (
    ChatMessage,
    DeliveryNote,
    chat_prompt,
    needs_chat_prompt,
    system_content,
    system_entries,
)
from evalwright.prompts.render import block, file_block, question
from evalwright.targets.kind_facts import Mode


@dataclass(frozen=True, slots=True)
class BuiltPrompt:
    """What a case sends, before any API mapping (docs/delivery.md#what-is-built-for-each-case)."""

    mode: Mode
    question: str
    guidelines: str
    guideline_paths: tuple[str, ...]
    input_files: tuple[str, ...]
    chat_prompt: tuple[ChatMessage, ...] | None
    system_content: str
    notes: tuple[DeliveryNote, ...] = ()

    @property
    def messages(self) -> tuple[ChatMessage, ...]:
        """The chat prompt, else ``[system content, user: the flat question]``
        (docs/delivery.md#what-a-chat-api-is-sent)."""
        if self.chat_prompt is not None:
            if (
                self.chat_prompt and self.chat_prompt[0].role == "system"
            ) or not self.system_content:
                return self.chat_prompt
            return (ChatMessage(role="system", content=self.system_content), *self.chat_prompt)
        user = ChatMessage(role="user", content=self.question)
        if not self.system_content:
            return (user,)
        return (ChatMessage(role="system", content=self.system_content), user)


def build_prompt(
    case: LoadedCase,
    *,
    mode: Mode = "lm",
    system_prompt: str | None = None,
    separate_system: bool = False,
) -> BuiltPrompt:
    """Build a case's prompt for a target in ``mode`` with the target's ``system_prompt``.

    ``system_prompt=None`` means the default; ``""`` means no base system text.
    ``separate_system`` keeps several leading system turns apart in the chat prompt.
    """
    messages = case.input_messages
    guideline_files: dict[str, GuidelineSegment] = {}
    input_files: dict[str, None] = {}
    for message in messages:
        for segment in message.segments:
            if isinstance(segment, GuidelineSegment):
                guideline_files.setdefault(segment.path, segment)
            elif isinstance(segment, FileSegment | MediaSegment) and segment.path:
                input_files.setdefault(segment.path)
    guidelines = "\n\n".join(file_block(g.display, g.content) for g in guideline_files.values())
    system = system_content(messages, guidelines, system_prompt)
    chat: tuple[ChatMessage, ...] | None = None
    notes: tuple[DeliveryNote, ...] = ()
    if mode == "lm" and needs_chat_prompt(messages):
        entries, merged = system_entries(messages, system, guidelines, separate_system)
        chat, notes = chat_prompt(messages, entries)
        notes = (*merged, *notes)
    return BuiltPrompt(
        mode=mode,
        question=question(messages, mode),
        guidelines=guidelines,
        guideline_paths=tuple(guideline_files),
        input_files=tuple(input_files),
        chat_prompt=chat,
        system_content=system,
        notes=notes,
    )


def reference_answer(messages: tuple[CaseMessage, ...]) -> str:
    """Expected messages rendered in LM mode, no role markers, blocks joined by a blank line."""
    return "\n\n".join(text for text in (block(m, "lm") for m in messages) if text)


def prompt_document(inputs: BuiltPrompt) -> str:
    """The document an agent target receives (docs/agents.md#the-prompt-document)."""
    lines: list[str] = []
    if inputs.guideline_paths:
        lines.append("Read these guideline files first:")
        lines.extend(f"- {Path(p).as_uri()}" for p in inputs.guideline_paths)
    if inputs.input_files:
        lines.append("Read these attached files:")
        lines.extend(f"- {Path(p).as_uri()}" for p in inputs.input_files)
    if lines:
        lines.append("If a file cannot be read, stop and answer: ERROR: missing file <path>")
        lines.append("")
    lines.extend(("[[ ## user_query ## ]]", "", inputs.question))
    return "\n".join(lines)
