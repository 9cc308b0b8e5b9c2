"""The cost of one call (docs/running.md#cost): which targets the price database prices, and
how each API's usage is billed."""

from __future__ import annotations

import genai_prices
import pytest

from evalwright.providers.pricing import call_cost, looked_up
from evalwright.providers.wire import Usage
from evalwright.targets.models import AnthropicTarget, AzureTarget, GeminiTarget, OpenAITarget
from evalwright.targets.price import Price


def _database(provider_id: str, model: str, **usage: int) -> float:
    price = genai_prices.calc_price(genai_prices.Usage(**usage), model, provider_id=provider_id)
    return float(price.total_price)


@pytest.mark.parametrize(
    ("base_url", "priced"),
    [
        (None, True),
        ("https://api.openai.com/v1", True),
        ("http://127.0.0.1:8080/v1", False),
        ("https://gateway.example/v1", False),
    ],
)
def test_openai_models_are_looked_up_only_on_openais_own_api(
    base_url: str | None, priced: bool
) -> None:
    target = OpenAITarget(name="t", model="gpt-4o", base_url=base_url)
    usage = Usage(input_tokens=1000, output_tokens=100)

    assert looked_up(target) is priced
    expected = _database("openai", "gpt-4o", input_tokens=1000, output_tokens=100)
    assert call_cost(target, usage) == (pytest.approx(expected) if priced else None)


def test_the_rule_holds_for_anthropic_and_gemini_and_azure_is_always_looked_up() -> None:
    assert looked_up(AnthropicTarget(name="a", model="claude-3-5-haiku-latest"))
    assert not looked_up(AnthropicTarget(name="a", model="c", base_url="http://127.0.0.1:1"))
    assert looked_up(GeminiTarget(name="g", model="gemini-2.5-flash"))
    assert not looked_up(GeminiTarget(name="g", model="g", base_url="http://127.0.0.1:1"))
    assert looked_up(AzureTarget(name="z", endpoint="my-resource", deployment="gpt-4o"))
    local = OpenAITarget(name="t", model="m", base_url="http://127.0.0.1:1")
    assert looked_up(local.model_copy(update={"price": "lookup"}))
    assert not looked_up(local.model_copy(update={"price": Price(input=1, output=1)}))


def test_gemini_thinking_is_billed_as_output() -> None:
    target = GeminiTarget(name="g", model="gemini-2.5-flash")
    usage = Usage(input_tokens=1000, output_tokens=100, thoughts_tokens=400)

    expected = _database("google", "gemini-2.5-flash", input_tokens=1000, output_tokens=500)
    assert call_cost(target, usage) == pytest.approx(expected)


def test_openai_reasoning_tokens_are_billed_once_inside_the_output() -> None:
    target = OpenAITarget(name="t", model="m", base_url="http://127.0.0.1:1")
    priced = target.model_copy(update={"price": Price(input=1, output=10)})
    usage = Usage(input_tokens=1000, output_tokens=500, reasoning_tokens=400)

    assert call_cost(priced, usage) == pytest.approx((1000 * 1 + 500 * 10) / 1_000_000)


def test_an_own_price_bills_cache_writes_as_input_and_reads_at_cached_input() -> None:
    price = Price(input=3, output=15, cached_input=0.3)
    target = AnthropicTarget(name="a", model="anything", price=price)
    usage = Usage(input_tokens=200, output_tokens=10, cache_read_tokens=1000, cache_write_tokens=50)

    assert call_cost(target, usage) == pytest.approx((250 * 3 + 1000 * 0.3 + 10 * 15) / 1e6)
    without_cached = OpenAITarget(name="o", model="m", price=Price(input=2, output=4))
    cached = Usage(input_tokens=1000, output_tokens=10, cache_read_tokens=600)
    assert call_cost(without_cached, cached) == pytest.approx((1000 * 2 + 10 * 4) / 1e6)
    assert call_cost(without_cached, Usage(input_tokens=None, output_tokens=10)) is None
