"""A FastMCP server for the MCP tests: ``python mcp_server.py stdio`` serves over stdio;
``python mcp_server.py http`` binds a free port on 127.0.0.1, prints it on stdout, and serves
streamable HTTP at ``/mcp``. Its tools report what a test needs to see: their arguments, the
server's environment and directory, and the failures a server can have."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import anyio
from mcp.server.fastmcp import FastMCP, Image
from mcp.types import CallToolResult, EmbeddedResource, TextResourceContents
from pydantic import AnyUrl

server = FastMCP("evalwright-tests", host="127.0.0.1", log_level="WARNING")
if os.environ.get("MCP_TEST_BAD_TOOLS"):
    server.add_tool(lambda: "", name="bad.name", description="A name no chat API accepts.")
    server.add_tool(lambda: "", name="listy", description="Its arguments are no object.")
    server._tool_manager.get_tool("listy").parameters = {"type": "array"}  # pyright: ignore[reportPrivateUsage, reportOptionalMemberAccess]


@server.tool()
def add(a: int, b: int) -> int:
    """The sum of two integers."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """The text given."""
    return text


@server.tool()
def fail(message: str) -> str:
    """Raise an error with the message."""
    raise ValueError(message)


@server.tool()
def env(name: str) -> str:
    """The value of an environment variable of the server, or ``(unset)``."""
    return os.environ.get(name, "(unset)")


@server.tool()
def cwd() -> str:
    """The server's working directory."""
    return os.getcwd()


@server.tool()
async def sleep(seconds: float) -> str:
    """Answer after some seconds (the server goes on answering meanwhile)."""
    await anyio.sleep(seconds)
    return "slept"


@server.tool(structured_output=False)
def picture() -> list[object]:
    """A caption, a tiny PNG and a text resource."""
    resource = TextResourceContents(
        uri=AnyUrl("file:///notes.txt"), mimeType="text/plain", text="hi"
    )
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 8
    return [
        "a caption",
        Image(data=png, format="png"),
        EmbeddedResource(type="resource", resource=resource),
    ]


@server.tool()
def structured() -> CallToolResult:
    """No content blocks, only structured content."""
    return CallToolResult(content=[], structuredContent={"temperature": 21})


@server.tool()
def spawn() -> int:
    """Start a child that outlives stdin's end and SIGTERM; its pid."""
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL)
    return child.pid


@server.tool()
def crash() -> str:
    """End the server at once, without an answer."""
    os._exit(3)


def _serve_http() -> None:
    import uvicorn

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    # Listening already: a client that reads the port can connect at once.
    print(listener.getsockname()[1], flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    anyio.run(uvicorn.Server(config).serve, [listener])


if __name__ == "__main__":
    if starts := os.environ.get("MCP_TEST_STARTS"):
        with open(starts, "a", encoding="utf-8") as log:
            print(os.getpid(), file=log)
    print("test server starting", file=sys.stderr, flush=True)
    if sys.argv[1:] == ["http"]:
        _serve_http()
    else:
        server.run("stdio")
        if os.environ.get("MCP_TEST_LINGER"):  # a server that does not exit when asked to
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(600)
