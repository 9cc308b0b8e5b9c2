"""Prompt building: a loaded case becomes its question, guidelines and chat prompt."""

from evalwright.prompts.build import PromptInputs, build_prompt, prompt_document, reference_answer
from evalwright.prompts.chat import DEFAULT_SYSTEM_PROMPT, ChatMessage, DeliveryNote

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "ChatMessage",
    "DeliveryNote",
    "PromptInputs",
    "build_prompt",
    "prompt_document",
    "reference_answer",
]
