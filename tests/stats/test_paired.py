"""Paired statistics (docs/statistics.md) against scipy and statsmodels: the distributions,
the clustered interval, the paired t test, McNemar's exact test; and their behaviour over
simulated runs (a planted difference is found at the rate power predicts, no difference is
found significant at about the nominal rate)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special as sp_special  # pyright: ignore[reportMissingTypeStubs]
from scipy import stats as sp_stats  # pyright: ignore[reportMissingTypeStubs]

from evalwright.stats.distributions import (
    binomial_two_sided,
    incomplete_beta,
    t_cdf,
    t_quantile,
    t_two_sided,
)
from evalwright.stats.paired import Pair, Spread, paired_difference

Sp: Any = sp_stats
Special: Any = sp_special


@settings(max_examples=300, deadline=None)
@given(
    st.floats(0.05, 500.0),
    st.floats(0.05, 500.0),
    st.floats(0.0, 1.0),
)
def test_incomplete_beta_is_scipys(a: float, b: float, x: float) -> None:
    assert incomplete_beta(a, b, x) == pytest.approx(Special.betainc(a, b, x), abs=1e-10)


@settings(max_examples=300, deadline=None)
@given(st.floats(-60.0, 60.0), st.integers(1, 5000))
def test_t_distribution_is_scipys(t: float, df: int) -> None:
    assert t_cdf(t, df) == pytest.approx(Sp.t.cdf(t, df), abs=1e-10)
    assert t_two_sided(t, df) == pytest.approx(2 * Sp.t.sf(abs(t), df), abs=1e-10)


@pytest.mark.parametrize("df", [1, 2, 3, 5, 9, 29, 99, 999, 20000])
@pytest.mark.parametrize("p", [0.001, 0.025, 0.1, 0.5, 0.9, 0.975, 0.999])
def test_t_quantile_is_scipys(df: int, p: float) -> None:
    assert t_quantile(p, df) == pytest.approx(Sp.t.ppf(p, df), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(
    ("successes", "trials"), [(0, 0), (0, 1), (3, 10), (10, 10), (7, 30), (480, 1000), (5, 1500)]
)
def test_binomial_is_scipys_and_statsmodels_mcnemar(successes: int, trials: int) -> None:
    import statsmodels.stats.contingency_tables as tables  # pyright: ignore[reportMissingTypeStubs]

    oracles: Any = tables
    expected = Sp.binomtest(successes, trials, 0.5).pvalue if trials else 1.0
    assert binomial_two_sided(successes, trials) == pytest.approx(expected, rel=1e-9, abs=1e-300)
    table = [[5, successes], [trials - successes, 5]]
    oracle: Any = oracles.mcnemar(table, exact=True)
    assert binomial_two_sided(successes, trials) == pytest.approx(oracle.pvalue, rel=1e-9)


def _clustered(
    rng: random.Random, cases: int, repeats: int | None, effect: float, spread: float = 0.3
) -> list[Pair]:
    """Scores of A and B: each case has its own difficulty (so repeats of it agree) and
    ``repeats`` answers each (a random number from 1 to 5 for ``None``)."""
    pairs: list[Pair] = []
    for case in range(cases):
        difficulty = rng.gauss(0.5, spread)
        for _ in range(repeats or rng.randint(1, 5)):
            a = difficulty + rng.gauss(0, 0.05)
            b = difficulty + effect + rng.gauss(0, 0.05)
            pairs.append(Pair(f"c{case}", a, b, a >= 0.5, b >= 0.5))
    return pairs


def _statsmodels_cluster(pairs: list[Pair]) -> Any:
    import statsmodels.api as sm  # pyright: ignore[reportMissingTypeStubs]

    diffs = np.array([p.b - p.a for p in pairs])
    groups = np.array([int(p.case[1:]) for p in pairs])
    model: Any = sm.OLS(diffs, np.ones((len(diffs), 1)))
    return model.fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)


@pytest.mark.parametrize(("cases", "repeats"), [(2, 1), (12, 3), (40, None), (300, 2)])
def test_the_clustered_interval_is_statsmodels(cases: int, repeats: int | None) -> None:
    pairs = _clustered(random.Random(cases), cases, repeats, effect=0.02)
    found = paired_difference(pairs).interval
    oracle = _statsmodels_cluster(pairs)

    assert found is not None
    assert found.mean == pytest.approx(oracle.params[0], abs=1e-12)
    assert found.se == pytest.approx(oracle.bse[0], rel=1e-9)
    low, high = oracle.conf_int(alpha=0.05)[0]
    assert (found.low, found.high) == (pytest.approx(low, rel=1e-8), pytest.approx(high, rel=1e-8))
    assert found.p_value == pytest.approx(oracle.pvalues[0], rel=1e-7, abs=1e-12)


def test_equal_repeats_give_scipys_paired_t_test_on_the_case_means() -> None:
    pairs = _clustered(random.Random(7), 25, 4, effect=0.03)
    found = paired_difference(pairs).interval
    means_a = [np.mean([p.a for p in pairs if p.case == f"c{i}"]) for i in range(25)]
    means_b = [np.mean([p.b for p in pairs if p.case == f"c{i}"]) for i in range(25)]

    assert found is not None
    assert found.p_value == pytest.approx(Sp.ttest_rel(means_b, means_a).pvalue, rel=1e-8)


def test_repeats_of_a_case_make_the_naive_error_visibly_too_small() -> None:
    pairs = _clustered(random.Random(3), 30, 10, effect=0.0, spread=0.3)
    # A case's repeats share its difficulty, and B tracks A per repeat with a per-case shift.
    shifted = [
        Pair(p.case, p.a, p.b + (0.2 if int(p.case[1:]) % 2 else -0.2), p.passed_a, p.passed_b)
        for p in pairs
    ]
    found = paired_difference(shifted).interval
    assert found is not None
    assert found.se > 2.5 * found.naive_se


def test_flips_are_counted_and_tested() -> None:
    pairs = [Pair(f"c{i}", 1.0, 0.0, True, False) for i in range(9)]
    pairs += [Pair("c9", 0.0, 1.0, False, True), Pair("c10", 1.0, 1.0, True, True)]
    found = paired_difference(pairs)
    assert (found.regressions, found.improvements) == (9, 1)
    assert found.flips_p_value == pytest.approx(Sp.binomtest(1, 10, 0.5).pvalue)


def _detected(rng: random.Random, effect: float, runs: int) -> tuple[float, float]:
    """The share of simulated runs whose interval excludes zero, and the mean MDE."""
    found, mdes = 0, 0.0
    for _ in range(runs):
        result = paired_difference(_clustered(rng, 60, 3, effect))
        assert result.interval is not None
        assert result.mde is not None
        found += result.interval.low > 0 or result.interval.high < 0
        mdes += result.mde
    return found / runs, mdes / runs


def test_no_difference_is_found_significant_at_about_the_nominal_rate() -> None:
    rate, _ = _detected(random.Random(11), effect=0.0, runs=600)
    assert 0.03 <= rate <= 0.075


def test_a_difference_the_size_of_the_mde_is_found_at_about_80_percent() -> None:
    rng = random.Random(12)
    _, mde = _detected(rng, effect=0.0, runs=100)
    rate, _ = _detected(rng, effect=mde, runs=500)
    assert 0.72 <= rate <= 0.88


def test_plain_words_and_sample_size() -> None:
    better = paired_difference(_clustered(random.Random(5), 50, 2, effect=0.1))
    assert better.plain("gpt", "claude") == (
        "claude is better than gpt by 0.098 (95% CI +0.085 to +0.112)"
    )
    same = paired_difference(_clustered(random.Random(5), 50, 2, effect=0.0))
    assert same.plain().startswith("no detectable difference between A and B (")
    assert "this run can detect 0.0" in same.plain()
    assert same.mde is not None
    needed = same.cases_needed(same.mde / 2)
    assert needed is not None
    assert 195 <= needed <= 205
    assert paired_difference([Pair("only", 0.1, 0.9, False, True)]).plain() == (
        "too few cases to compare (1): at least 2 are needed"
    )


def _components(
    rng: random.Random, cases: int, repeats: int, effect: float, between: float, within: float
) -> list[Pair]:
    """Differences ``effect + u_case + e``: ``u`` (sd ``between``) shared by a case's repeats,
    ``e`` (sd ``within``) drawn per repeat."""
    pairs: list[Pair] = []
    for case in range(cases):
        shift = effect + rng.gauss(0, between)
        for _ in range(repeats):
            b = 0.5 + shift + rng.gauss(0, within)
            pairs.append(Pair(f"c{case}", 0.5, b, True, b >= 0.5))
    return pairs


def test_the_spread_is_the_one_way_analysis_of_variance() -> None:
    pairs = _components(random.Random(21), 30, 4, 0.0, between=0.2, within=0.1)
    found = paired_difference(pairs).spread
    table = np.array([[p.b - p.a for p in pairs if p.case == f"c{i}"] for i in range(30)])
    within = float(np.sum((table - table.mean(axis=1, keepdims=True)) ** 2) / (30 * 3))
    between_mean_square = float(4 * np.var(table.mean(axis=1), ddof=1))

    assert found is not None
    assert found.within == pytest.approx(within, rel=1e-9)
    assert found.between == pytest.approx((between_mean_square - within) / 4, rel=1e-9)
    assert found.repeats == 4
    assert (
        paired_difference([Pair(f"c{i}", 0, i / 9, False, False) for i in range(9)]).spread is None
    )


def test_the_repeats_it_names_detect_the_effect_at_about_80_percent() -> None:
    # The estimate of the spread is checked above; here the rule, at the true spread.
    rng = random.Random(22)
    observed = paired_difference(_components(rng, 40, 2, 0.0, between=0.02, within=0.3))
    truth = dataclasses.replace(observed, spread=Spread(0.02**2, 0.3**2, 2))
    needed = truth.repeats_needed(0.06)
    assert needed == 6  # within-case noise dominates: repeats help

    for repeats, low, high in ((needed, 0.78, 0.92), (2, 0.3, 0.6)):
        runs = [_components(rng, 40, repeats, 0.06, between=0.02, within=0.3) for _ in range(300)]
        found = [paired_difference(pairs).interval for pairs in runs]
        rate = sum(i is not None and i.low > 0 for i in found) / len(found)
        assert low <= rate <= high, (repeats, rate)


def test_repeats_cannot_help_when_the_cases_differ_too_much() -> None:
    observed = paired_difference(
        _components(random.Random(23), 20, 3, 0.0, between=0.3, within=0.05)
    )
    assert observed.repeats_needed(0.05) is None
    assert observed.cases_needed(0.05) is not None
