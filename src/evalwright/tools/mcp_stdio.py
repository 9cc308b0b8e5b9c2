"""An MCP server over stdio (docs/tools.md#mcp-servers): a subprocess started the careful way,
its stdin and stdout bridged to the MCP SDK's message streams, its stderr kept in the log.

evalwright starts the process itself rather than through the SDK's ``stdio_client``: so the
server gets exactly the environment :class:`ChildEnvironment` builds, and at the end its whole
process group is killed, whatever it started included.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import ValidationError

from evalwright.providers.process import DEFAULT_MAX_STDOUT, STDERR_TAIL, kill_group
from evalwright.redact import clip

if TYPE_CHECKING:
    from anyio import CancelScope
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp.shared.message import SessionMessage

    ReadStream = MemoryObjectReceiveStream[SessionMessage | Exception]
    WriteStream = MemoryObjectSendStream[SessionMessage]

logger = logging.getLogger(__name__)

CLOSE_GRACE = 2.0
"""Seconds a server has to exit once its stdin is closed, before its group is killed."""
MAX_MESSAGE = DEFAULT_MAX_STDOUT
"""The longest line (one JSON-RPC message) read from a server; a longer one ends the session."""
LOGGED_LINE = 1000
"""Characters of one stderr line logged."""


class StdioServer:
    """One stdio server's process, from :meth:`open` to the end of the exit stack it is
    opened in."""

    def __init__(
        self, command: Sequence[str], cwd: str | None, env: dict[str, str], label: str
    ) -> None:
        self.command = list(command)
        self.cwd = cwd
        self.env = env
        self.label = label
        self.process: asyncio.subprocess.Process | None = None
        self.stderr_tail = ""
        """The end of what the server wrote on stderr (:data:`STDERR_TAIL` characters)."""
        self._stdout_done = asyncio.Event()
        self._stderr_done = asyncio.Event()

    async def open(self, stack: contextlib.AsyncExitStack) -> tuple[ReadStream, WriteStream]:
        """Start the server (OSError when it cannot be) and return the streams a
        ``ClientSession`` reads and writes; leaving ``stack`` stops it."""
        import anyio
        from mcp.shared.message import SessionMessage

        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            cwd=self.cwd,
            env=self.env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            limit=MAX_MESSAGE,
        )
        group = await stack.enter_async_context(anyio.create_task_group())
        # Runs before the task group is left: the pumps end once the process is gone.
        stack.push_async_callback(self._stop, group.cancel_scope)
        to_session, read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write, from_session = anyio.create_memory_object_stream[SessionMessage](0)
        group.start_soon(self._read_stdout, to_session)
        group.start_soon(self._write_stdin, from_session)
        group.start_soon(self._read_stderr)
        return read, write

    async def exit_status(self) -> int | None:
        """The server's exit status once it has exited (waiting a little for that, and for
        the rest of its stderr); None while it runs."""
        await self._ended()
        return self.returncode()

    def returncode(self) -> int | None:
        """The server's exit status, None while it runs (or was never started)."""
        return self.process.returncode if self.process is not None else None

    def kill(self) -> None:
        """Kill the server's process group at once (while it has not been waited for)."""
        if self.process is not None and self.process.returncode is None:
            kill_group(self.process)

    async def _ended(self) -> None:
        """Wait (at most :data:`CLOSE_GRACE`) for the process to exit and its output pipes
        to be read to their end: only then is it done with."""
        assert self.process is not None
        ends = (self.process.wait(), self._stdout_done.wait(), self._stderr_done.wait())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*ends), CLOSE_GRACE)

    async def _stop(self, pumps: CancelScope) -> None:
        """Close the server's stdin (the MCP way to ask a stdio server to exit), kill its
        group, and stop the pumps."""
        process = self.process
        assert process is not None
        assert process.stdin is not None
        process.stdin.close()
        await self._ended()
        # Killed even after a clean exit, for what it started: the group's id stays taken
        # while any of its processes lives, so this reaches only those.
        kill_group(process)
        await self._ended()
        pumps.cancel()

    async def _read_stdout(self, sink: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        assert self.process is not None
        assert self.process.stdout is not None
        stdout = self.process.stdout
        try:
            async with sink:
                await self._forward(stdout, sink)
            # The session has ended (or cannot go on): read on to the end, unseen.
            while await stdout.read(1 << 16):
                pass
        finally:
            self._stdout_done.set()

    async def _forward(
        self, stdout: asyncio.StreamReader, sink: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        """Hand each JSON-RPC message the server writes to the session, until the server's
        stdout or the session ends."""
        import anyio
        from mcp.shared.message import SessionMessage
        from mcp.types import JSONRPCMessage

        while True:
            try:
                line = await stdout.readline()
            except ValueError:  # longer than MAX_MESSAGE: the session cannot go on
                logger.warning(
                    "MCP server %s sent a message over %d bytes", self.label, MAX_MESSAGE
                )
                return
            if not line:
                return
            if not line.strip():
                continue
            try:
                message = JSONRPCMessage.model_validate_json(line)
            except ValidationError:
                text = clip(line.decode("utf-8", "replace").strip(), LOGGED_LINE)
                logger.debug("MCP server %s: stdout, not JSON-RPC: %s", self.label, text)
                continue
            try:
                await sink.send(SessionMessage(message))
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return

    async def _write_stdin(self, source: MemoryObjectReceiveStream[SessionMessage]) -> None:
        assert self.process is not None
        assert self.process.stdin is not None
        stdin = self.process.stdin
        async with source:
            async for message in source:
                line = message.message.model_dump_json(by_alias=True, exclude_none=True) + "\n"
                try:
                    stdin.write(line.encode("utf-8"))
                    await stdin.drain()
                except (BrokenPipeError, ConnectionResetError):
                    return  # the server is gone: closing ``source`` fails the next send

    async def _read_stderr(self) -> None:
        assert self.process is not None
        assert self.process.stderr is not None
        stderr = self.process.stderr
        pending = b""
        try:
            while chunk := await stderr.read(1 << 16):
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    self._stderr_line(line)
                if len(pending) > STDERR_TAIL:
                    self._stderr_line(pending)
                    pending = b""
            if pending:
                self._stderr_line(pending)
        finally:
            self._stderr_done.set()

    def _stderr_line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").rstrip("\r")
        logger.debug("MCP server %s: stderr: %s", self.label, clip(text, LOGGED_LINE))
        self.stderr_tail = (self.stderr_tail + text + "\n")[-STDERR_TAIL:]


def command_label(command: Sequence[str]) -> str:
    """How messages name a stdio server: its command line, shortened."""
    return clip(shlex.join(command), 120, marker="...")
