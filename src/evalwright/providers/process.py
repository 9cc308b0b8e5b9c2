"""Run a command the careful way: no shell, its own process group, nothing left behind, and
no secret in its environment unless asked for. The one runner of every command evalwright
starts: ``cli`` targets, Codex, VS Code and code evaluators.

A timeout (or the caller being cancelled, as the retry policy's timeout does) kills the
whole process group, so a command's children stop with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from evalwright import logs
from evalwright.redact import after_cut, clip
from evalwright.secrets import MIN_API_KEY, is_secret_name

logger = logging.getLogger(__name__)

STDERR_TAIL = 2000
STDERR_KEPT = 64 * 1024
"""Bytes of stderr kept (only its tail is ever shown)."""
DEFAULT_MAX_STDOUT = 16 * 1024 * 1024


class OutputTooLarge(Exception):
    """The command printed more than its limit on stdout; it was killed."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the command printed more than {limit} bytes on stdout")
        self.limit = limit


# Linux refuses to start a program with an environment string ("NAME=value" and its NUL)
# longer than this (MAX_ARG_STRLEN, 32 pages of 4 KiB).
ENV_STRING_LIMIT = 128 * 1024


@dataclass(frozen=True, slots=True)
class ChildEnvironment:
    """The environment of the commands evalwright starts
    (docs/targets.md#credentials-and-redaction): the process's own, less every secret-named
    variable and every variable holding a target's API key. ``pass_env`` lets named ones
    through, from the process environment or else the project's ``.env``; nothing else of
    ``.env`` is exported."""

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
    stderr_cut: bool = False
    """Whether ``stderr`` is the last :data:`STDERR_KEPT` bytes of a longer stderr."""

    def stderr_text(self) -> str:
        """Stderr as text; when its start was cut off, less whatever there could be the end
        of a secret (the cut may have been made on a Ray node, which has no redactor)."""
        text = self.stderr.decode("utf-8", errors="replace")
        return after_cut(text) if self.stderr_cut else text

    def stderr_tail(self, limit: int = STDERR_TAIL) -> str:
        """The last ``limit`` characters of stderr, redacted before they are cut."""
        return clip(self.stderr_text(), limit, end=True).strip()


async def run_command(
    argv: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    timeout: float | None = None,
    max_stdout: int = DEFAULT_MAX_STDOUT,
    on_line: Callable[[bytes], None] | None = None,
) -> Finished:
    """Run ``argv``; raise OSError when it cannot start, and :class:`OutputTooLarge` (the
    command killed) when it prints more than ``max_stdout`` bytes.

    With ``on_line``, stdout is handed over line by line as it arrives (each line with its
    newline) instead of being kept: lines past ``max_stdout`` are not handed over.
    """
    started = time.perf_counter()
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
        finished = await _communicate(process, stdin, timeout, _Capped(max_stdout, on_line))
    except BaseException as exc:
        kill_group(process)
        with contextlib.suppress(ProcessLookupError):
            await asyncio.shield(process.wait())
        _log_command(argv[0], f"stopped ({type(exc).__name__})", started)
        raise
    ended = "timed out" if finished.timed_out else f"exit status {finished.returncode}"
    outcome = f"{ended}, {len(finished.stdout)} B on stdout, {len(finished.stderr)} B on stderr"
    _log_command(argv[0], outcome, started)
    return finished


def _log_command(program: str, outcome: str, started: float) -> None:
    """One DEBUG line per command: the program alone (its arguments may hold the prompt)."""
    elapsed = (time.perf_counter() - started) * 1000
    logger.debug("%srun %s: %s (%.0f ms)", logs.context(), program, outcome, elapsed)


async def _communicate(
    process: asyncio.subprocess.Process,
    stdin: bytes | None,
    timeout: float | None,
    stdout: _Capped,
) -> Finished:
    assert process.stdout is not None
    assert process.stderr is not None
    # The pipes are read to their end even after a kill: the process only counts as exited
    # once they are closed.
    reads = (
        asyncio.ensure_future(stdout.read(process.stdout)),
        asyncio.ensure_future(read_tail(process.stderr, STDERR_KEPT)),
    )
    if stdin is not None and process.stdin is not None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            process.stdin.write(stdin)
            await process.stdin.drain()
        process.stdin.close()
    exited = asyncio.ensure_future(process.wait())
    overflow = asyncio.ensure_future(stdout.over.wait())
    try:
        done, _ = await asyncio.wait(
            [exited, overflow], timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        overflow.cancel()
    timed_out = not done
    if exited not in done:
        kill_group(process)
        await exited
    # Shielded: a cancelled caller must leave the pipes being read (see above).
    out, (err, cut) = await asyncio.gather(asyncio.shield(reads[0]), asyncio.shield(reads[1]))
    if stdout.failed is not None:
        raise stdout.failed
    if stdout.over.is_set():
        raise OutputTooLarge(stdout.limit)
    return Finished(process.returncode, out, err, timed_out, stderr_cut=cut)


class _Capped:
    """Reads a stream to its end, keeping at most ``limit`` bytes (or handing them line by
    line to ``on_line``); ``over`` is set, and nothing more kept, once it passes the limit."""

    def __init__(self, limit: int, on_line: Callable[[bytes], None] | None = None) -> None:
        self.limit = limit
        self.on_line = on_line
        self.over = asyncio.Event()
        self.total = 0
        self.failed: Exception | None = None

    async def read(self, stream: asyncio.StreamReader) -> bytes:
        chunks: list[bytes] = []
        pending = bytearray()  # the line being read, in line mode
        while chunk := await stream.read(1 << 16):
            if self.over.is_set():
                continue  # read on to the end, so the process can exit
            if self.on_line is None:
                self._count(len(chunk))
                chunks.append(chunk)
                continue
            pending += chunk
            start = 0
            while (end := pending.find(b"\n", start)) >= 0:
                self._line(bytes(pending[start : end + 1]))
                start = end + 1
            del pending[:start]
            if self.total + len(pending) > self.limit:
                self.over.set()  # a line longer than what is left
        if pending and not self.over.is_set():
            self._line(bytes(pending))
        return b"" if self.over.is_set() else b"".join(chunks)

    def _line(self, line: bytes) -> None:
        assert self.on_line is not None
        if not self._count(len(line)):
            return
        try:
            self.on_line(line)
        except Exception as exc:  # stop the command, then raise it to the caller
            self.failed = exc
            self.over.set()

    def _count(self, size: int) -> bool:
        """Count ``size`` more bytes; whether they are within the limit."""
        if self.over.is_set():
            return False
        self.total += size
        if self.total > self.limit:
            self.over.set()
        return not self.over.is_set()


async def read_tail(stream: asyncio.StreamReader, keep: int) -> tuple[bytes, bool]:
    """Everything the stream gives, of which only the last ``keep`` bytes are kept; and
    whether any were not."""
    tail = b""
    cut = False
    while chunk := await stream.read(1 << 16):
        tail += chunk
        if len(tail) > keep:
            tail, cut = tail[-keep:], True
    return tail, cut


def kill_group(process: asyncio.subprocess.Process) -> None:
    """Kill the process and everything it started."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
