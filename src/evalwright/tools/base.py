"""What answering one tool call gives, and the seam MCP servers plug into
(docs/tools.md#the-tool-loop)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from evalwright.jsontext import JsonValue
from evalwright.targets.tools import McpTools, ToolSpec

Source = Literal["result", "results", "command", "mcp", "none"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A call's answer: the text sent back, and whether it reports a failure."""

    content: str
    is_error: bool = False


class ToolServers(Protocol):
    """The MCP servers of a run: each started once, on first use, and shut at the run's end
    (docs/tools.md#mcp-servers)."""

    async def listed(self, entry: McpTools) -> tuple[ToolSpec, ...]:
        """The tools ``entry``'s server lists (only those ``include`` names, when it names
        some), as declarations; raises ToolServerError when it cannot be started or listed."""
        ...

    async def call(self, entry: McpTools, name: str, arguments: dict[str, JsonValue]) -> Outcome:
        """Forward one call to ``entry``'s server: its result, or an error outcome (never an
        exception) when the tool or the server fails."""
        ...

    async def aclose(self) -> None:
        """Shut every server started."""
        ...
