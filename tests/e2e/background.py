"""``evalwright`` started in the background (to interrupt it, or to run two at once), and
polling helpers with deadlines instead of fixed sleeps."""

from __future__ import annotations

import os
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


# A process started straight from this one would count this one's peak as its own: the kernel
# carries the memory a process had before exec (here this test process's, shared through
# vfork) into its ``ru_maxrss``. A small launcher starts the run and reports the run's alone.
_LAUNCHER = """
import os, subprocess, sys
run = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(run.pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(e2e: E2E, *args: str | os.PathLike[str], timeout: float = 300) -> Measured:
    """``python -m evalwright ARGS`` to its end, with its own peak memory (read by a launcher
    with ``wait4``; Linux counts it in kilobytes)."""
    with tempfile.TemporaryDirectory() as scratch:
        peak = Path(scratch) / "peak"
        command = [sys.executable, "-c", _LAUNCHER, str(peak), sys.executable, "-m", "evalwright"]
        completed = subprocess.run(
            [*command, *[str(a) for a in args]],
            cwd=e2e.root,
            env=e2e.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert peak.exists(), completed.stderr
        return Measured(completed.returncode, completed.stderr, int(peak.read_text()) * 1024)


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
