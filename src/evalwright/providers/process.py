"""Run a command the careful way: no shell, its own process group, nothing left behind, and
no secret in its environment unless asked for.

A timeout (or the caller being cancelled, as the retry policy's timeout does) kills the
whole process group, so a command's children stop with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evalwright.secrets import MIN_API_KEY, is_secret_name

STDERR_TAIL = 2000
# Linux refuses to start a program with an environment string ("NAME=value" and its NUL)
# longer than this (MAX_ARG_STRLEN, 32 pages of 4 KiB).
ENV_STRING_LIMIT = 128 * 1024


@dataclass(frozen=True, slots=True)
class ChildEnvironment:
    """The environment of the commands evalwright starts (targets.md, "Credentials and
    redaction"): the process's own, less every secret-named variable and every variable
    holding a target's API key. ``pass_env`` lets named ones through, from the process
    environment or else the project's ``.env``; nothing else of ``.env`` is exported."""

    environ: Mapping[str, str]
    dotenv: Mapping[str, str] = field(default_factory=dict[str, str])
    api_keys: frozenset[str] = frozenset()

    @classmethod
    def current(cls) -> ChildEnvironment:
        """The process environment, with no API keys known beyond the secret names."""
        return cls(os.environ)

    def build(
        self, pass_env: Sequence[str] = (), extra: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """The environment for one command; ``extra`` values that cannot be passed (too
        long for the system, or holding a NUL) are left unset."""
        keys = {key for key in self.api_keys if len(key) >= MIN_API_KEY}
        env = {
            name: value
            for name, value in self.environ.items()
            if not is_secret_name(name) and value not in keys
        }
        for name in pass_env:
            value = self.environ.get(name, self.dotenv.get(name))
            if value is not None:
                env[name] = value
        for name, value in (extra or {}).items():
            if fits_environment(name, value):
                env[name] = value
        return env


def fits_environment(name: str, value: str) -> bool:
    """Whether ``NAME=value`` can be given to a command: no NUL, encodable the way Python
    passes environments, and within the system's limit."""
    try:
        size = len(name) + len(value.encode("utf-8", "surrogateescape")) + 2
    except UnicodeEncodeError:
        return False
    return "\0" not in value and size <= ENV_STRING_LIMIT


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
