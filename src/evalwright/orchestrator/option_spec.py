"""How a run option is declared (docs/running.md#evalwright-eval): an :class:`Option` record
made by :func:`option` as the default of a dataclass field, and the :class:`Number` kinds
that read and check numbers. The run's options themselves are in
``evalwright.orchestrator.options``.

Only the standard library is imported here: the command line builds its parser from these
records before anything heavy is loaded.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, TypeVar, cast

from evalwright.errors import ConfigError
from evalwright.limits import MAX_REPEAT

T = TypeVar("T")

Action = Literal["value", "flag", "append", "toggle", "count", "optional"]
"""How an option is written on the command line: ``--out FILE`` (value), ``--dry-run``
(flag), ``--tag TAG`` given again for each (append), ``--cache``/``--no-cache`` (toggle),
``-vv`` (count), ``--report [FILE]`` (optional value)."""


class OptionProblem(ValueError):
    """What is wrong with one option's value; the command line shows it as a usage error,
    the Python API as a ``ConfigError`` naming the keyword."""


@dataclass(frozen=True, slots=True)
class Number:
    """How a number option is read and checked: a value typed on the command line and one
    given to :func:`evalwright.run` get the same messages."""

    noun: str
    """What the value must be, for a value of the wrong type: ``a whole number``."""
    whole: bool = False
    low: float = -math.inf
    high: float = math.inf
    above_low: bool = False
    """``low`` itself is out of range (a budget of 0 is no budget)."""
    within: str | None = None
    """The range as one phrase (``a number from 0 to 1``) for every value outside it,
    infinities and NaN included; ``None``: "at least" and "at most" messages instead."""

    def parse(self, text: str) -> float:
        """The value of a command-line argument, checked."""
        try:
            value = int(text) if self.whole else float(text)
        except ValueError:
            raise OptionProblem(f"expected {self.noun}, got {text!r}") from None
        self.check(value, text)
        return value

    def accept(self, value: object) -> float:
        """A value given in Python, checked (``True`` is not a number here)."""
        types = int if self.whole else int | float
        if isinstance(value, bool) or not isinstance(value, types):
            raise OptionProblem(f"expected {self.noun}, got {value!r}")
        self.check(value, f"{value:g}" if isinstance(value, float) else str(value))
        return value

    def check(self, value: float, shown: str) -> None:
        """Raise :class:`OptionProblem` for a value out of range, showing it as ``shown``."""
        low_ok = value > self.low if self.above_low else value >= self.low
        if self.within is not None:
            if not (math.isfinite(value) and low_ok and value <= self.high):
                raise OptionProblem(f"expected {self.within}, got {shown}")
        elif not low_ok:
            raise OptionProblem(f"expected at least {self.low:g}, got {shown}")
        elif value > self.high:
            raise OptionProblem(f"expected at most {self.high:g}, got {shown}")


POSITIVE = Number("a whole number", whole=True, low=1)
REPEATS = Number("a whole number", whole=True, low=1, high=MAX_REPEAT)
FRACTION = Number("a number", low=0, high=1, within="a number from 0 to 1")
BUDGET = Number(
    "a number of US dollars", low=0, above_low=True, within="a positive number of US dollars"
)


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True, slots=True)
class Option:
    """One option of ``evalwright eval``, and (when it has a ``name`` among
    :class:`RunOptions`' fields) a keyword of :func:`evalwright.run`."""

    flags: tuple[str, ...]
    help: str
    """The ``--help`` text."""
    doc: str
    """The meaning column of docs/running.md's table (Markdown)."""
    name: str = ""
    """The keyword of ``run()``, the field of :class:`RunOptions`, argparse's ``dest``."""
    default: Any = None
    metavar: str | None = None
    action: Action = "value"
    choices: tuple[str, ...] = ()
    number: Number | None = None
    accept: Callable[[Any], Any] = _same
    """A value given in Python, as :class:`RunOptions` holds it (checked)."""

    def parse(self, text: str) -> float:
        """A command-line argument of a number option, checked."""
        assert self.number is not None
        return self.number.parse(text)

    def value(self, given: object) -> Any:
        """A value given in Python, converted and checked; ``ConfigError`` naming the keyword
        when it is wrong."""
        try:
            if given is None and self.default is None:
                return None
            if self.number is not None:
                return self.number.accept(given)
            if self.choices and given not in self.choices:
                expected = " or ".join(repr(choice) for choice in self.choices)
                raise OptionProblem(f"expected {expected}, got {given!r}")
            return self.accept(given)
        except OptionProblem as problem:
            raise ConfigError(f"{self.name}: {problem}") from None


def option(
    default: T,
    *flags: str,
    help: str,
    doc: str,
    metavar: str | None = None,
    action: Action = "value",
    choices: tuple[str, ...] = (),
    number: Number | None = None,
    accept: Callable[[Any], Any] = _same,
) -> T:
    """Declare a field of :class:`RunOptions` as a run option (typed as its default, so the
    field's annotation is what type checkers see)."""
    record = Option(flags, help, doc, "", default, metavar, action, choices, number, accept)
    metadata = {"option": record}
    # dataclasses' field() is typed as the value it stands for, as this function is.
    if isinstance(default, list):
        items = cast("list[Any]", default)
        return cast(T, field(default_factory=lambda: list(items), metadata=metadata))
    return field(default=default, metadata=metadata)


def declared(owner: type) -> tuple[Option, ...]:
    """The options declared as fields of ``owner``, each named after its field."""
    found: list[Option] = []
    for item in fields(owner):
        record = item.metadata.get("option")
        if isinstance(record, Option):
            found.append(replace(record, name=item.name))
    return tuple(found)
