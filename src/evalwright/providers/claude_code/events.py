"""The events of ``claude -p --output-format stream-json --verbose``, read into a transcript
(docs/agents.md#claude_code-claude-code).

Only what evalwright reads is modelled; other fields and unknown event or block types are
kept loosely, so a newer Claude Code does not break a run.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError

from evalwright import jsontext
from evalwright.jsontext import JsonValue
from evalwright.providers.transcript import AgentTranscript
from evalwright.providers.wire import TraceEntry, Usage

COMMAND_TOOL = "Bash"
"""The tool whose calls are shell commands (also scored as ``shell`` calls)."""


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Block(_Loose):
    """A content block: text, thinking, a tool use or a tool's result."""

    type: str
    text: str | None = None
    thinking: str | None = None
    id: str | None = None
    name: str | None = None
    input: JsonValue = None
    tool_use_id: str | None = None
    content: JsonValue = None
    is_error: bool | None = None


class Message(_Loose):
    """The message of an ``assistant`` or ``user`` event."""

    content: list[Block] | str = []


class ResultUsage(_Loose):
    """The whole run's token counts."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None


class Denial(_Loose):
    """A tool use the permission mode refused."""

    tool_name: str = "?"


class Event(_Loose):
    """One line of the stream."""

    type: str
    subtype: str | None = None
    message: Message | None = None
    result: str | None = None
    is_error: bool | None = None
    usage: ResultUsage | None = None
    permission_denials: list[Denial] = []


class ClaudeTranscript(AgentTranscript):
    """What a run of Claude Code produced: its answer, trace, tool calls, usage and failure."""

    command_tool = COMMAND_TOOL

    def add(self, line: str) -> None:
        """Take in one line (a line that is no event is ignored)."""
        try:
            event = Event.model_validate(jsontext.loads(line))
        except (ValueError, ValidationError):
            return
        blocks = event.message.content if event.message else []
        for block in blocks if isinstance(blocks, list) else []:
            self._block(block)
        if event.type == "result":
            self._result(event)

    def _block(self, block: Block) -> None:
        if block.type == "text" and block.text:
            self.trace.append(TraceEntry(type="message", text=block.text))
        elif block.type == "thinking":
            self.trace.append(TraceEntry(type="reasoning", text=block.thinking))
        elif block.type == "tool_use":
            self._tool_use(block)
        elif block.type == "tool_result":
            self._tool_result(block)

    def _tool_use(self, block: Block) -> None:
        self._call(block.id, block.name, block.input)

    def _tool_result(self, block: Block) -> None:
        output = _text(block.content)
        if not self._command_output(block.tool_use_id, output) and block.is_error:
            self.trace.append(TraceEntry(type="error", text=output))

    def _result(self, event: Event) -> None:
        for denial in event.permission_denials:
            refused = f"permission denied: {denial.tool_name}"
            self.trace.append(TraceEntry(type="error", text=refused))
        if event.usage is not None:
            self.usage = _usage(event.usage)
        if event.subtype == "success" and not event.is_error:
            self.answer = event.result or ""
        else:
            self.failure = event.result or event.subtype or "the run failed"


def _usage(usage: ResultUsage) -> Usage:
    # Anthropic counts cache reads and writes besides input_tokens.
    extra: dict[str, int] = {}
    if usage.cache_read_input_tokens:
        extra["cache_read_tokens"] = usage.cache_read_input_tokens
    if usage.cache_creation_input_tokens:
        extra["cache_write_tokens"] = usage.cache_creation_input_tokens
    return Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, **extra)


def _text(content: JsonValue) -> str:
    """A tool result's text: a string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = (b.get("text") for b in content if isinstance(b, dict))
        return "".join(t for t in texts if isinstance(t, str))
    return ""
