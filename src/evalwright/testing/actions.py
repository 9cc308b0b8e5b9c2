"""What the fake server does with one request: small frozen values a test queues up."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from evalwright.jsontext import JsonObject, JsonValue


@dataclass(frozen=True)
class Thought:
    """A part of the model's reasoning, in each API's own form: an Anthropic ``thinking``
    block with its ``signature`` (a ``redacted_thinking`` block of ``redacted`` data, when
    given), a Gemini part marked ``thought: true`` with ``signature`` as its
    ``thoughtSignature``. OpenAI Chat Completions shows none."""

    text: str = ""
    signature: str | None = None
    redacted: str | None = None


@dataclass(frozen=True)
class Text:
    """Answer with ``text``; ``finish_reason`` defaults to the API's normal stop value.

    Token counts default to an estimate from the request and the text; ``latency_ms``
    overrides the server's latency for this one answer. ``cache_read_tokens`` and
    ``cache_write_tokens`` add the API's prompt-cache counts (OpenAI and Gemini count cache
    reads inside the input tokens, Anthropic besides them; only Anthropic reports writes).
    """

    text: str
    finish_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_ms: float | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning: tuple[Thought, ...] = ()
    """The reasoning sent before the text (see :class:`Thought`)."""
    reasoning_tokens: int | None = None
    """OpenAI's ``completion_tokens_details.reasoning_tokens`` (part of the output count)."""


@dataclass(frozen=True)
class Verdict:
    """Answer as an evaluation judge would: the JSON object of a score and its reasons."""

    score: float
    hits: tuple[str, ...] = ()
    misses: tuple[str, ...] = ()
    reasoning: str = "Fake verdict from the evalwright test server."
    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None

    def to_text(self) -> Text:
        """The :class:`Text` answer whose text is this verdict as JSON."""
        return Text(
            verdict_json(self.as_dict()),
            latency_ms=self.latency_ms,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
        )

    def as_dict(self) -> JsonObject:
        """``{"score", "hits", "misses", "reasoning"}``."""
        return {
            "score": self.score,
            "hits": list(self.hits),
            "misses": list(self.misses),
            "reasoning": self.reasoning,
        }


@dataclass(frozen=True)
class FunctionCall:
    """Answer with a call of the function ``name`` (a tool call in every API's own form)."""

    name: str
    arguments: Mapping[str, object] | str = field(default_factory=dict[str, object])
    call_id: str | None = None
    latency_ms: float | None = None
    signature: str | None = None
    """Gemini's ``thoughtSignature`` on the call's part (other APIs have none)."""

    def arguments_json(self) -> str:
        """The arguments as the JSON string OpenAI's APIs carry."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments), separators=(",", ":"))

    def arguments_object(self) -> JsonObject:
        """The arguments as the JSON object Anthropic and Gemini carry."""
        # Read back from the JSON text, so a mapping comes out as the JSON data it is sent as.
        text = self.arguments_json()
        try:
            parsed: JsonValue = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
        # These APIs cannot carry a non-object, so keep the raw string visible instead.
        return {"arguments": text}


@dataclass(frozen=True)
class ToolCalls:
    """Answer with the tool calls ``calls`` in this order (parallel calls when there are
    several), beside ``text`` when it is not empty, in every API's own form.

    A call without a ``call_id`` is given a fresh one, except on Gemini, which then sends
    none (as Gemini may). ``finish_reason`` defaults to the API's value for tool calls.
    """

    calls: tuple[FunctionCall, ...]
    text: str = ""
    finish_reason: str | None = None
    latency_ms: float | None = None
    reasoning: tuple[Thought, ...] = ()
    """The reasoning sent before the text and calls (see :class:`Thought`)."""

    @classmethod
    def of(cls, answer: FunctionCall | ToolCalls) -> ToolCalls:
        """``answer`` as tool calls: a single :class:`FunctionCall` is one call, no text."""
        if isinstance(answer, ToolCalls):
            return answer
        return cls((answer,), latency_ms=answer.latency_ms)

    def output_text(self) -> str:
        """What the answer carries, for a token estimate."""
        return self.text + "".join(call.name + call.arguments_json() for call in self.calls)


@dataclass(frozen=True)
class Fault:
    """Fail with HTTP ``status``: an API-shaped JSON error body unless ``body`` is given.

    ``retry_after`` (seconds) and ``retry_after_ms`` add the ``Retry-After`` and
    ``retry-after-ms`` headers; ``headers`` adds any others.
    """

    status: int
    body: bytes | str | Mapping[str, object] | None = None
    headers: Mapping[str, str] | None = None
    retry_after: float | str | None = None
    retry_after_ms: int | None = None
    latency_ms: float | None = None


@dataclass(frozen=True)
class Stall:
    """Read the request and never answer, or after ``seconds`` answer as if nothing was queued."""

    seconds: float | None = None


@dataclass(frozen=True)
class Drop:
    """Close the connection without sending any response."""


@dataclass(frozen=True)
class Flood:
    """Answer 200 OK with a body of ``size`` bytes, sent in chunks as the client reads.

    With ``declare_length`` the head carries ``Content-Length``; otherwise the body is chunked
    (so its size is unknown until the end). Sending stops when the client leaves.
    ``sent`` counts the body bytes written so far, across every request that took it.
    """

    size: int
    declare_length: bool = False
    latency_ms: float | None = None
    sent: list[int] = field(default_factory=lambda: [0], compare=False)


@dataclass(frozen=True)
class Malformed:
    """Answer 200 OK with a body that is not valid JSON."""

    latency_ms: float | None = None


@dataclass(frozen=True)
class Blocked:
    """Refuse the prompt the way the API does (content filter, refusal, blocked prompt)."""

    latency_ms: float | None = None


Answer: TypeAlias = Text | FunctionCall | ToolCalls | Fault | Malformed | Blocked
"""An action that sends a response (after the latency)."""

Action: TypeAlias = (
    Text | Verdict | FunctionCall | ToolCalls | Fault | Stall | Drop | Flood | Malformed | Blocked
)
"""Anything a test can queue for a request."""


def verdict_json(verdict: Mapping[str, object]) -> str:
    """The text a judge model answers with for ``verdict``."""
    return json.dumps(dict(verdict), ensure_ascii=False)
