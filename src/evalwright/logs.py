"""Logging for ``evalwright eval -v`` (docs/running.md#logging).

Library modules log to ``logging.getLogger(__name__)`` under the ``evalwright`` logger, which
holds only a NullHandler: nothing is printed unless the application (the command line's
``-v``) adds a handler. :class:`RedactingHandler` is that handler: each formatted line passes
through every running run's redactor (:func:`evalwright.redact.redacting`) and is
escaped for a terminal.

A run names the case being worked on (:func:`set_context`); every line logged while that
case is asked or judged starts with it (:func:`context`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Generator
from contextvars import ContextVar

from evalwright.errors import printable
from evalwright.redact import redact_running

ROOT = "evalwright"
logging.getLogger(ROOT).addHandler(logging.NullHandler())

Redact = Callable[[str], str]
_CONTEXT: ContextVar[str] = ContextVar("evalwright_log_context", default="")


def set_context(label: str) -> None:
    """Name what the current task works on (``case on target``) in the lines it logs."""
    _CONTEXT.set(label)


def context() -> str:
    """``label: `` as set by :func:`set_context` in this task, else nothing."""
    label = _CONTEXT.get()
    return f"{label}: " if label else ""


class RedactingHandler(logging.Handler):
    """Writes each record as one line through ``write``: redacted by ``redact`` and by every
    running run's redactor, then escaped so no control character reaches a terminal."""

    def __init__(self, write: Callable[[str], None], redact: Redact | None = None) -> None:
        super().__init__()
        self.write = write
        self.redact = redact
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        """Format, redact, escape and write one record."""
        try:
            line = self.format(record)
            if self.redact is not None:
                line = self.redact(line)
            self.write(printable(redact_running(line), one_line=True))
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def verbose(
    level: int, write: Callable[[str], None], redact: Redact | None = None
) -> Generator[None]:
    """Show evalwright's records of ``level`` and above through a :class:`RedactingHandler`
    while the block runs; the logger is left as it was."""
    logger = logging.getLogger(ROOT)
    handler = RedactingHandler(write, redact)
    previous = logger.level
    logger.setLevel(level)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)


def level_of(verbosity: int) -> int:
    """``-v`` shows INFO and above, ``-vv`` DEBUG too."""
    return logging.DEBUG if verbosity >= 2 else logging.INFO
