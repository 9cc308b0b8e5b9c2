"""The budget that keeps a long conversation's turns from being judged all at once, each
holding its transcript (docs/conversations.md#the-row), while short ones still are."""

from __future__ import annotations

import asyncio

from evalwright.orchestrator.conversation import Budget


async def _most_at_once(budget: Budget, sizes: list[int]) -> int:
    running, most = 0, 0

    async def judge(size: int) -> None:
        nonlocal running, most
        async with budget.holding(size):
            running += 1
            most = max(most, running)
            await asyncio.sleep(0)  # let every other turn try to start
            await asyncio.sleep(0)
            running -= 1

    await asyncio.gather(*(judge(size) for size in sizes))
    return most


def test_short_transcripts_are_all_judged_at_once() -> None:
    assert asyncio.run(_most_at_once(Budget(1000), [10] * 20)) == 20


def test_long_transcripts_take_turns_within_the_budget() -> None:
    assert asyncio.run(_most_at_once(Budget(1000), [400] * 10)) == 2


def test_a_transcript_over_the_budget_is_judged_alone() -> None:
    assert asyncio.run(_most_at_once(Budget(1000), [5000, 5000, 10])) == 1
