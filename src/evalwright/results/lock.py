"""One run at a time per results file: an exclusive lock on a hidden file beside it
(docs/running.md#the-results-file).

The lock file ``.NAME.lock`` holds ``RUN_ID PID`` of the run holding it, so a second run can
say which run is in its way. It is removed at the end while still held; a run that locked
it re-checks that the path still names the file it locked (else it locked a file another
run had just removed, and tries again). The kernel releases the lock when its process dies,
so a killed run leaves no stale lock behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path

from evalwright.errors import ConfigError
from evalwright.evalfile.project import display_path

_ATTEMPTS = 50
_HOLDER_WAIT_SECONDS = 1.0


def lock_path(results: Path) -> Path:
    """The lock file of a results file."""
    return results.with_name(f".{results.name}.lock")


class ResultsLock:
    """An exclusive lock on a results file, held until :meth:`release`."""

    def __init__(self, results: Path, fd: int) -> None:
        self.results = results
        self.path = lock_path(results)
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, results: Path, run_id: str) -> ResultsLock:
        """Lock ``results`` for the run ``run_id``; ConfigError naming the run holding it."""
        path = lock_path(results)
        for _ in range(_ATTEMPTS):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise ConfigError(
                    f"cannot lock {display_path(results)}: {exc.strerror or exc}"
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise ConfigError(
                    f"{display_path(results)} is in use by another run ({holder}); wait for "
                    "it to finish, or write to another file"
                ) from None
            if _names(path, fd):
                lock = cls(results, fd)
                lock.describe(run_id)
                return lock
            os.close(fd)  # removed by its last holder between our open and our lock
        raise ConfigError(f"cannot lock {display_path(results)}: its lock file keeps changing")

    def describe(self, run_id: str) -> None:
        """Write ``RUN_ID PID`` into the lock file, for a run that finds it locked."""
        assert self._fd is not None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{run_id} {os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        """Remove the lock file, then let go of the lock."""
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        os.close(self._fd)
        self._fd = None


def _names(path: Path, fd: int) -> bool:
    """Whether ``path`` still names the open file ``fd``."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _holder(fd: int) -> str:
    """``run RUN_ID, pid PID`` from a lock file (its holder may not have written it yet)."""
    deadline = time.monotonic() + _HOLDER_WAIT_SECONDS
    while True:
        words = os.pread(fd, 200, 0).decode("utf-8", "replace").split()
        if len(words) == 2:
            return f"run {words[0]}, pid {words[1]}"
        if time.monotonic() > deadline:
            return "run and pid unknown"
        time.sleep(0.02)
