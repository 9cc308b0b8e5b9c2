"""Run a command the careful way: no shell, its own process group, and nothing left behind.

A timeout (or the caller being cancelled, as the retry policy's timeout does) kills the
whole process group, so a command's children stop with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

STDERR_TAIL = 2000


@dataclass(frozen=True, slots=True)
class Finished:
    """How a command ended."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool = False

    def stderr_tail(self, limit: int = STDERR_TAIL) -> str:
        """The last ``limit`` characters of stderr."""
        return self.stderr.decode("utf-8", errors="replace")[-limit:].strip()


async def run_command(
    argv: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    timeout: float | None = None,
) -> Finished:
    """Run ``argv``; raise OSError when it cannot start."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        return await _communicate(process, stdin, timeout)
    except BaseException:
        kill_group(process)
        with contextlib.suppress(ProcessLookupError):
            await asyncio.shield(process.wait())
        raise


async def _communicate(
    process: asyncio.subprocess.Process, stdin: bytes | None, timeout: float | None
) -> Finished:
    assert process.stdout is not None
    assert process.stderr is not None
    reads = (
        asyncio.ensure_future(process.stdout.read()),
        asyncio.ensure_future(process.stderr.read()),
    )
    if stdin is not None and process.stdin is not None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            process.stdin.write(stdin)
            await process.stdin.drain()
        process.stdin.close()
    timed_out = False
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        timed_out = True
        kill_group(process)
        await process.wait()
    out, err = await asyncio.gather(*reads)
    return Finished(process.returncode, out, err, timed_out)


def kill_group(process: asyncio.subprocess.Process) -> None:
    """Kill the process and everything it started."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
