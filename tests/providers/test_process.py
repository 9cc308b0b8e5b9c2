"""The one command runner: stdout handed over line by line (Codex's event stream), with the
output limit and the kill of the process group kept."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from evalwright.providers.process import OutputTooLarge, run_command

PRINT_LINES = "import sys; sys.stdout.write('one\\ntwo\\r\\n\\nlast'); sys.stdout.flush()"


def _collect(code: str, stdin: bytes | None = None) -> tuple[list[bytes], bytes]:
    lines: list[bytes] = []

    async def go() -> bytes:
        command = [sys.executable, "-c", code]
        finished = await run_command(command, stdin=stdin, on_line=lines.append)
        return finished.stdout

    return lines, asyncio.run(go())


def test_each_line_is_handed_over_with_its_newline_and_the_last_one_without() -> None:
    lines, stdout = _collect(PRINT_LINES)
    assert lines == [b"one\n", b"two\r\n", b"\n", b"last"]
    assert stdout == b""  # handed over, not kept


def test_stdin_reaches_a_command_read_line_by_line() -> None:
    code = "import sys; print(sys.stdin.read().upper())"
    lines, _ = _collect(code, stdin=b"ping")
    assert lines == [b"PING\n"]


def test_lines_past_the_limit_are_not_handed_over_and_the_command_is_killed() -> None:
    # Prints forever: only the kill of its group ends it.
    code = "import sys\nwhile True: sys.stdout.write('x' * 9 + '\\n')"
    lines: list[bytes] = []

    async def go() -> None:
        await run_command([sys.executable, "-c", code], max_stdout=45, on_line=lines.append)

    started = time.monotonic()
    with pytest.raises(OutputTooLarge):
        asyncio.run(go())
    assert time.monotonic() - started < 20
    assert lines == [b"x" * 9 + b"\n"] * 4  # 40 bytes; the fifth line passes 45


def test_a_line_longer_than_the_limit_is_too_large_before_it_ends() -> None:
    code = "import sys, time\nsys.stdout.write('y' * 100000); sys.stdout.flush(); time.sleep(60)"
    lines: list[bytes] = []

    async def go() -> None:
        await run_command([sys.executable, "-c", code], max_stdout=1000, on_line=lines.append)

    started = time.monotonic()
    with pytest.raises(OutputTooLarge):
        asyncio.run(go())
    assert time.monotonic() - started < 20
    assert lines == []


def test_a_failing_line_handler_stops_the_command_and_its_error_is_raised() -> None:
    code = "import time\nprint('first', flush=True)\ntime.sleep(60)"

    def refuse(line: bytes) -> None:
        raise OSError(f"cannot log {line!r}")

    async def go() -> None:
        await run_command([sys.executable, "-c", code], on_line=refuse)

    started = time.monotonic()
    with pytest.raises(OSError, match="cannot log b'first\\\\n'"):
        asyncio.run(go())
    assert time.monotonic() - started < 20
