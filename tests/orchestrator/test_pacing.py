"""The parts of an endpoint's limit: a value 429s cut and answers grow back, and the
reckoning of an announced budget (docs/targets.md#rate-limits)."""

from __future__ import annotations

import pytest

from evalwright.orchestrator.pacing import CALM, PROBE, RESERVE, Adaptive, Reckoning
from evalwright.providers.ratelimits import Budget


def test_an_adaptive_limit_is_none_until_a_429_then_half_of_what_was_in_use() -> None:
    limit = Adaptive(least=1)
    limit.grow()
    assert limit.value is None
    limit.cut(10)
    assert (limit.value, limit.mark) == (5, 10)
    limit.cut(40)  # more in use than allowed: the allowed counts
    assert (limit.value, limit.mark) == (2.5, 5)
    limit.cut(1)
    assert limit.value == 1  # never under the least


def test_it_grows_fast_back_to_the_mark_then_probes_then_grows_fast_again() -> None:
    limit = Adaptive(least=1)
    limit.cut(8)
    for _ in range(4):
        limit.grow()
    assert limit.value == 8
    limit.grow()
    assert limit.value == pytest.approx(8 + PROBE / 8)
    while limit.mark == 8:  # CALM windows of answers past the mark
        limit.grow()
    assert limit.value == pytest.approx(8 + PROBE * CALM, rel=0.05)
    assert limit.mark == pytest.approx(2 * limit.value)
    before = limit.value
    limit.grow()
    assert limit.value == before + 1


def test_a_reckoning_refills_at_the_announced_rate_up_to_the_largest_remaining() -> None:
    reckoning = Reckoning(rate=1)
    # 600 a minute; 20 remained when the attempt sent at 10.0 came in, 5 were sent since.
    reckoning.sync(Budget(limit=600, remaining=20), sent_at=10.0, sent_since=5, now=10.5)
    assert reckoning.rate == 10
    assert reckoning.credit == 20 - 5  # the refill stops at the largest remaining seen
    assert reckoning.wait(1, now=10.5) == 0
    reckoning.credit = 0
    # One more must fit with the reserve (a tenth of 20) left over: 3 units at 10 a second.
    assert reckoning.wait(1, now=10.5) == pytest.approx((1 + RESERVE * 20) / 10)
    assert reckoning.wait(1, now=10.8) == pytest.approx(0)
