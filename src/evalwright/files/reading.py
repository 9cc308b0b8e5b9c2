"""Reading a user's file safely: regular files only, and the size limit checked first.

A FIFO blocks a plain ``open`` forever and ``/dev/zero`` never ends, so every file named by a
user (eval files, config, targets, ``.env``, attachments, judge templates) is opened without
blocking, checked to be a regular file, and read no further than its limit
(docs/eval-files.md#file-references).
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

MAX_EVAL_FILE_BYTES = 64 * 1024 * 1024
"""The largest YAML eval, config or targets file read (they are read whole)."""
MAX_JSONL_LINE_BYTES = 16 * 1024 * 1024
"""The longest line of a JSON Lines eval file (the file itself streams)."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class UnreadableFile(Exception):
    """A file that cannot be read; the message says why, for the user."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message
        """Why, without "cannot read the file" (for a message that says it its own way)."""


class NotRegularFile(UnreadableFile):
    """The path names something other than a regular file (a FIFO, a device, ...)."""


class FileTooLarge(UnreadableFile):
    """The file is larger than the limit that applies to it."""

    def __init__(self, size: int, limit: int, setting: str | None = None) -> None:
        where = f" ({setting} is {limit})" if setting else f" (the limit is {limit})"
        super().__init__(f"file is too large: {size} bytes{where}")
        self.size = size
        self.limit = limit


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words: ``a FIFO``, ``a directory``, ..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def _check_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise NotRegularFile(f"not a regular file: it is {file_kind(mode)}")


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (symlinks followed) is a regular file; never blocks."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a regular file for reading; raise :class:`UnreadableFile` for anything else.

    The path is checked before it is opened (opening a device can have effects of its own)
    and the open file again (the path may have changed in between).
    """
    try:
        _check_regular(os.stat(path).st_mode)
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        descriptor = os.open(path, flags)
    except ValueError as exc:  # a NUL in the path
        raise UnreadableFile(f"cannot read the file: {exc}", str(exc)) from None
    except OSError as exc:
        reason = str(exc.strerror or exc)
        raise UnreadableFile(f"cannot read the file: {reason}", reason) from None
    try:
        _check_regular(os.fstat(descriptor).st_mode)
    except BaseException:
        os.close(descriptor)
        raise
    return os.fdopen(descriptor, "rb")


def read_limited(path: str | os.PathLike[str], limit: int, setting: str | None = None) -> bytes:
    """A regular file's bytes; :class:`FileTooLarge` beyond ``limit`` (checked before reading,
    and again while reading, in case the file grows)."""
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise FileTooLarge(size, limit, setting)
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise UnreadableFile(f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise FileTooLarge(len(data), limit, setting)
    return data
