"""What one call cost in USD, from the usage its API reported (docs/running.md#cost).

A target's own ``price:`` wins; otherwise the price database of the ``genai-prices`` package
is asked, by the target's provider and model, but only for a target that calls the vendor's
own API: a server behind another ``base_url`` may answer to the same model name without being
that model (a local server called ``gpt-4o`` costs nothing at OpenAI's rates). An unknown
price, or a call without usage, has no cost (``None``), never a guess.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from evalwright.providers.wire import Usage
from evalwright.targets.kind_facts import ProviderKind
from evalwright.targets.models import ChatTarget, Target
from evalwright.targets.price import Price

_MILLION = 1_000_000


@dataclass(frozen=True, slots=True)
class Tokens:
    """Usage in the price database's terms: ``input`` counts every input token, cached ones
    included; ``output`` every output token, thinking included."""

    input: int
    output: int
    cache_read: int
    cache_write: int


def billed_tokens(kind: ProviderKind, usage: Usage | None) -> Tokens | None:
    """The tokens a call of a target of ``kind`` is billed for, or ``None`` when its usage
    is not known.

    Anthropic reports cache reads and writes besides ``input_tokens`` (its row's
    ``cache_apart``); the others count cache reads inside it. Gemini reports thinking
    besides its output.
    """
    if usage is None or usage.input_tokens is None or usage.output_tokens is None:
        return None
    read, write = usage.cache_read_tokens or 0, usage.cache_write_tokens or 0
    apart = kind.chat is not None and kind.chat.cache_apart
    total_input = usage.input_tokens + (read + write if apart else 0)
    output = usage.output_tokens + (usage.thoughts_tokens or 0)
    return Tokens(total_input, output, read, write)


_LOOKED_UP: dict[int, tuple[Target, bool]] = {}
"""looked_up per target (by identity; the target is held, so its id stays its own)."""
_loading: list[threading.Thread] = []
"""The thread importing the price database, once one was started."""


def looked_up(target: Target) -> bool:
    """Whether the price database prices this target's calls: ``price: lookup``, an Azure
    deployment, or a chat target on its vendor's own API host (worked out once per target:
    every call of a run asks)."""
    hit = _LOOKED_UP.get(id(target))
    if hit is not None and hit[0] is target:
        return hit[1]
    if len(_LOOKED_UP) >= 256:  # a long-lived process that makes many targets
        _LOOKED_UP.clear()
    found = _looked_up(target)
    _LOOKED_UP[id(target)] = (target, found)
    return found


def _looked_up(target: Target) -> bool:
    if target.price == "lookup":
        return True
    if target.price is not None or not isinstance(target, ChatTarget):
        return False
    return target.on_vendor_api


def call_cost(target: Target, usage: Usage | None) -> float | None:
    """USD for one call of ``target`` that reported ``usage``; ``None`` when unknown."""
    tokens = billed_tokens(target.kind, usage)
    if tokens is None:
        return None
    if isinstance(target.price, Price):
        return own_cost(target.price, tokens)
    if not looked_up(target):
        return None
    assert isinstance(target, ChatTarget)  # looked_up holds only for the chat APIs
    return database_cost(target.kind.chat_api.price_provider, target.api_model, tokens)


BATCH_DISCOUNT = 0.5
"""What the providers' batch APIs charge of the live price, where the price database has no
batch price of the model (OpenAI's and Anthropic's documented 50%; docs/batch.md#cost)."""


def batch_cost(target: Target, usage: Usage | None) -> tuple[float | None, bool]:
    """USD for one batch answer, and whether it is the live price at :data:`BATCH_DISCOUNT`
    (no batch price known) rather than the database's batch price."""
    tokens = billed_tokens(target.kind, usage)
    if tokens is None:
        return None, False
    if isinstance(target.price, Price):
        return own_cost(target.price, tokens) * BATCH_DISCOUNT, True
    if not looked_up(target):
        return None, False
    assert isinstance(target, ChatTarget)
    provider_id, model = target.kind.chat_api.price_provider, target.api_model
    live = database_cost(provider_id, model, tokens)
    batch = database_cost(provider_id, model, tokens, {"processing": "batch"})
    if live is None or batch is None:
        return None, False
    if batch < live:
        return batch, False
    return live * BATCH_DISCOUNT, True


def load_prices_for(target: Target) -> None:
    """Start importing the price database on a thread of its own when ``target``'s calls are
    priced by it, so the first answer does not wait for the import (a third of a second);
    a run whose targets it does not price never imports it."""
    if _loading or "genai_prices" in sys.modules:
        return
    if isinstance(target.price, Price) or not looked_up(target):
        return
    _loading.append(threading.Thread(target=_import_prices, name="evalwright-prices", daemon=True))
    _loading[0].start()


def _import_prices() -> None:
    # A failure here is met again, and reported, where the price is asked for.
    with contextlib.suppress(Exception):
        import genai_prices  # noqa: F401  # pyright: ignore[reportUnusedImport]


def own_cost(price: Price, tokens: Tokens) -> float:
    """USD at a target's own price: cache reads at ``cached_input``, every other input
    token (cache writes too) at ``input``."""
    fresh = tokens.input - tokens.cache_read
    spent = fresh * price.input + tokens.cache_read * price.cached_rate
    return (spent + tokens.output * price.output) / _MILLION


def database_cost(
    provider_id: str, model: str, tokens: Tokens, context: Mapping[str, str] | None = None
) -> float | None:
    """USD by the ``genai-prices`` database, or ``None`` when it does not know the model."""
    # Imported here: it takes a third of a second, paid only by a run that needs a price.
    import genai_prices

    usage = genai_prices.Usage(
        input_tokens=tokens.input,
        output_tokens=tokens.output,
        cache_read_tokens=tokens.cache_read,
        cache_write_tokens=tokens.cache_write,
    )
    try:
        price = genai_prices.calc_price(
            usage, model, provider_id=provider_id, price_context=context
        )
    except (LookupError, ValueError):  # a model it does not know, or usage it cannot price
        return None
    return float(price.total_price)
