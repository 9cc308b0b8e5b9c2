"""Pausing Python's cycle collector while a file is turned into data and cases.

Loading allocates many containers (one per YAML value, several pydantic models and segments
per case) and none of them form cycles, yet every allocation counts toward a collection, and
each full collection walks everything already loaded: with it running, a 2,000-case file took
about half as long again to load. The collector is paused only around our own work, never
while a caller's code runs (docs/eval-files.md).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Generator
from contextlib import contextmanager
from typing import TypeVar

_T = TypeVar("_T")


@contextmanager
def collector_paused() -> Generator[None, None, None]:
    """Pause the cycle collector inside the block; restore its previous state after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def without_collector(work: Callable[[], _T]) -> _T:
    """``work()`` with the cycle collector paused."""
    with collector_paused():
        return work()
