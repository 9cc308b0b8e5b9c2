"""Reliability of a target over repeated runs of each case
(docs/running.md#repeats-and-reliability): pass@k, pass^k, the mean score with a 95%
confidence interval, the spread across repeats, and the flaky cases.

Only ``ok`` rows count here: an errored repeat says nothing about the answer's quality (the
summary counts it as an error). Cases are the independent units: a case's repeats are
averaged first, so a case run ten times weighs no more than one run once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

# Student's t at 0.975 (two-sided 95%) for 1 to 30 degrees of freedom; beyond, the normal 1.96.
_T_975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_975(df: int) -> float:
    """The 97.5th percentile of Student's t with ``df`` degrees of freedom (1.96 past 30)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    return _T_975[df - 1] if df <= len(_T_975) else 1.96


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of ``k`` repeats drawn from ``n`` (``c`` of them passing)
    passes: 1 - C(n-c, k) / C(n, k), the unbiased estimator of Chen et al. 2021."""
    _check(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The chance that all ``k`` repeats drawn from ``n`` (``c`` of them passing) pass:
    C(c, k) / C(n, k) (pass^k)."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


@dataclass(slots=True)
class CaseTally:
    """One case's repeats on one target, as they finish: the rows, the ``ok`` ones, those
    passing, and the running mean and sum of squared deviations of their scores (Welford)."""

    rows: int = 0
    n: int = 0
    c: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, ok: bool, score: float, passed: bool) -> None:
        """Count one repeat's row (an error row only as a row)."""
        self.rows += 1
        if not ok:
            return
        self.n += 1
        self.c += passed
        delta = score - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (score - self.mean)

    @property
    def std_dev(self) -> float | None:
        """The sample standard deviation of the ``ok`` scores (None with fewer than two)."""
        return math.sqrt(max(self.m2, 0.0) / (self.n - 1)) if self.n >= 2 else None


@dataclass(frozen=True, slots=True)
class CaseRepeats:
    """One case's counts: ``rows`` run, ``n`` ok, ``c`` passing, their mean and spread."""

    rows: int
    n: int
    c: int
    mean: float | None
    std_dev: float | None


@dataclass(frozen=True, slots=True)
class Reliability:
    """A target's reliability over its cases' repeats (docs/running.md#repeats-and-reliability).

    ``repeats`` is the most rows any case has; every statistic counts ``ok`` rows only.
    """

    cases: tuple[CaseRepeats, ...]

    @classmethod
    def of(cls, tallies: Iterable[CaseTally]) -> Reliability:
        """The statistics of these cases' tallies."""
        return cls(
            tuple(
                CaseRepeats(t.rows, t.n, t.c, t.mean if t.n else None, t.std_dev) for t in tallies
            )
        )

    @property
    def repeats(self) -> int:
        """The most repeats (rows, errors included) any case ran."""
        return max((case.rows for case in self.cases), default=0)

    def pass_at(self, k: int) -> float | None:
        """pass@k: the mean over cases with at least ``k`` ok repeats of
        1 - C(n-c, k) / C(n, k); None when no case has ``k``."""
        values = [pass_at_k(case.n, case.c, k) for case in self.cases if case.n >= k]
        return sum(values) / len(values) if values else None

    def pass_hat(self, k: int) -> float | None:
        """pass^k: the mean over cases with at least ``k`` ok repeats of C(c, k) / C(n, k)
        (all ``k`` pass); None when no case has ``k``."""
        values = [pass_hat_k(case.n, case.c, k) for case in self.cases if case.n >= k]
        return sum(values) / len(values) if values else None

    @property
    def mean(self) -> float | None:
        """The mean over cases of each case's mean score (None when no case has an ok row)."""
        means = self._means()
        return sum(means) / len(means) if means else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        """The 95% confidence interval of :attr:`mean`: mean ± t(0.975, m-1)·sd/√m over the
        ``m`` cases' means; None with fewer than two cases."""
        means = self._means()
        m = len(means)
        if m < 2:
            return None
        centre = sum(means) / m
        sd = math.sqrt(sum((x - centre) ** 2 for x in means) / (m - 1))
        half = t_975(m - 1) * sd / math.sqrt(m)
        return (centre - half, centre + half)

    @property
    def std_dev(self) -> float | None:
        """The mean over cases with at least two ok repeats of the sample standard deviation
        of their scores (None when there is no such case)."""
        spreads = [case.std_dev for case in self.cases if case.std_dev is not None]
        return sum(spreads) / len(spreads) if spreads else None

    @property
    def flaky(self) -> int:
        """Cases that passed in some ok repeats and failed in others."""
        return sum(0 < case.c < case.n for case in self.cases)

    def _means(self) -> list[float]:
        return [case.mean for case in self.cases if case.mean is not None]
