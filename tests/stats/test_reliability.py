"""The reliability statistics (docs/running.md#repeats-and-reliability): pass@k and pass^k
against their formulas for known counts, the confidence interval, the spread and flaky."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from evalwright.stats.reliability import (
    CaseTally,
    Reliability,
    pass_at_k,
    pass_hat_k,
    t_975,
)


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 2, 1, 2 / 5),  # pass@1 is the pass rate
        (5, 2, 2, 1 - 3 / 10),  # 1 - C(3,2)/C(5,2)
        (5, 2, 3, 1 - 1 / 10),  # 1 - C(3,3)/C(5,3)
        (5, 2, 4, 1.0),  # n - c < k: any 4 of the 5 include a pass
        (5, 0, 3, 0.0),  # c = 0: never
        (5, 5, 3, 1.0),  # c = n: always
        (1, 1, 1, 1.0),
        (10, 3, 5, 1 - 21 / 252),  # 1 - C(7,5)/C(10,5)
    ],
)
def test_pass_at_k_is_the_unbiased_estimator(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 2, 1, 2 / 5),
        (5, 2, 2, 1 / 10),  # C(2,2)/C(5,2)
        (5, 2, 3, 0.0),  # c < k: never all k
        (5, 0, 1, 0.0),
        (5, 5, 5, 1.0),
        (10, 7, 3, 35 / 120),  # C(7,3)/C(10,3)
    ],
)
def test_pass_hat_k_is_all_k_passing(n: int, c: int, k: int, expected: float) -> None:
    assert pass_hat_k(n, c, k) == pytest.approx(expected)


def test_pass_at_k_matches_drawing_every_k_subset() -> None:
    """The estimator is the share of k-subsets of the n repeats holding a pass (and pass^k
    the share holding only passes), counted by enumeration."""
    for n in range(1, 7):
        for c in range(n + 1):
            outcomes = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                subsets = list(itertools.combinations(outcomes, k))
                assert pass_at_k(n, c, k) == pytest.approx(sum(map(any, subsets)) / len(subsets))
                assert pass_hat_k(n, c, k) == pytest.approx(sum(map(all, subsets)) / len(subsets))


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4)])
def test_impossible_counts_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="need 0 <= c <= n"):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError, match="need 0 <= c <= n"):
        pass_hat_k(n, c, k)


def test_t_table() -> None:
    assert t_975(1) == 12.706
    assert t_975(2) == 4.303
    assert t_975(30) == 2.042
    assert t_975(31) == t_975(1000) == 1.96
    assert all(t_975(df) > t_975(df + 1) for df in range(1, 30))
    with pytest.raises(ValueError, match="at least 1"):
        t_975(0)


def _reliability(*cases: list[float | None], pass_mark: float = 0.5) -> Reliability:
    """Each case as its repeats' scores (None: an errored repeat)."""
    tallies: list[CaseTally] = []
    for scores in cases:
        tally = CaseTally()
        for score in scores:
            ok = score is not None
            value = score if score is not None else 0.0
            tally.add(ok, value, ok and value >= pass_mark)
        tallies.append(tally)
    return Reliability.of(tallies)


def test_a_target_averages_its_cases() -> None:
    stats = _reliability([1, 1, 1], [1, 0, 0], [0, 0, 0], [0.6, 0.4, 1])

    assert stats.repeats == 3
    assert stats.pass_at(1) == pytest.approx((1 + 1 / 3 + 0 + 2 / 3) / 4)
    assert stats.pass_at(2) == pytest.approx((1 + (1 - 1 / 3) + 0 + 1) / 4)
    assert stats.pass_at(3) == pytest.approx((1 + 1 + 0 + 1) / 4)
    assert stats.pass_hat(3) == pytest.approx(1 / 4)
    assert stats.pass_hat(2) == pytest.approx((1 + 0 + 0 + 1 / 3) / 4)
    assert stats.flaky == 2


def test_mean_ci_and_std_dev_treat_cases_as_the_units() -> None:
    cases: list[list[float | None]] = [[0.2, 0.4], [0.9, 0.7, 0.8], [0.5]]
    stats = _reliability(*cases)

    means = [0.3, 0.8, 0.5]
    centre = sum(means) / 3
    sd = math.sqrt(sum((m - centre) ** 2 for m in means) / 2)
    assert stats.mean == pytest.approx(centre)
    assert stats.ci95 == pytest.approx((centre - 4.303 * sd / 3**0.5, centre + 4.303 * sd / 3**0.5))
    # Per-case sample std devs of the cases with two or more repeats, averaged.
    assert stats.std_dev == pytest.approx((math.sqrt(0.02) + 0.1) / 2)


def test_errored_repeats_are_left_out() -> None:
    stats = _reliability([1, None, 0], [None, None])

    assert stats.repeats == 3, "rows run, errors included"
    assert stats.pass_at(2) == pytest.approx(1.0), "the first case: n=2, c=1"
    assert stats.pass_at(3) is None, "no case has three ok repeats"
    assert stats.mean == pytest.approx(0.5)
    assert stats.ci95 is None, "one case with a score: no interval"
    assert stats.flaky == 1


def test_without_scores_there_is_nothing_to_report() -> None:
    stats = _reliability([None], [0.7])

    assert stats.std_dev is None
    assert stats.ci95 is None
    assert stats.flaky == 0
    assert _reliability().mean is None
    assert _reliability().repeats == 0


def test_the_running_std_dev_is_the_sample_std_dev() -> None:
    scores = [random.Random(7).random() for _ in range(50)]
    tally = CaseTally()
    for score in scores:
        tally.add(True, score, score >= 0.5)
    centre = sum(scores) / len(scores)
    expected = math.sqrt(sum((s - centre) ** 2 for s in scores) / (len(scores) - 1))
    assert tally.std_dev == pytest.approx(expected)
    assert tally.mean == pytest.approx(centre)
