"""The endpoint limit on its own: the window cut by 429s and grown by answers, the hold, the
pacing by announced budgets, and which targets share a limit (docs/targets.md#rate-limits).
The run against the fake server is tests/orchestrator/test_rate_limits.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from evalwright.errors import ProviderError
from evalwright.files.project import Project
from evalwright.orchestrator.limits import FIRST_FLIGHT, EndpointLimit, Limits, Ticket
from evalwright.orchestrator.retry import RATE_LIMIT_FLOOR
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest, ProviderResponse
from evalwright.providers.ratelimits import Budget, Quota
from evalwright.providers.registry import TargetRegistry
from evalwright.targets.models import AnthropicTarget, MockTarget, OpenAITarget, Target
from tests.providers.wire_cases import chat_provider

REQUEST = ProviderRequest(case_id="c", messages=(ChatMessage(role="user", content="hi"),))
WIRE = chat_provider("openai").prepare(REQUEST).wire


def _answer(quota: Quota | None = None) -> ProviderResponse:
    return ProviderResponse("ok", "stop", None, 1.0, WIRE, (), quota=quota)


def _refusal(quota: Quota | None = None) -> ProviderError:
    return ProviderError("HTTP 429", status=429, retry_after=0, quota=quota)


async def _taken(limit: EndpointLimit, count: int) -> list[Ticket]:
    return [await limit.acquire() for _ in range(count)]


async def _pending(task: asyncio.Task[Ticket]) -> bool:
    """Whether ``task`` still waits after the loop has run everything ready."""
    for _ in range(5):
        await asyncio.sleep(0)
    return not task.done()


def test_the_first_flight_waits_for_an_answer_before_more_go() -> None:
    async def scenario() -> None:
        limit = EndpointLimit()
        first = await _taken(limit, FIRST_FLIGHT)
        waiting = asyncio.create_task(limit.acquire())
        assert await _pending(waiting)  # nothing has said yet whether there is a limit
        limit.release(first[0], _answer())
        assert not await _pending(waiting)
        assert len(await _taken(limit, 20)) == 20  # no window until a 429

    asyncio.run(scenario())


def test_a_round_of_429s_cuts_the_window_once_to_half_of_those_in_flight() -> None:
    async def scenario() -> None:
        limit = EndpointLimit(first_flight=1000)
        first = await _taken(limit, 10)
        for ticket in first[:3]:  # three 429s of the same round: one cut
            limit.release(ticket, _refusal())
        assert (limit.window.value, limit.round, limit.refused) == (5, 1, 3)
        for ticket in first[3:]:
            limit.release(ticket, _answer())  # sent before the cut: they do not grow it
        assert limit.window.value == 5
        (later,) = await _taken(limit, 1)
        limit.release(later, _refusal())  # sent after the cut, alone: a new round
        assert (limit.window.value, limit.round) == (1, 2)

    asyncio.run(scenario())


def test_a_full_window_holds_the_next_attempt_until_one_is_done() -> None:
    async def scenario() -> None:
        limit = EndpointLimit(first_flight=1000)
        first = await _taken(limit, 4)
        limit.release(first[0], _refusal())  # the window is now 2, with 3 in flight
        waiting = asyncio.create_task(limit.acquire())
        assert await _pending(waiting)
        limit.release(first[1], _answer())
        assert await _pending(waiting)  # still 2 in flight
        limit.release(first[2], _answer())
        assert not await _pending(waiting)
        assert limit.in_flight == 2

    asyncio.run(scenario())


def test_only_answers_sent_into_a_full_window_since_the_cut_grow_it() -> None:
    async def scenario() -> None:
        limit = EndpointLimit(first_flight=1000)
        first = await _taken(limit, 8)
        limit.release(first[0], _refusal())
        for ticket in first[1:]:  # sent before the cut
            limit.release(ticket, _answer())
        assert limit.window.value == 4
        second = await _taken(limit, 4)
        for ticket in second:  # only the last was sent into a full window
            limit.release(ticket, _answer())
        assert limit.window.value == 5

    asyncio.run(scenario())


def test_a_429_no_budget_explains_holds_the_endpoint_for_its_delay() -> None:
    async def scenario() -> None:
        limit = EndpointLimit(first_flight=1000)
        (ticket,) = await _taken(limit, 1)
        error = _refusal()
        limit.release(ticket, error)
        limit.hold(error, 0.2)
        held_until = limit.hold_until
        (after,) = await _taken(limit, 1)
        assert after.sent_at >= held_until

        exhausted = Quota(requests=Budget(limit=6000, remaining=0), tokens=None)
        limit.release(after, _refusal(exhausted))
        limit.hold(_refusal(exhausted), 30)  # the budget explains it: pacing waits instead
        assert limit.hold_until == held_until

    asyncio.run(scenario())


def test_429s_asking_for_less_than_the_floor_cut_the_pace_once_a_round() -> None:
    async def scenario() -> None:
        limit = EndpointLimit(first_flight=1000)
        first = await _taken(limit, 6)
        error = _refusal()
        limit.release(first[0], error)
        limit.hold(error, RATE_LIMIT_FLOOR)  # a hold is enough: no pace
        assert limit.pace.value is None
        limit.release(first[1], error)
        limit.hold(error, 0.01)  # the same round: the first short one cuts the pace
        assert limit.pace.value == 3  # half of the 6 sent in the last second
        limit.release(first[2], error)
        limit.hold(error, 0.01)
        assert limit.pace.value == 3
        for ticket in first[3:]:
            limit.release(ticket, _answer())  # sent before the cut: nothing grows
        paced = await _taken(limit, 2)
        assert paced[1].sent_at >= paced[0].sent_at + 1 / 3

    asyncio.run(scenario())


def test_an_announced_budget_paces_attempts_and_keeps_a_reserve() -> None:
    async def scenario() -> None:
        limit = EndpointLimit(first_flight=1000)
        (first,) = await _taken(limit, 1)
        # 600 a minute (10 a second); 10 remain: 9 go at once, a tenth of 10 is kept.
        limit.release(first, _answer(Quota(Budget(limit=600, remaining=10), None)))
        assert limit.requests is not None
        assert limit.requests.rate == 10
        burst = await _taken(limit, 9)
        waiting = asyncio.create_task(limit.acquire())
        assert await _pending(waiting)
        paced = await waiting
        assert paced.sent_at > burst[-1].sent_at
        # An answer to the first of the burst says 5 remained when it came: 8 went since.
        limit.release(burst[0], _answer(Quota(Budget(limit=600, remaining=5), None)))
        assert limit.requests.credit <= 5 - 8 + 10 * (limit.clock() - burst[0].sent_at)

    asyncio.run(scenario())


def test_an_abandoned_wait_takes_no_place() -> None:
    async def scenario() -> None:
        limit = EndpointLimit(first_flight=1000)
        first = await _taken(limit, 2)
        limit.release(first[0], _refusal())  # window 1, one in flight
        waiting = asyncio.create_task(limit.acquire())
        assert await _pending(waiting)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        limit.release(first[1], None)
        assert limit.in_flight == 0
        (again,) = await _taken(limit, 1)
        assert again.in_flight == 1

    asyncio.run(scenario())


def _limits(tmp_path: Path, *targets: Target) -> Limits:
    return Limits(TargetRegistry(Project(tmp_path), given=list(targets)))


def test_targets_share_a_limit_when_url_model_and_key_are_the_same(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/v1"
    limits = _limits(
        tmp_path,
        OpenAITarget(name="a", model="m", base_url=url, api_key="k1", temperature=0),
        OpenAITarget(name="b", model="m", base_url=url, api_key="k1", temperature=1),
        OpenAITarget(name="other-key", model="m", base_url=url, api_key="k2"),
        OpenAITarget(name="other-model", model="n", base_url=url, api_key="k1"),
        AnthropicTarget(name="claude", model="m", base_url="http://127.0.0.1:9", api_key="k1"),
        MockTarget(name="mock", response="hi"),
    )
    shared = limits.endpoint("a")
    assert shared is not None
    assert limits.endpoint("b") is shared
    others = [limits.endpoint(name) for name in ("other-key", "other-model", "claude")]
    assert len({id(shared), *map(id, others)}) == 4
    assert limits.endpoint("mock") is None
    shared.refused = 2
    assert limits.refused() == {"'a' and 'b'": 2}
