"""A tiny calculator with a bug: add subtracts."""


def add(a: int, b: int) -> int:
    """The sum of a and b."""
    return a - b
