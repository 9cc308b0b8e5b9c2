"""The command line's option values: each parsed and checked, with a message naming what was
expected (argparse prints it as a usage error, exit 2)."""

from __future__ import annotations

import argparse

from evalwright.limits import MAX_REPEAT


def fraction(text: str) -> float:
    """A number from 0 to 1 (``--pass-mark``, ``--threshold``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text}")
    return value


def repeat(text: str) -> int:
    """A whole number from 1 to ``MAX_REPEAT`` (``--repeat``)."""
    value = positive(text)
    if value > MAX_REPEAT:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_REPEAT}, got {value}")
    return value


def positive(text: str) -> int:
    """A whole number of at least 1 (``--workers``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def budget(text: str) -> float:
    """A positive, finite number of US dollars (``--max-cost``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of US dollars, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of US dollars, got {text}")
    return value
