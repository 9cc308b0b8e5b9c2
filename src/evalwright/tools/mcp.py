"""MCP servers' tools (docs/tools.md#mcp-servers), through the official ``mcp`` SDK's client
session: each distinct server a run names is started once, on first use, kept open for the
run, and shut at its end. The SDK is imported only when a run offers an MCP server's tools.

The SDK's transports and session run anyio task groups, which must be left in the task that
entered them: so each server has one task of its own that opens everything in an exit stack,
says it is ready, waits to be told to close, and leaves the stack. Cases call its tools from
their own tasks, through the shared session.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import contextvars
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, cast

from pydantic import ValidationError

from evalwright.errors import ToolServerError
from evalwright.jsontext import JsonValue, dumps_line
from evalwright.providers.process import ChildEnvironment
from evalwright.redact import clip
from evalwright.targets.tools import McpServer, McpTools, ToolSpec, parameters_problems
from evalwright.tools.base import Outcome
from evalwright.tools.mcp_stdio import CLOSE_GRACE, StdioServer, command_label

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import CallToolResult, ContentBlock, Tool

logger = logging.getLogger(__name__)

CLOSE_BOUND = 3 * CLOSE_GRACE + 5
"""The most :meth:`McpServers.aclose` waits for a server to shut before it stops waiting
(a stdio server's group is killed by then)."""


class McpServers:
    """The MCP servers of one run (the ``ToolServers`` of docs/tools.md#mcp-servers): a
    stdio server gets ``child_env``'s environment (no secret unless its ``pass_env`` names
    it); its stderr goes to the log (``-vv``), never to the terminal."""

    def __init__(self, child_env: ChildEnvironment) -> None:
        self._child_env = child_env
        self._servers: dict[str, _Server] = {}
        self._closed = False

    async def listed(self, entry: McpTools) -> tuple[ToolSpec, ...]:
        """The tools ``entry``'s server lists, those ``include`` names (in its order) when it
        names some; ToolServerError when the server cannot be started or listed, lists no
        tool of a name ``include`` gives, or lists a name no chat API accepts."""
        server = await self._started(entry.mcp)
        return tuple(_spec(tool, server.label) for tool in _chosen(server, entry.include))

    async def call(self, entry: McpTools, name: str, arguments: dict[str, JsonValue]) -> Outcome:
        """Call tool ``name`` on ``entry``'s server: its result as text, or an error outcome
        (never an exception) when the tool, the call or the server fails."""
        try:
            server = await self._started(entry.mcp)
        except ToolServerError as exc:
            return Outcome(str(exc), is_error=True)
        return await server.call(name, arguments)

    async def aclose(self) -> None:
        """Shut every server started; bounded, it never hangs on a server."""
        self._closed = True
        await asyncio.gather(*(server.aclose() for server in self._servers.values()))

    async def _started(self, spec: McpServer) -> _Server:
        if self._closed:
            raise ToolServerError("the run's MCP servers are already shut")
        key = spec.model_dump_json()
        server = self._servers.get(key)
        if server is None:
            # No await between the look-up and the store: concurrent first uses of a server
            # all find the one being started, and wait for it below.
            server = self._servers[key] = _Server(spec, self._child_env)
        await server.ready()
        return server


class _Gone(Exception):
    """The server's session ended while a call waited on it."""


class _Server:
    """One server: the task holding its session open, its tools, and why it failed to
    start, if it did (a server is started once; a failure stands for the run)."""

    def __init__(self, spec: McpServer, child_env: ChildEnvironment) -> None:
        self.spec = spec
        if spec.command is not None:
            label = command_label(spec.command)
            env = child_env.build(spec.pass_env)
            self.stdio: StdioServer | None = StdioServer(spec.command, spec.cwd, env, label)
        else:
            assert spec.url is not None
            label, self.stdio = spec.url, None
        self.label = f"'{label}'"
        self.tools: tuple[Tool, ...] = ()
        self._session: ClientSession | None = None
        self._error: str | None = None
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._ended = asyncio.Event()
        self._end = "is not running"
        """What calls are told once the session has ended."""
        # A context of its own: the server outlives the case that first used it, whose name
        # would otherwise start every line it logs.
        self._task = asyncio.create_task(self._hold(), context=contextvars.Context())

    async def ready(self) -> None:
        """Wait until the server is started; ToolServerError when it could not be."""
        await self._ready.wait()
        if self._error is not None:
            raise ToolServerError(self._error)

    async def call(self, name: str, arguments: dict[str, JsonValue]) -> Outcome:
        """One ``tools/call``, within the server's ``timeout_seconds``."""
        import anyio

        session, seconds = self._session, self.spec.timeout_seconds
        if session is None or self._ended.is_set() or self._closing.is_set():
            return Outcome(f"{name}: MCP server {self.label} {self._end}", is_error=True)
        try:
            with anyio.fail_after(seconds):
                result = await self._until_ended(session.call_tool(name, dict(arguments)))
        except TimeoutError:
            message = f"{name}: MCP server {self.label} gave no result within {seconds:g} s"
            return Outcome(message, is_error=True)
        except _Gone:
            return Outcome(f"{name}: MCP server {self.label} {self._end}", is_error=True)
        except Exception as exc:  # the server's answer or its absence: told to the model
            return Outcome(f"{name}: MCP server {self.label} failed: {_why(exc)}", is_error=True)
        return Outcome(result_text(result), is_error=result.isError)

    async def _until_ended(self, call: Awaitable[CallToolResult]) -> CallToolResult:
        """``call``'s result, or :class:`_Gone` as soon as the session ends (an HTTP
        server that went away fails the transport, not the calls waiting on it)."""
        task = asyncio.ensure_future(call)
        ended = asyncio.ensure_future(self._ended.wait())
        try:
            await asyncio.wait([task, ended], return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            if not task.done():
                task.cancel()
            elif not task.cancelled():
                task.exception()  # retrieved, so asyncio does not report it
        if task.done() and not task.cancelled():
            return task.result()
        raise _Gone

    async def aclose(self) -> None:
        """Ask the holding task to leave its stack, and wait for it (bounded)."""
        if not self._ready.is_set():
            self._task.cancel()  # still starting: nothing to wait for
        self._closing.set()
        done, _ = await asyncio.wait([self._task], timeout=CLOSE_BOUND)
        if not done:
            logger.warning("MCP server %s did not shut in time; killed", self.label)
            self._task.cancel()
            await asyncio.wait([self._task], timeout=CLOSE_GRACE)
        if self.stdio is not None:
            self.stdio.kill()

    async def _hold(self) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                try:
                    session = await self._open(stack)
                    self.tools = await self._list(session)
                except Exception as exc:
                    self._error = await self._failure(exc)
                    return
                self._session = session
                self._ready.set()
                await self._closing.wait()
        except Exception as exc:  # raised by the transport's tasks, as it failed or shut
            if self._session is None and self._error is None:
                self._error = await self._failure(exc)
            self._end = f"is gone ({_why(exc)})"
            logger.debug("MCP server %s: ended with an error: %s", self.label, _why(exc))
        finally:
            # Only now: waiters must find the error, however the start ended.
            if self._session is None and self._error is None:
                self._error = f"MCP server {self.label} was shut before it had started"
            self._ready.set()
            self._ended.set()

    async def _open(self, stack: contextlib.AsyncExitStack) -> ClientSession:
        import anyio
        from mcp import ClientSession

        _keep_sdk_log()
        if self.stdio is not None:
            read, write = await self.stdio.open(stack)
        else:
            from mcp.client.streamable_http import streamable_http_client

            assert self.spec.url is not None
            read, write, _ = await stack.enter_async_context(streamable_http_client(self.spec.url))
        session = await stack.enter_async_context(ClientSession(read, write))
        with anyio.fail_after(self.spec.timeout_seconds):
            await session.initialize()
        return session

    async def _list(self, session: ClientSession) -> tuple[Tool, ...]:
        import anyio
        from mcp.types import PaginatedRequestParams

        tools: list[Tool] = []
        cursor: str | None = None
        with anyio.fail_after(self.spec.timeout_seconds):
            while True:
                params = PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=params)
                tools.extend(page.tools)
                cursor = page.nextCursor
                if not cursor:
                    return tuple(tools)

    async def _failure(self, exc: Exception) -> str:
        """Why the server could not be started, with the end of its stderr."""
        if isinstance(exc, OSError) and self.stdio is not None and self.stdio.process is None:
            what = f"{exc.strerror or exc}: '{exc.filename}'" if exc.filename else str(exc)
            return f"MCP server {self.label} could not be started: {what}"
        timed_out = isinstance(exc, TimeoutError)
        if timed_out:
            why = f"no answer within {self.spec.timeout_seconds:g} s (timeout_seconds)"
        else:
            why = _why(exc)
        message = f"MCP server {self.label} could not be started: {why}"
        if self.stdio is None:
            return message
        # A server that stopped answering has most likely exited: wait a little for that.
        status = self.stdio.returncode() if timed_out else await self.stdio.exit_status()
        if status is not None:
            message += f"; it exited with status {status}"
        tail = clip(self.stdio.stderr_tail.strip(), 500, end=True, marker="...")
        return f"{message}; its stderr: {tail}" if tail else message


class _SdkLog(logging.Handler):
    """The SDK's own warnings, as DEBUG lines of evalwright's log (``-vv``): without a
    handler, Python would print them on the terminal."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            logger.debug("MCP SDK: %s", record.getMessage())
        except Exception:
            self.handleError(record)


def _keep_sdk_log() -> None:
    sdk = logging.getLogger("mcp")
    if not any(isinstance(handler, _SdkLog) for handler in sdk.handlers):
        sdk.addHandler(_SdkLog())


def _chosen(server: _Server, include: list[str] | None) -> list[Tool]:
    """The server's tools ``include`` names, in ``include``'s order (all of them, in the
    server's, without one)."""
    if include is None:
        return list(server.tools)
    found = {tool.name: tool for tool in server.tools}
    missing = [name for name in include if name not in found]
    if missing:
        lists = clip(", ".join(found), 500, marker="...") or "no tools"
        raise ToolServerError(
            f"include: MCP server {server.label} lists no tool {', '.join(missing)}; "
            f"it lists {lists}"
        )
    return [found[name] for name in dict.fromkeys(include)]


def _spec(tool: Tool, label: str) -> ToolSpec:
    """The declaration of one listed tool; ToolServerError when it cannot be one (a name no
    chat API takes, an ``inputSchema`` that is no arguments schema)."""
    fields: dict[str, object] = {"name": tool.name, "parameters": tool.inputSchema}
    if tool.description is not None:
        fields["description"] = tool.description
    cannot = f"MCP server {label} lists tool {tool.name!r}, which cannot be offered"
    try:
        spec = ToolSpec.model_validate(fields)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise ToolServerError(f"{cannot}: {where}: {error['msg']}") from None
    for path, problem in parameters_problems(spec.parameters)[:1]:
        where = "".join(f"[{part!r}]" for part in path)
        raise ToolServerError(f"{cannot}: inputSchema{where}: {problem}")
    return spec


def result_text(result: CallToolResult) -> str:
    """A tool result as the text the model is sent (docs/tools.md#mcp-servers): its content
    blocks one per line, a text as it is, any other block as a short JSON description; the
    structured content as JSON when there is no block."""
    if not result.content and result.structuredContent is not None:
        return dumps_line(result.structuredContent)
    return "\n".join(_block_text(block) for block in result.content)


def _block_text(block: ContentBlock) -> str:
    from mcp.types import (
        AudioContent,
        ImageContent,
        ResourceLink,
        TextContent,
        TextResourceContents,
    )

    if isinstance(block, TextContent):
        return block.text
    described: dict[str, JsonValue] = {"type": block.type}
    if isinstance(block, ImageContent | AudioContent):
        described.update(mimeType=block.mimeType, bytes=_decoded_size(block.data))
    elif isinstance(block, ResourceLink):
        described.update(uri=str(block.uri), name=block.name, mimeType=block.mimeType)
    else:  # an embedded resource, the last kind
        resource = block.resource
        described.update(uri=str(resource.uri), mimeType=resource.mimeType)
        if isinstance(resource, TextResourceContents):
            described["text"] = resource.text
        else:
            described["bytes"] = _decoded_size(resource.blob)
    return dumps_line({key: value for key, value in described.items() if value is not None})


def _decoded_size(data: str) -> int | None:
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None


def _why(exc: BaseException) -> str:
    """An exception as a short reason, no traceback: the MCP error's message, else the
    exception's kind and text (an exception group's first)."""
    from mcp.shared.exceptions import McpError

    while isinstance(exc, BaseExceptionGroup):
        exc = cast("BaseExceptionGroup[BaseException]", exc).exceptions[0]
    if isinstance(exc, McpError):
        return exc.error.message
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
