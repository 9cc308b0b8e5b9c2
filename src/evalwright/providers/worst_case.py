"""A call's worst case: the most it may cost before it is sent, for ``--max-cost``
(docs/running.md#--max-cost).

Output: the limit the request body sends (what the converter wrote, ``extra_body`` included),
thinking included. Input: the UTF-8 bytes of the body sent, plus :data:`ALLOWANCE_TOKENS`: the
APIs' tokenizers are byte-level (a token covers at least one byte), and the body's JSON
framing outnumbers the tokens an API adds around each message. Both are priced the dearest
way the API could bill them. A call with no such bound (no output limit, no known price, an
agent's run) raises :class:`Unbounded`.
"""

from __future__ import annotations

from evalwright import jsontext
from evalwright.jsontext import JsonValue
from evalwright.providers.base import PreparedRequest
from evalwright.providers.chat import ChatProvider
from evalwright.providers.http import encode_json
from evalwright.providers.pricing import batch_cost, call_cost
from evalwright.providers.registry import provider_class
from evalwright.providers.wire import ChatWireRequest, Usage
from evalwright.targets.models import Target
from evalwright.targets.price import Price

ALLOWANCE_TOKENS = 1024
"""Input tokens an API may add to the text it is sent, counted on top of that text's bytes: a
system prompt of its own (Anthropic's for tool use is a few hundred tokens), a response
schema restated."""

UNKNOWN_PRICE = (
    "its price is unknown (give the target a price:, {input: 0, output: 0} for one that costs "
    "nothing; docs/targets.md#price)"
)
NO_OUTPUT_LIMIT = (
    "it sets no output limit (set the target's max_output_tokens, or the case's "
    "settings.max_output_tokens)"
)
NO_INPUT_BOUND = (
    "an agent's run has no token bound before it runs (--max-cost runs an agent only at "
    "price: {input: 0, output: 0})"
)


class Unbounded(ValueError):
    """A call whose cost has no upper bound; the message says why."""


def live_bounds(prepared: PreparedRequest, target: Target) -> tuple[int | None, int | None]:
    """Upper bounds of a live call's input and output tokens (``None``: no bound)."""
    wire = prepared.wire
    if not isinstance(wire, ChatWireRequest):  # an agent's run: any number of calls
        return None, None
    return len(encode_json(wire.body)) + ALLOWANCE_TOKENS, output_limit(target, wire.body)


def batch_bounds(body: bytes, target: Target) -> tuple[int | None, int | None]:
    """Upper bounds of the input and output tokens of a batched request, ``body`` as sent."""
    try:
        fields = jsontext.loads(body)
    except ValueError:  # our own JSON: never, but then no bound is known
        fields = None
    return len(body) + ALLOWANCE_TOKENS, output_limit(target, fields)


def output_limit(target: Target, body: JsonValue) -> int | None:
    """The most output tokens (thinking included) a chat API may bill for ``body``, from the
    limit the body sends (its adapter reads it); ``None`` when it sends none."""
    adapter = provider_class(target.kind)
    if not isinstance(body, dict) or not issubclass(adapter, ChatProvider):
        return None
    return adapter.output_limit(body)


def worst_cost(target: Target, bounds: tuple[int | None, int | None], *, batch: bool) -> float:
    """USD for ``bounds`` tokens billed the dearest way the API could (every input token
    a cache write, where that costs more); raise Unbounded when there is no upper bound."""
    tokens_in, tokens_out = bounds
    if target.kind.family == "mock":  # the offline mock reports no usage: it costs nothing
        return 0.0
    dearest = [
        _priced(target, usage, batch)
        for usage in _billings(target, tokens_in or 0, tokens_out or 0)
    ]
    known = [cost for cost in dearest if cost is not None]
    if len(known) < len(dearest):
        raise Unbounded(UNKNOWN_PRICE)
    own = target.price if isinstance(target.price, Price) else None
    if tokens_in is None and (own is None or max(own.input, own.cached_rate) > 0):
        raise Unbounded(NO_INPUT_BOUND)
    if tokens_out is None and (own is None or own.output > 0):
        raise Unbounded(NO_OUTPUT_LIMIT)
    return max(known)


def _billings(target: Target, tokens_in: int, tokens_out: int) -> list[Usage]:
    """The ways ``tokens_in`` input tokens may be billed: plain, read from the prompt cache,
    written to it (Anthropic reports both besides its input tokens: its row's
    ``cache_apart``)."""
    chat = target.kind.chat
    if chat is not None and chat.cache_apart:
        return [
            Usage(input_tokens=tokens_in, output_tokens=tokens_out),
            Usage(input_tokens=0, output_tokens=tokens_out, cache_read_tokens=tokens_in),
            Usage(input_tokens=0, output_tokens=tokens_out, cache_write_tokens=tokens_in),
        ]
    return [
        Usage(input_tokens=tokens_in, output_tokens=tokens_out),
        Usage(input_tokens=tokens_in, output_tokens=tokens_out, cache_read_tokens=tokens_in),
    ]


def _priced(target: Target, usage: Usage, batch: bool) -> float | None:
    return batch_cost(target, usage)[0] if batch else call_cost(target, usage)
