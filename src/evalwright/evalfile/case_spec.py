"""What a case spec says, read plainly: its expected outcome, and its input and expected
messages with the data path of each (docs/eval-files.md#case-keys)."""

from __future__ import annotations

from evalwright.evalfile.messages import AssistantMessage, Message, ToolMessage, UserMessage
from evalwright.evalfile.models import EvalCase, raw_field
from evalwright.files.source import DataPath


def plain_key(message: Message) -> tuple[str, str] | None:
    """``(role, text)`` of a turn that is one string and nothing else, else ``None``."""
    content = message.content
    if not isinstance(content, str) or isinstance(message, ToolMessage):
        return None
    if isinstance(message, AssistantMessage) and message.tool_calls:
        return None
    if getattr(message, "name", None) is not None:
        return None  # a named turn is not shared with an unnamed one of the same text
    return message.role, content


def spec_outcome(spec: EvalCase) -> str:
    """The expected outcome (AgentV's ``outcome`` when it is given instead)."""
    value = (
        spec.expected_outcome if spec.expected_outcome is not None else raw_field(spec, "outcome")
    )
    return str(value)


def input_key(spec: EvalCase) -> str:
    """The key the case's input is given under."""
    return "input_messages" if spec.input_messages is not None else "input"


def input_messages_of(spec: EvalCase) -> list[tuple[Message, DataPath]]:
    """The input messages (``input`` as one user message; none before live turns)."""
    if spec.input_messages is not None:
        return [(m, ("input_messages", i)) for i, m in enumerate(spec.input_messages)]
    if spec.turns is not None or spec.simulated_user is not None:  # no history
        return []
    return [(UserMessage(role="user", content=spec.input or ""), ("input",))]


def expected_messages_of(spec: EvalCase) -> list[tuple[Message, DataPath]]:
    """The expected messages (``expected_output`` as one assistant message)."""
    if spec.expected_messages is not None:
        return [(m, ("expected_messages", i)) for i, m in enumerate(spec.expected_messages)]
    if spec.expected_output is not None:
        return [
            (AssistantMessage(role="assistant", content=spec.expected_output), ("expected_output",))
        ]
    return []
