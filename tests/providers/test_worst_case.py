"""A call's worst case for ``--max-cost`` (docs/running.md#--max-cost): the output limit each
API's body sends (thinking, ``n`` and candidates included), the input bound, priced the dearest
way, and the calls that have none."""

from __future__ import annotations

import genai_prices
import pytest

from evalwright.prompts import ChatMessage
from evalwright.providers.anthropic import convert as anthropic
from evalwright.providers.gemini import convert as gemini
from evalwright.providers.http import encode_json
from evalwright.providers.openai import convert as openai
from evalwright.providers.worst_case import (
    ALLOWANCE_TOKENS,
    NO_INPUT_BOUND,
    NO_OUTPUT_LIMIT,
    UNKNOWN_PRICE,
    Unbounded,
    batch_bounds,
    output_limit,
    worst_cost,
)
from evalwright.targets.models import (
    AnthropicTarget,
    CliTarget,
    GeminiTarget,
    MockTarget,
    OpenAITarget,
)
from evalwright.targets.price import Price
from evalwright.targets.sampling import SamplingSettings

MESSAGES = (ChatMessage(role="system", content="Be brief."), ChatMessage(role="user", content="Hi"))


def _settings(**given: object) -> SamplingSettings:
    return SamplingSettings.model_validate(given)


def test_openai_bodies_bound_output_by_the_field_sent_times_n() -> None:
    target = OpenAITarget(name="o", model="m", max_output_tokens=300)
    body, _ = openai.request_body(MESSAGES, target, "m", None)
    legacy = target.model_copy(update={"max_tokens_field": "max_tokens"})
    legacy_body, _ = openai.request_body(MESSAGES, legacy, "m", None)
    n3 = _settings(max_output_tokens=300, extra_body={"n": 3})
    three, _ = openai.request_body(MESSAGES, target, "m", None, n3)
    unset, _ = openai.request_body(MESSAGES, OpenAITarget(name="o", model="m"), "m", None)

    assert [output_limit(target, b) for b in (body, legacy_body, three)] == [300, 300, 900]
    assert output_limit(target, unset) is None


def test_anthropic_max_tokens_covers_thinking_and_is_always_sent() -> None:
    target = AnthropicTarget(name="a", model="claude")
    thinking = _settings(max_output_tokens=2000, thinking_budget_tokens=1500)
    body, _ = anthropic.request_body(MESSAGES, target, thinking)

    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1500}
    assert output_limit(target, body) == 2000
    default, _ = anthropic.request_body(MESSAGES, target)
    assert output_limit(target, default) == anthropic.DEFAULT_MAX_TOKENS


def test_gemini_adds_a_thinking_budget_and_counts_each_candidate() -> None:
    target = GeminiTarget(name="g", model="gemini")
    settings = _settings(
        max_output_tokens=100,
        thinking_budget_tokens=400,
        extra_body={"generationConfig": {"candidateCount": 2}},
    )
    body, _ = gemini.request_body(MESSAGES, target, None, settings)

    assert output_limit(target, body) == (100 + 400) * 2
    plain, _ = gemini.request_body(MESSAGES, target, None, _settings(max_output_tokens=100))
    assert output_limit(target, plain) == 100
    assert output_limit(target, gemini.request_body(MESSAGES, target, None)[0]) is None


def test_the_input_bound_is_the_bodys_bytes_plus_the_allowance() -> None:
    target = OpenAITarget(name="o", model="m", max_output_tokens=50)
    body, _ = openai.request_body((ChatMessage(role="user", content="héllo ✓"),), target, "m", None)
    sent = encode_json(body)

    assert batch_bounds(sent, target) == (len(sent) + ALLOWANCE_TOKENS, 50)


def test_an_own_price_prices_input_at_its_dearer_rate_and_batches_at_the_discount() -> None:
    price = Price(input=2, output=8, cached_input=3)  # a cached token dearer: priced so
    target = OpenAITarget(name="o", model="m", price=price)

    assert worst_cost(target, (1000, 100), batch=False) == pytest.approx((3000 + 800) / 1e6)
    assert worst_cost(target, (1000, 100), batch=True) == pytest.approx((3000 + 800) / 2e6)


def test_the_database_prices_anthropic_input_as_cache_writes() -> None:
    target = AnthropicTarget(name="a", model="claude-3-5-haiku-latest")
    writes = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=1000, cache_write_tokens=1000, output_tokens=100),
        "claude-3-5-haiku-latest",
        provider_id="anthropic",
    )
    plain = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=1000, output_tokens=100),
        "claude-3-5-haiku-latest",
        provider_id="anthropic",
    )

    assert float(writes.total_price) > float(plain.total_price)
    assert worst_cost(target, (1000, 100), batch=False) == pytest.approx(float(writes.total_price))


LOCAL = "http://127.0.0.1:1/v1"
UNBOUNDED = [
    pytest.param(OpenAITarget(name="o", model="m", base_url=LOCAL), (10, 10), UNKNOWN_PRICE,
                 id="compatible-server"),
    pytest.param(OpenAITarget(name="o", model="no-such-model-xyz", price="lookup"), (10, 10),
                 UNKNOWN_PRICE, id="unknown-model"),
    pytest.param(OpenAITarget(name="o", model="m", price=Price(input=1, output=1)), (10, None),
                 NO_OUTPUT_LIMIT, id="no-output-limit"),
    pytest.param(CliTarget(name="c", command=["x"]), (None, None), UNKNOWN_PRICE, id="agent"),
    pytest.param(CliTarget(name="c", command=["x"], price=Price(input=0, output=1)),
                 (None, None), NO_OUTPUT_LIMIT, id="agent-paid-output"),
    pytest.param(CliTarget(name="c", command=["x"], price=Price(input=1, output=0)),
                 (None, None), NO_INPUT_BOUND, id="agent-paid-input"),
]  # fmt: skip


@pytest.mark.parametrize(("target", "bounds", "why"), UNBOUNDED)
def test_a_call_without_an_upper_bound_says_why(
    target: OpenAITarget | CliTarget, bounds: tuple[int | None, int | None], why: str
) -> None:
    with pytest.raises(Unbounded) as raised:
        worst_cost(target, bounds, batch=False)
    assert str(raised.value) == why


def test_a_free_target_and_the_mock_cost_nothing_unbounded() -> None:
    free = CliTarget(name="c", command=["x"], price=Price(input=0, output=0))
    free_output = OpenAITarget(name="o", model="m", price=Price(input=1, output=0))

    assert worst_cost(free, (None, None), batch=False) == 0.0
    assert worst_cost(MockTarget(name="m"), (None, None), batch=False) == 0.0
    assert worst_cost(free_output, (1000, None), batch=False) == pytest.approx(1000 / 1e6)
