"""The cycle collector's thresholds while runs go: raised while any run of the process goes,
and the process's own setting given back when the last one ends, however runs overlap
(threads, ``run_async`` tasks) and however each ends."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Generator

RUN_GC_THRESHOLDS = (10_000, 50)
"""The cycle collector's first two thresholds during a run (Python's defaults: 700, 10). A
case makes thousands of short-lived objects that reference counting frees anyway; at the
defaults the collector ran every dozen cases and its middle generation every hundred or so,
about a sixth of a case's CPU in all."""


class _Runs:
    """The runs going in the process, and the setting the first of them found."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.going = 0
        self.saved = gc.get_threshold()


_runs = _Runs()


@contextlib.contextmanager
def fewer_collections() -> Generator[None]:
    """Collect cycles less often while the run goes. The first of overlapping runs keeps the
    process's setting and the last to end restores it: each restoring what it found would
    leave a run's setting behind when runs end in another order than they began."""
    with _runs.lock:
        if _runs.going == 0:
            _runs.saved = old = gc.get_threshold()
            young, middle = RUN_GC_THRESHOLDS
            gc.set_threshold(max(old[0], young), max(old[1], middle), old[2])
        _runs.going += 1
    try:
        yield
    finally:
        with _runs.lock:
            _runs.going -= 1
            if _runs.going == 0:
                gc.set_threshold(*_runs.saved)
