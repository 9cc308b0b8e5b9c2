"""``python -m evalwright`` and the ``evalwright`` command's entry point."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType


def _interrupted_early(signum: int, frame: FrameType | None) -> None:  # noqa: ARG001
    # Nothing has started yet, so there is nothing to clean up: leave at once, quietly.
    # (An exception raised inside an extension module's import, pydantic-core's among them,
    # can abort the interpreter instead of unwinding.)
    os.write(2, b"evalwright: interrupted\n")
    os._exit(130)


_interrupted_early.evalwright_early = True  # type: ignore[attr-defined]


def console() -> None:
    """Run the command line and exit with its code.

    Ctrl-C exits 130 without a traceback from the first moment: while the command line is
    imported, by leaving at once; once the command's modules are imported, through
    :func:`evalwright.cli.main`.
    """
    signal.signal(signal.SIGINT, _interrupted_early)
    from evalwright.cli import INTERRUPTED, main

    code = main()
    if code == INTERRUPTED:
        # The interpreter would turn an interrupt caught in some places into a death by
        # SIGINT at exit; the exit status stays 130 instead.
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    console()
