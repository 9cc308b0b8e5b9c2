"""Krippendorff's alpha (docs/judges.md#run-metrics): how far coders agree beyond chance,
with missing values allowed, for the interval and nominal metrics.

alpha = 1 - Do / De, where Do is the disagreement observed within each unit coded at least
twice (each unit's pairs weighted by 1 / (values - 1)) and De the disagreement expected
between any two of those values. Units coded fewer than twice drop out, as NLTK's
``AnnotationTask`` drops them; its results are the tests' oracle.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Literal, TypeVar, overload

_V = TypeVar("_V", bound=Hashable)

Metric = Literal["interval", "nominal"]
"""How two values differ: ``interval``, by their squared difference; ``nominal``, by
whether they are equal (0) or not (1)."""


def _interval_pairs(values: Sequence[float]) -> float:
    """The squared differences of every ordered pair of ``values``, summed: ``2n`` times
    their sum of squares about the mean (with its rounding corrected: scores that nearly
    agree leave small deviations)."""
    count = len(values)
    mean = math.fsum(values) / count
    deviations = [value - mean for value in values]
    squares = math.fsum(d * d for d in deviations) - math.fsum(deviations) ** 2 / count
    return 2 * count * max(squares, 0.0)


def _nominal_pairs(values: Sequence[Hashable]) -> float:
    """How many ordered pairs of ``values`` differ."""
    count = len(values)
    return float(count * count - sum(n * n for n in Counter(values).values()))


@overload
def krippendorff_alpha(
    coders: Sequence[str],
    units: Sequence[Sequence[float | None]],
    metric: Literal["interval"] = "interval",
) -> float | None: ...


@overload
def krippendorff_alpha(
    coders: Sequence[str],
    units: Sequence[Sequence[Hashable | None]],
    metric: Literal["nominal"],
) -> float | None: ...


def krippendorff_alpha(
    coders: Sequence[str],
    units: Sequence[Sequence[Hashable | None]],
    metric: Metric = "interval",
) -> float | None:
    """Krippendorff's alpha of ``units``, each a value per coder (``None`` when missing);
    ``None`` when undefined (no unit with two values), 1 when every paired value is the
    same."""
    paired: list[list[Hashable]] = []
    for values in units:
        if len(values) != len(coders):
            raise ValueError(f"a unit has {len(values)} values for {len(coders)} coders")
        given = [value for value in values if value is not None]
        if len(given) > 1:
            paired.append(given)
    if metric == "nominal":
        return _alpha(paired, _nominal_pairs)
    return _alpha([[_number(value) for value in values] for values in paired], _interval_pairs)


def _alpha(paired: list[list[_V]], pairs: Callable[[Sequence[_V]], float]) -> float | None:
    pooled = [value for values in paired for value in values]
    if not pooled:
        return None
    if len(set(pooled)) == 1:
        return 1.0
    observed = math.fsum(pairs(values) / (len(values) - 1) for values in paired) / len(pooled)
    expected = pairs(pooled) / (len(pooled) * (len(pooled) - 1))
    if expected == 0:  # distinct values whose squared differences underflow
        return None
    return 1.0 - observed / expected


def _number(value: Hashable) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"the interval metric takes numbers, not {value!r}")
    return float(value)
