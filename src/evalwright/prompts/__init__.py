"""Prompt building: a loaded case becomes its question, guidelines and chat prompt."""

from evalwright.prompts.build import BuiltPrompt, build_prompt, prompt_document, reference_answer
from evalwright.prompts.chat import (
    DEFAULT_SYSTEM_PROMPT,
    ChatMessage,
    DeliveryNote,
    developer_notes,
    name_notes,
)

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "BuiltPrompt",
    "ChatMessage",
    "DeliveryNote",
    "build_prompt",
    "developer_notes",
    "name_notes",
    "prompt_document",
    "reference_answer",
]
