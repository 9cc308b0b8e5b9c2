"""The events of ``gemini --output-format stream-json``, read into a transcript
(docs/agents.md#gemini_cli-gemini-cli).

Only what evalwright reads is modelled; other fields and unknown event types are kept
loosely, so a newer Gemini CLI does not break a run.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError

from evalwright import jsontext
from evalwright.jsontext import JsonValue
from evalwright.providers.transcript import AgentTranscript
from evalwright.providers.wire import TraceEntry, Usage

COMMAND_TOOL = "run_shell_command"
"""The tool whose calls are shell commands (also scored as ``shell`` calls)."""


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Problem(_Loose):
    """An error a tool result or the run's result carries."""

    type: str | None = None
    message: str = ""


class Stats(_Loose):
    """The run's token counts."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cached: int | None = None


class Event(_Loose):
    """One line of the stream."""

    type: str
    role: str | None = None
    content: str | None = None
    tool_name: str | None = None
    tool_id: str | None = None
    parameters: JsonValue = None
    status: str | None = None
    output: str | None = None
    error: Problem | None = None
    severity: str | None = None
    message: str | None = None
    stats: Stats | None = None


class GeminiTranscript(AgentTranscript):
    """What a run of Gemini CLI produced: its answer, trace, tool calls, usage and failure."""

    command_tool = COMMAND_TOOL

    def __init__(self) -> None:
        super().__init__()
        self._said: list[str] = []  # the model's text since its last tool call
        self._last = ""

    def add(self, line: str) -> None:
        """Take in one line (a line that is no event is ignored)."""
        try:
            event = Event.model_validate(jsontext.loads(line))
        except (ValueError, ValidationError):
            return
        if event.type == "message" and event.role == "assistant":
            self._said.append(event.content or "")
        elif event.type == "tool_use":
            self._tool_use(event)
        elif event.type == "tool_result":
            self._tool_result(event)
        elif event.type == "error":
            self.trace.append(TraceEntry(type="error", text=event.message))
        elif event.type == "result":
            self._result(event)

    def _flush(self) -> None:
        """The text said since the last tool call becomes one message of the trace."""
        if self._said:
            self._last = "".join(self._said)
            self.trace.append(TraceEntry(type="message", text=self._last))
            self._said = []

    def _tool_use(self, event: Event) -> None:
        self._flush()
        self._last = ""
        self._call(event.tool_id, event.tool_name, event.parameters)

    def _tool_result(self, event: Event) -> None:
        self._command_output(event.tool_id, event.output)
        if event.status == "error":
            problem = event.error.message if event.error else "the tool failed"
            self.trace.append(TraceEntry(type="error", text=problem))

    def _result(self, event: Event) -> None:
        self._flush()
        if event.stats is not None:
            self.usage = _usage(event.stats)
        if event.status == "success":
            self.answer = self._last
        else:
            self.failure = event.error.message if event.error else f"status {event.status}"


def _usage(stats: Stats) -> Usage:
    # Gemini counts cached input inside input_tokens.
    extra = {"cache_read_tokens": stats.cached} if stats.cached else {}
    return Usage(input_tokens=stats.input_tokens, output_tokens=stats.output_tokens, **extra)
