"""Run a command and measure it as a process of its own: exit code, wall and CPU seconds, peak
RSS. See bench/README.md."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# Linux keeps a process's peak RSS across exec, and a child starts from its parent's: timed
# from this (large) process, every command would report at least this process's peak. So a
# small launcher spawns the command and reports what its own wait4 says about it.
_LAUNCHER = """import json, os, sys, time
started = time.monotonic()
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ,
                     file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
_, status, usage = os.wait4(pid, 0)
print(json.dumps({"started": started, "wall": time.monotonic() - started,
                  "code": os.waitstatus_to_exitcode(status), "maxrss": usage.ru_maxrss,
                  "cpu": usage.ru_utime + usage.ru_stime}))
"""


@dataclass(frozen=True)
class Measured:
    """One command's exit code, when it started (``time.monotonic``), wall and CPU seconds,
    peak RSS (KiB) and the end of its stderr."""

    code: int
    started: float
    wall: float
    cpu: float
    rss_kib: int
    stderr_tail: str


def run_measured(argv: list[str], cwd: Path, env: dict[str, str]) -> Measured:
    """Run a command through the launcher and measure it."""
    with tempfile.TemporaryFile() as stderr:
        launched = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, *argv],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            check=True,
        )
        stderr.seek(0)
        tail = stderr.read()[-2000:].decode("utf-8", errors="replace")
    got = json.loads(launched.stdout)
    return Measured(got["code"], got["started"], got["wall"], got["cpu"], got["maxrss"], tail)
