"""The few distribution functions the paired statistics need (docs/statistics.md): Student's t
and the normal, and the exact binomial tail. Written here so a run needs no scientific
stack; scipy is their test oracle.
"""

from __future__ import annotations

import math
from statistics import NormalDist

_EPSILON = 1e-15
_TINY = 1e-300
_MAX_TERMS = 500


def normal_quantile(p: float) -> float:
    """The standard normal's ``p`` quantile."""
    return NormalDist().inv_cdf(p)


def incomplete_beta(a: float, b: float, x: float, y: float | None = None) -> float:
    """The regularised incomplete beta function ``I_x(a, b)``: its continued fraction,
    evaluated on the side where it converges fast. ``y`` is ``1 - x`` when the caller knows
    it more exactly than the subtraction gives it (``x`` near 1)."""
    y = 1.0 - x if y is None else y
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, y) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of ``I_x(a, b)``, by the modified Lentz method."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    result = d
    for m in range(1, _MAX_TERMS):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            result *= c * d
        if abs(c * d - 1.0) < _EPSILON:
            break
    return result


def t_two_sided(t: float, df: float) -> float:
    """The two-sided p-value of Student's ``t`` with ``df`` degrees of freedom."""
    if math.isinf(t):
        return 0.0
    square = t * t
    return incomplete_beta(df / 2.0, 0.5, df / (df + square), square / (df + square))


def t_cdf(t: float, df: float) -> float:
    """Student's t distribution function."""
    tail = t_two_sided(t, df) / 2.0
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """Student's t ``p`` quantile (``0 < p < 1``), found by bisection on the distribution
    function: slow beside a closed form, but exact to the last digits and run a few times a
    comparison."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p}")
    if p == 0.5:
        return 0.0
    low, high = -1.0, 1.0
    while t_cdf(low, df) > p:
        low *= 2.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * max(1.0, abs(middle)):
            break
    return (low + high) / 2.0


def binomial_two_sided(successes: int, trials: int) -> float:
    """The exact two-sided p-value of ``successes`` in ``trials`` under a fair coin: twice
    the smaller tail, at most 1 (the McNemar test's exact form, on the discordant pairs)."""
    if trials == 0:
        return 1.0
    smaller = min(successes, trials - successes)
    tail = sum(math.comb(trials, k) for k in range(smaller + 1))
    # Exact integers: 2 * tail / 2**trials, without a float for 2**trials.
    return min(1.0, math.ldexp(float(tail), 1 - trials) if trials < 1000 else _ratio(tail, trials))


def _ratio(tail: int, trials: int) -> float:
    """``2 * tail / 2**trials`` for a large ``trials``, through logarithms of big integers."""
    if tail == 0:
        return 0.0
    return math.exp(math.log(tail) + (1 - trials) * math.log(2.0))
