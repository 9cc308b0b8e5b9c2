"""``python -m evalwright`` and the ``evalwright`` command's entry point."""

from __future__ import annotations

import contextlib
import gc
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
    # A short-lived process of many short-lived objects: the cycle collector's defaults
    # (700, 10) had it walk the imported modules' objects again and again.
    gc.set_threshold(10_000, 50)
    from evalwright.cli import INTERRUPTED, main

    code = main()
    # The process ends here: the full collection the interpreter runs at exit (tens of
    # milliseconds) would only walk objects about to be freed anyway.
    gc.freeze()
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
