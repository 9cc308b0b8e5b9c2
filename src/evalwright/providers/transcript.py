"""What an agent CLI's event stream builds up, shared by the adapters that read one
(Claude Code, Gemini CLI): the answer, the trace, the tool calls, usage and failure, with a
shell tool's calls shown as commands whose output joins them
(docs/agents.md#reporting-tool-calls)."""

from __future__ import annotations

from evalwright.jsontext import JsonValue
from evalwright.providers.wire import AnswerToolCall, TraceEntry, Usage


class AgentTranscript:
    """The parts of a run an adapter fills in as its events arrive."""

    command_tool = ""
    """The name of the agent's shell tool: its calls are traced as commands."""
    answer: str | None
    trace: list[TraceEntry]
    tool_calls: list[AnswerToolCall]
    usage: Usage | None
    failure: str | None

    def __init__(self) -> None:
        self.answer = None
        self.trace = []
        self.tool_calls = []
        self.usage = None
        self.failure = None
        self._commands: dict[str, int] = {}  # a shell call's id: its entry in the trace

    def _call(self, call_id: str | None, name: str | None, arguments: JsonValue) -> None:
        """A tool call: recorded, and traced as a command (the shell tool) or a tool use."""
        name = name or "?"
        parsed = arguments if isinstance(arguments, dict) else None
        call_id = call_id or f"call-{len(self.tool_calls) + 1}"
        self.tool_calls.append(
            AnswerToolCall(id=call_id, name=name, raw_arguments=arguments, arguments=parsed)
        )
        command = parsed.get("command") if parsed else None
        if name == self.command_tool and isinstance(command, str):
            self._commands[call_id] = len(self.trace)
            self.trace.append(TraceEntry(type="command", command=command))
        else:
            self.trace.append(TraceEntry(type="tool_use", text=name))

    def _command_output(self, call_id: str | None, output: str | None) -> bool:
        """A tool's result joined to its command's entry; whether the call was a command."""
        index = self._commands.get(call_id or "")
        if index is None:
            return False
        entry = self.trace[index]
        self.trace[index] = TraceEntry(type="command", command=entry.command, text=output)
        return True
