"""``evalwright`` started in the background (to interrupt it, or to run two at once), and
polling helpers with deadlines instead of fixed sleeps."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from evalwright.testing import ReceivedRequest
from tests.e2e.harness import E2E

POLL_SECONDS = 0.02


def start_eval(e2e: E2E, *args: str | os.PathLike[str]) -> subprocess.Popen[str]:
    """``python -m evalwright ARGS`` in the project root, as :meth:`E2E.run` runs it."""
    return subprocess.Popen(
        [sys.executable, "-m", "evalwright", *[str(a) for a in args]],
        cwd=e2e.root,
        env=e2e.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@dataclass(frozen=True)
class Measured:
    """How a run ended, and the most memory it held at once."""

    code: int
    err: str
    peak_rss: int
    """Its peak resident set size in bytes, as the kernel counted it for that process."""


def run_measured(e2e: E2E, *args: str | os.PathLike[str], timeout: float = 300) -> Measured:
    """``python -m evalwright ARGS`` to its end, reaped with ``wait4`` for its own peak
    memory (not that of other processes this one started)."""
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "evalwright", *[str(a) for a in args]],
            cwd=e2e.root,
            env=e2e.env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        reaped: list[tuple[int, resource.struct_rusage]] = []

        def ended() -> bool:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                reaped.append((status, usage))
            return bool(pid)

        try:
            wait_until(ended, timeout=timeout, what="the run to end")
        finally:
            if not reaped:
                process.kill()
                reaped.append(os.wait4(process.pid, 0)[1:])
            process.returncode = os.waitstatus_to_exitcode(reaped[0][0])
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    # Linux counts ru_maxrss in kilobytes.
    return Measured(process.returncode, text, reaped[0][1].ru_maxrss * 1024)


def wait_until(condition: Callable[[], bool], *, timeout: float, what: str) -> None:
    """Poll ``condition`` every few milliseconds until it holds; fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(POLL_SECONDS)


def complete_lines(path: Path) -> list[str]:
    """The newline-terminated lines of a file (without their newlines); [] when missing."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return text.split("\n")[:-1]


def wait_for_rows(
    path: Path, count: int, process: subprocess.Popen[str], *, timeout: float = 20
) -> list[str]:
    """Wait until ``path`` holds at least ``count`` complete lines; return them."""

    def ready() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"the run ended early with exit code {process.returncode}")
        return len(complete_lines(path)) >= count

    wait_until(ready, timeout=timeout, what=f"{count} rows in {path.name}")
    return complete_lines(path)


def max_in_flight(requests: Iterable[ReceivedRequest], latency_seconds: float) -> int:
    """The most requests the server was busy with at once, each taking ``latency_seconds``.

    A request counts as in flight from its arrival until its answer left the server; a small
    margin is taken off that span so timer jitter never overstates the overlap.
    """
    arrivals = sorted(r.received_at for r in requests)
    span = latency_seconds * 0.8
    return max(
        (sum(1 for other in arrivals if other <= at < other + span) for at in arrivals),
        default=0,
    )


def interrupt_after_rows(
    path: Path,
    count: int,
    process: subprocess.Popen[str],
    *,
    timeout: float = 20,
    stop_within: float = 30,
) -> str:
    """Ctrl-C ``process`` once ``path`` holds ``count`` rows; its stderr once it ended, which
    must be within ``stop_within`` s (it is killed if it outlives that or the test fails)."""
    try:
        wait_for_rows(path, count, process, timeout=timeout)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=stop_within)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return err
