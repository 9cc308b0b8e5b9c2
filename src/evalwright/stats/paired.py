"""Paired comparison of two sets of answers to the same cases (docs/statistics.md): two runs,
two targets or two prompt variants of one run.

The unit is a pair: one case (and repeat) answered by A and by B. Repeats of a case are not
independent, so the standard error of the mean difference is clustered by case (the
cluster-robust estimator with its small-sample factor, as statsmodels computes it), the
interval and the test use Student's t with one degree of freedom less than the cases, and the
pass/fail flips get McNemar's exact test. The minimum detectable effect is the difference this
run would find at 80% power.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from evalwright.stats.distributions import (
    binomial_two_sided,
    normal_quantile,
    t_quantile,
    t_two_sided,
)

CONFIDENCE = 0.95
POWER = 0.8
MAX_REPEATS = 1000
"""The most repeats a run takes (``--repeat``); more is not advised."""
_Z_SUM = normal_quantile(1 - (1 - CONFIDENCE) / 2) + normal_quantile(POWER)


@dataclass(frozen=True, slots=True)
class Pair:
    """One case (one repeat of it) as A and as B scored it."""

    case: str
    a: float
    b: float
    passed_a: bool
    passed_b: bool


@dataclass(frozen=True, slots=True)
class Interval:
    """The mean difference B - A with its clustered standard error and interval."""

    mean: float
    se: float
    low: float
    high: float
    p_value: float
    """The paired t test of a zero difference (two-sided)."""
    naive_se: float
    """The standard error as if every pair were independent: smaller than ``se`` when
    repeats of a case agree with each other, which is why it is not used."""


@dataclass(frozen=True, slots=True)
class Spread:
    """The variance of the differences split in two (one-way analysis of variance by
    moments): ``between`` cases (of their true mean differences) and ``within`` a case
    (between its repeats); a case answered ``repeats`` times contributes a mean difference
    of variance ``between + within / repeats``."""

    between: float
    within: float
    repeats: float
    """The mean number of pairs per case."""


@dataclass(frozen=True, slots=True)
class PairedDifference:
    """What a paired comparison found (docs/statistics.md#paired-comparison)."""

    cases: int
    pairs: int
    mean_a: float
    mean_b: float
    interval: Interval | None
    """``None`` with fewer than two cases: nothing can be said of the noise."""
    regressions: int
    """Pairs A passed and B failed."""
    improvements: int
    """Pairs A failed and B passed."""
    flips_p_value: float
    mde: float | None
    """The smallest difference this run detects at 95% confidence and 80% power."""
    spread: Spread | None = None
    """How the differences vary between cases and between repeats of a case; ``None``
    without repeats (each case answered once) or with fewer than two cases."""

    def cases_needed(self, effect: float) -> int | None:
        """How many cases (with as many repeats each) detect ``effect`` at 80% power, the
        spread of this run's differences assumed."""
        if self.mde is None or effect <= 0:
            return None
        if self.mde == 0:
            return 2
        return max(2, math.ceil(self.cases * (self.mde / effect) ** 2))

    def repeats_needed(self, effect: float) -> int | None:
        """How many repeats of each of these cases detect ``effect`` at 80% power; ``None``
        when no number of repeats can (the cases differ too much: more cases are needed),
        or without repeats to tell the two kinds of spread apart
        (docs/statistics.md#cases-or-repeats)."""
        spread = self.spread
        if spread is None or effect <= 0:
            return None
        z = _Z_SUM * _Z_SUM
        room = effect * effect * self.cases / z - spread.between
        if spread.within == 0:
            return 1 if room >= 0 else None
        if room <= 0:
            return None
        needed = math.ceil(spread.within / room)
        return needed if needed <= MAX_REPEATS else None

    def plain(self, a: str = "A", b: str = "B") -> str:
        """The finding in words: which is better and by how much, or what this run can
        detect."""
        if self.interval is None:
            return f"too few cases to compare ({self.cases}): at least 2 are needed"
        i = self.interval
        span = f"95% CI {i.low:+.3f} to {i.high:+.3f}"
        if i.low > 0:
            return f"{b} is better than {a} by {i.mean:.3f} ({span})"
        if i.high < 0:
            return f"{b} is worse than {a} by {-i.mean:.3f} ({span})"
        detect = f"; this run can detect {self.mde:.3f} or more" if self.mde else ""
        return f"no detectable difference between {a} and {b} ({i.mean:+.3f}, {span}){detect}"


def paired_difference(pairs: Sequence[Pair], confidence: float = CONFIDENCE) -> PairedDifference:
    """Compare B with A over ``pairs`` (docs/statistics.md#paired-comparison)."""
    if not pairs:
        raise ValueError("a paired comparison needs at least one pair")
    clusters: dict[str, list[float]] = {}
    for pair in pairs:
        clusters.setdefault(pair.case, []).append(pair.b - pair.a)
    interval = _interval(list(clusters.values()), confidence)
    regressions = sum(p.passed_a and not p.passed_b for p in pairs)
    improvements = sum(p.passed_b and not p.passed_a for p in pairs)
    mde = None
    if interval is not None:
        mde = (normal_quantile(1 - (1 - confidence) / 2) + normal_quantile(POWER)) * interval.se
    return PairedDifference(
        cases=len(clusters),
        pairs=len(pairs),
        mean_a=math.fsum(p.a for p in pairs) / len(pairs),
        mean_b=math.fsum(p.b for p in pairs) / len(pairs),
        interval=interval,
        regressions=regressions,
        improvements=improvements,
        flips_p_value=binomial_two_sided(improvements, regressions + improvements),
        mde=mde,
        spread=_spread(list(clusters.values())),
    )


def _spread(clusters: list[list[float]]) -> Spread | None:
    """The between- and within-case variances, by moments; ``None`` without a case
    answered twice, or with fewer than two cases."""
    repeated = [c for c in clusters if len(c) > 1]
    if len(clusters) < 2 or not repeated:
        return None
    squares = math.fsum(math.fsum((d - math.fsum(c) / len(c)) ** 2 for d in c) for c in repeated)
    within = squares / sum(len(c) - 1 for c in repeated)
    means = [math.fsum(c) / len(c) for c in clusters]
    grand = math.fsum(means) / len(means)
    of_means = math.fsum((m - grand) ** 2 for m in means) / (len(means) - 1)
    repeats = sum(len(c) for c in clusters) / len(clusters)
    return Spread(max(0.0, of_means - within / repeats), within, repeats)


def _interval(clusters: list[list[float]], confidence: float) -> Interval | None:
    """The clustered interval of the mean difference; ``None`` under two clusters."""
    groups = len(clusters)
    if groups < 2:
        return None
    every = [d for cluster in clusters for d in cluster]
    n = len(every)
    mean = math.fsum(every) / n
    scores = math.fsum(math.fsum(d - mean for d in cluster) ** 2 for cluster in clusters)
    se = math.sqrt(groups / (groups - 1) * scores) / n
    spread = math.fsum((d - mean) ** 2 for d in every) / (n - 1) if n > 1 else 0.0
    df = groups - 1
    half = t_quantile(1 - (1 - confidence) / 2, df) * se
    p_value = t_two_sided(mean / se, df) if se > 0 else 1.0 if mean == 0 else 0.0
    return Interval(mean, se, mean - half, mean + half, p_value, math.sqrt(spread / n))
