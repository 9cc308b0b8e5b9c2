"""The JSON Lines events of ``codex exec --json``, as typed models.

Only what evalwright reads is modelled; other fields and unknown event or item types are
kept loosely so a newer Codex does not break a run.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError

from evalwright import jsontext
from evalwright.providers.wire import TraceEntry


class _Event(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Item(_Event):
    """A thread item: an agent message, a command run, an error, ..."""

    id: str | None = None
    type: str
    text: str | None = None
    message: str | None = None
    command: str | None = None
    aggregated_output: str | None = None
    exit_code: int | None = None
    status: str | None = None


class Usage(_Event):
    """Token counts of a turn."""

    input_tokens: int | None = None
    cached_input_tokens: int | None = None
    output_tokens: int | None = None


class ErrorInfo(_Event):
    """What failed."""

    message: str = ""


class Event(_Event):
    """One line of the stream."""

    type: str
    thread_id: str | None = None
    item: Item | None = None
    usage: Usage | None = None
    error: ErrorInfo | None = None
    message: str | None = None


def parse_line(line: str) -> Event | None:
    """One stream line as an event; ``None`` for a line that is not a JSON event."""
    try:
        return Event.model_validate(jsontext.loads(line))
    except (ValueError, ValidationError):
        return None


class Transcript:
    """What a run of ``codex exec`` produced: its answer, trace, usage and failures."""

    def __init__(self) -> None:
        self.answer: str | None = None
        self.trace: list[TraceEntry] = []
        self.usage: Usage | None = None
        self.failure: str | None = None
        self.turn_failed = False

    def add(self, event: Event) -> None:
        """Take in one event."""
        if event.type == "item.completed" and event.item is not None:
            self._item(event.item)
        elif event.type == "turn.completed":
            self.usage = event.usage
        elif event.type == "turn.failed":
            self.turn_failed = True
            self.failure = event.error.message if event.error else "the turn failed"
        elif event.type == "error":
            self.failure = event.message or "codex reported an error"

    def _item(self, item: Item) -> None:
        if item.type == "agent_message":
            self.answer = item.text or ""
            self.trace.append(TraceEntry(type="message", text=self.answer))
        elif item.type == "command_execution":
            self.trace.append(
                TraceEntry(
                    type="command",
                    command=item.command,
                    exit_code=item.exit_code,
                    text=item.aggregated_output,
                )
            )
        elif item.type == "reasoning":
            self.trace.append(TraceEntry(type="reasoning", text=item.text))
        elif item.type == "error":
            self.trace.append(TraceEntry(type="error", text=item.message))
        else:
            self.trace.append(TraceEntry(type=item.type))
