"""A server run on its own event loop in a daemon thread, for synchronous tests
(:meth:`evalwright.testing.FakeServer.in_thread`)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Protocol


class Served(Protocol):
    """What :class:`LoopThread` runs: a server started and stopped on its loop."""

    async def start(self) -> None:
        """Listen."""
        ...

    async def stop(self) -> None:
        """Close."""
        ...


class LoopThread:
    """Runs a server on a fresh event loop in a daemon thread."""

    def __init__(self, server: Served) -> None:
        self._server = server
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, name="evalwright-fake-server", daemon=True
        )

    def start(self) -> None:
        """Start the thread and wait until the server listens (its error, if it fails)."""
        self._thread.start()
        if not self._ready.wait(timeout=30):
            raise RuntimeError("the fake server thread did not start within 30 s")
        if self._error is not None:
            raise self._error

    def stop(self) -> None:
        """Stop the server and wait for the thread to end."""
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop may have just finished
                loop.call_soon_threadsafe(stopping.set)
        self._thread.join(timeout=30)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        try:
            await self._server.start()
        except BaseException as exc:
            self._error = exc
            return
        finally:
            self._ready.set()
        try:
            await self._stopping.wait()
        finally:
            await self._server.stop()
