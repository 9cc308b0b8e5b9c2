"""One run at a time per results file: an exclusive lock on a hidden file beside it
(docs/running.md#the-results-file).

The lock file ``.NAME.lock`` holds ``RUN_ID PID`` of the run holding it, so a second run can
say which run is in its way. It is removed at the end while still held; a run that locked
it re-checks that the path still names the file it locked (else it locked a file another
run had just removed, and tries again). The kernel releases the lock when its process dies,
so a killed run leaves no stale lock behind.

Where there is no ``fcntl`` (Windows) the lock is ``msvcrt``'s on one byte far past what the
file holds, since Windows locks a byte range against reading too; and as Windows removes no
open file, the file is removed after the lock is let go, unless another run opened it since.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from evalwright.errors import ConfigError
from evalwright.files.project import display_path

_ATTEMPTS = 50
_HOLDER_WAIT_SECONDS = 1.0
_WINDOWS_LOCKED_BYTE = 1 << 20
"""Where msvcrt's lock is taken: past ``RUN_ID PID``, which a waiting run reads."""
OPEN_FLAGS: int = (
    getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOINHERIT", 0) | getattr(os, "O_BINARY", 0)
)
"""Open flags of the files a run holds: not inherited by the commands it starts (each
platform's spelling) and, on Windows, bytes as they are."""


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
                fd = os.open(path, os.O_RDWR | os.O_CREAT | OPEN_FLAGS, 0o644)
            except OSError as exc:
                raise ConfigError(
                    f"cannot lock {display_path(results)}: {exc.strerror or exc}"
                ) from None
            try:
                locked = _try_lock(fd, results)
            except ConfigError:  # no way to lock here: nobody else holds it either
                os.close(fd)
                with contextlib.suppress(OSError):
                    os.unlink(path)
                raise
            if not locked:
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
        os.lseek(self._fd, 0, os.SEEK_SET)
        os.write(self._fd, f"{run_id} {os.getpid()}\n".encode())

    def release(self) -> None:
        """Remove the lock file, then let go of the lock (on Windows: the other way round)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        except PermissionError:  # Windows removes no open file
            _unlock(fd)
            os.close(fd)
            # Another run that opened it meanwhile holds it now: it stays.
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            return
        os.close(fd)


def _try_lock(fd: int, results: Path) -> bool:
    """Lock ``fd`` without waiting: ``False`` when another run holds it."""
    try:
        import fcntl
    except ImportError:
        return _try_lock_msvcrt(fd, results)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _try_lock_msvcrt(fd: int, results: Path) -> bool:
    try:
        import msvcrt
    except ImportError:
        raise ConfigError(
            f"cannot lock {display_path(results)}: this platform has neither fcntl nor msvcrt"
        ) from None
    os.lseek(fd, _WINDOWS_LOCKED_BYTE, os.SEEK_SET)
    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
    except OSError:  # held by another run
        return False
    return True


def _unlock(fd: int) -> None:
    """Let go of msvcrt's lock before closing (Windows may otherwise keep it a while)."""
    with contextlib.suppress(ImportError, OSError):
        import msvcrt

        os.lseek(fd, _WINDOWS_LOCKED_BYTE, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]


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
        os.lseek(fd, 0, os.SEEK_SET)
        words = os.read(fd, 200).decode("utf-8", "replace").split()
        if len(words) == 2:
            return f"run {words[0]}, pid {words[1]}"
        if time.monotonic() > deadline:
            return "run and pid unknown"
        time.sleep(0.02)
