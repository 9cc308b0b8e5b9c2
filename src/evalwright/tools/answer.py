"""Answering a step's tool calls (docs/tools.md#the-tool-loop): every call of a step at once,
each paired with its result by id, in the calls' order. A call the loop cannot answer (an
unknown tool, one without an implementation, arguments that are no JSON object) gets an error
result the model can read, never a crash."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evalwright.errors import ToolServerError
from evalwright.jsontext import JsonObject
from evalwright.prompts import DeliveryNote
from evalwright.providers.process import ChildEnvironment
from evalwright.providers.wire import AnswerToolCall
from evalwright.results.parts import ToolResult
from evalwright.targets.tools import McpTools, ToolSpec
from evalwright.tools.base import Outcome, Source, ToolServers
from evalwright.tools.command import MAX_RESULT_BYTES, run_tool
from evalwright.tools.scripted import scripted

CALLS_AT_ONCE = 8
"""How many calls of one step are answered at the same time."""


@dataclass(frozen=True, slots=True)
class Toolbox:
    """The tools one case offers, and what answers each: its declared tools' implementations
    and the MCP servers that listed the others."""

    declared: tuple[ToolSpec, ...]
    served: dict[str, McpTools]
    """Each tool an MCP server listed, by name: the server that answers it."""
    servers: ToolServers | None
    env: ChildEnvironment
    about: Mapping[str, str] = field(default_factory=dict[str, str])
    """What a command is told of the case it answers (docs/tools.md#commands)."""

    @property
    def runs(self) -> bool:
        """Whether the loop runs: some offered tool can answer a call."""
        return bool(self.served) or any(tool.implemented for tool in self.declared)

    async def answer(
        self, calls: Sequence[AnswerToolCall]
    ) -> tuple[tuple[ToolResult, ...], tuple[DeliveryNote, ...]]:
        """Every call's result, in the calls' order, and a note per call of a tool the case
        does not offer."""
        # Bounded: a model may ask for hundreds of calls at once, each maybe a process.
        gate = asyncio.Semaphore(CALLS_AT_ONCE)

        async def one(call: AnswerToolCall) -> ToolResult:
            async with gate:
                return await self._one(call)

        results = await asyncio.gather(*(one(call) for call in calls))
        notes = tuple(
            DeliveryNote(
                rule="unknown_tool",
                detail=(
                    f"tool_calls[{index}]: the model called {call.name!r}, which the case does "
                    "not offer; it was answered with an error result"
                ),
            )
            for index, call in enumerate(calls)
            if call.name not in self.served and call.name not in self._names
        )
        return tuple(results), notes

    @property
    def _names(self) -> set[str]:
        return {tool.name for tool in self.declared}

    async def _one(self, call: AnswerToolCall) -> ToolResult:
        started = time.perf_counter()
        source, outcome = await self._outcome(call)
        return ToolResult(
            tool_call_id=call.id,
            name=call.name,
            content=capped(outcome.content),
            is_error=outcome.is_error,
            source=source,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
        )

    async def _outcome(self, call: AnswerToolCall) -> tuple[Source, Outcome]:
        tool = next((t for t in self.declared if t.name == call.name), None)
        server = self.served.get(call.name)
        if tool is None and server is None:
            offered = ", ".join([*self._names, *self.served]) or "none"
            return "none", Outcome(f"no tool named {call.name!r} (offered: {offered})", True)
        if call.arguments is None:
            message = f"the arguments of {call.name} are not a JSON object: {call.raw_arguments}"
            return "none", Outcome(message, True)
        arguments: JsonObject = call.arguments
        if server is not None and self.servers is not None:
            return "mcp", await self.servers.call(server, call.name, arguments)
        assert tool is not None
        if tool.command is not None:
            about = {**self.about, "EVALWRIGHT_TOOL_CALL_ID": call.id}
            return "command", await run_tool(tool, arguments, self.env, about)
        if tool.results is not None:
            return "results", scripted(tool, arguments)
        if "result" in tool.model_fields_set:
            return "result", scripted(tool, arguments)
        return "none", Outcome(f"{call.name} has no implementation in this eval", True)


async def open_toolbox(
    tools: tuple[ToolSpec, ...],
    entries: tuple[McpTools, ...],
    servers: ToolServers | None,
    env: ChildEnvironment,
    about: Mapping[str, str] | None = None,
) -> tuple[Toolbox, tuple[ToolSpec, ...]]:
    """The toolbox of a case offering ``tools`` and the MCP servers ``entries``, and every
    tool it offers the model: the declared ones, then each server's in its order. Raises
    ToolServerError when a server fails or lists a name already offered."""
    offered = list(tools)
    served: dict[str, McpTools] = {}
    for entry in entries:
        if servers is None:
            raise ToolServerError("MCP servers cannot be used in this run")
        for tool in await servers.listed(entry):
            if tool.name in served or any(t.name == tool.name for t in tools):
                raise ToolServerError(
                    f"the MCP server {_server_name(entry)} lists {tool.name!r}, a name the "
                    "case already offers"
                )
            served[tool.name] = entry
            offered.append(tool)
    return Toolbox(tools, served, servers, env, dict(about or {})), tuple(offered)


def capped(content: str) -> str:
    """A result as sent back: at most :data:`MAX_RESULT_BYTES` of it, then a line saying it
    was cut (an MCP server's result has no other bound)."""
    data = content.encode("utf-8")
    if len(data) <= MAX_RESULT_BYTES:
        return content
    kept = data[:MAX_RESULT_BYTES].decode("utf-8", errors="ignore")
    return f"{kept}\n[cut: the result was {len(data)} bytes, more than {MAX_RESULT_BYTES}]"


def _server_name(entry: McpTools) -> str:
    server = entry.mcp
    return server.url if server.url is not None else " ".join(server.command or ())
