"""Rate limits the fake server can enforce: requests- and tokens-per-minute buckets announced in
each API's own headers, and a storm of 429s (docs/targets.md#rate-limits).

Set one as :attr:`FakeServer.limits`; it sees every chat API request before a queued action
does, and a request it refuses takes no action from the queue.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from evalwright.jsontext import JsonValue
from evalwright.testing.actions import Fault
from evalwright.testing.common import estimate_tokens
from evalwright.testing.recorded import ApiName, ReceivedRequest

Headers = tuple[tuple[str, str], ...]
Clock = Callable[[], float]

_OUTPUT_LIMITS = ("max_completion_tokens", "max_tokens", "max_output_tokens")


@dataclass
class _Bucket:
    """A token bucket: ``capacity`` units, refilled at ``rate`` a second, full at first."""

    per_minute: float
    capacity: float
    level: float
    at: float

    @property
    def rate(self) -> float:
        return self.per_minute / 60

    def refill(self, now: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.at) * self.rate)
        self.at = now

    def wait(self, cost: float) -> float:
        """Seconds until ``cost`` units fit (a cost above the capacity fits a full bucket)."""
        need = min(cost, self.capacity) - self.level
        return max(0.0, need / self.rate)

    def until_full(self) -> float:
        return max(0.0, (self.capacity - self.level) / self.rate)


@dataclass
class RateLimits:
    """Requests- and tokens-per-minute limits, enforced as OpenAI documents it: quantized,
    so that ``requests_per_minute`` may not all come in one burst. Each limit is a token
    bucket holding ``burst_seconds`` of its rate (at least one request), refilled
    continuously, full at first.

    A request costs one request and its tokens: the body's estimated input tokens (four
    characters a token) plus the output tokens it asks for at most (OpenAI counts those up
    front). A request that does not fit is answered 429 with ``Retry-After`` (whole seconds,
    rounded up) and in the API's own way; every answer carries the API's rate-limit headers:
    ``x-ratelimit-*`` (OpenAI, Azure, Responses), ``anthropic-ratelimit-*``, or for Gemini none
    on success and a ``RetryInfo`` in the 429's body.
    """

    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    burst_seconds: float = 1.0
    clock: Clock = time.monotonic
    refused: int = 0
    """How many requests were answered 429."""
    admitted: int = 0
    """How many requests were let through."""
    admitted_tokens: int = 0
    """The tokens of the requests let through."""
    refused_at: list[float] = field(default_factory=list[float])
    """When each refused request came (``clock``), for benchmarks."""
    _buckets: dict[str, _Bucket] = field(default_factory=dict[str, _Bucket])

    def _bucket(self, name: str, per_minute: float | None, now: float) -> _Bucket | None:
        if per_minute is None:
            return None
        bucket = self._buckets.get(name)
        if bucket is None:
            capacity = max(1.0, per_minute * self.burst_seconds / 60)
            bucket = self._buckets[name] = _Bucket(per_minute, capacity, capacity, now)
        bucket.refill(now)
        return bucket

    def admit(self, request: ReceivedRequest) -> tuple[Fault | None, Headers]:
        """None and the headers of an answer, or the 429 that refuses ``request``."""
        now = self.clock()
        requests = self._bucket("requests", self.requests_per_minute, now)
        tokens = self._bucket("tokens", self.tokens_per_minute, now)
        cost = request_tokens(request)
        waits = {
            name: bucket.wait(units)
            for name, bucket, units in (("requests", requests, 1), ("tokens", tokens, cost))
            if bucket is not None
        }
        short = max(waits, key=lambda name: waits[name], default=None)
        if short is not None and waits[short] > 0:
            self.refused += 1
            self.refused_at.append(now)
            return self._refusal(request.api, short, waits[short], requests, tokens)
        self.admitted += 1
        self.admitted_tokens += cost
        if requests is not None:
            requests.level -= 1
        if tokens is not None:
            tokens.level -= cost
        return None, limit_headers(request.api, requests, tokens)

    def _refusal(
        self,
        api: ApiName,
        short: str,
        wait: float,
        requests: _Bucket | None,
        tokens: _Bucket | None,
    ) -> tuple[Fault, Headers]:
        headers = limit_headers(api, requests, tokens)
        message = f"Rate limit reached on {short} per min. Please try again in {wait:.3f}s."
        after = max(1, math.ceil(wait))
        if api == "gemini":
            return Fault(429, body=gemini_exhausted(message, wait)), headers
        return Fault(429, retry_after=after, body=_error(api, message)), headers


def request_tokens(request: ReceivedRequest) -> int:
    """What a request costs a tokens bucket: its estimated input tokens plus the output tokens
    it asks for at most."""
    cost = estimate_tokens(request.body.decode("utf-8", "replace"))
    body: JsonValue = request.json
    if isinstance(body, dict):
        config = body.get("generationConfig")
        settings = config if isinstance(config, dict) else body
        for key in (*_OUTPUT_LIMITS, "maxOutputTokens"):
            value = settings.get(key)
            if isinstance(value, int):
                return cost + value
    return cost


def limit_headers(api: ApiName, requests: _Bucket | None, tokens: _Bucket | None) -> Headers:
    """The rate-limit headers ``api`` sends with an answer, from the buckets' state."""
    if api == "gemini":
        return ()
    headers: list[tuple[str, str]] = []
    for name, bucket in (("requests", requests), ("tokens", tokens)):
        if bucket is None:
            continue
        limit, remaining = f"{bucket.per_minute:g}", str(max(0, math.floor(bucket.level)))
        reset = bucket.until_full()
        if api == "anthropic":
            when = datetime.now(UTC) + timedelta(seconds=reset)
            stamp = when.isoformat(timespec="milliseconds").replace("+00:00", "Z")
            prefix = f"anthropic-ratelimit-{name}-"
            headers += [(prefix + "limit", limit), (prefix + "remaining", remaining)]
            headers.append((prefix + "reset", stamp))
        else:
            headers += [(f"x-ratelimit-limit-{name}", limit)]
            headers += [(f"x-ratelimit-remaining-{name}", remaining)]
            headers.append((f"x-ratelimit-reset-{name}", duration_text(reset)))
    return tuple(headers)


def duration_text(seconds: float) -> str:
    """A duration as OpenAI writes its reset headers: ``20ms``, ``1.5s``, ``6m0s``."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    minutes, rest = divmod(round(seconds, 3), 60)
    return f"{int(minutes)}m{rest:g}s" if minutes else f"{rest:g}s"


def gemini_exhausted(message: str, wait: float) -> dict[str, object]:
    """Gemini's 429 body: RESOURCE_EXHAUSTED, with the delay in a ``RetryInfo``."""
    retry: dict[str, object] = {
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        "retryDelay": f"{max(wait, 0.001):.3f}s",
    }
    return {
        "error": {
            "code": 429,
            "message": message,
            "status": "RESOURCE_EXHAUSTED",
            "details": [retry],
        }
    }


def _error(api: ApiName, message: str) -> dict[str, object]:
    if api == "anthropic":
        return {"type": "error", "error": {"type": "rate_limit_error", "message": message}}
    error = {"message": message, "type": "requests", "param": None, "code": "rate_limit_exceeded"}
    return {"error": error}


@dataclass
class Storm:
    """429 on a ``share`` of the requests for ``seconds`` from the first one, whatever the
    rate: the refused requests spread evenly (with 0.8, four in five). ``retry_after`` is the
    ``Retry-After`` header's value (None: no header)."""

    share: float = 0.8
    seconds: float = 20.0
    retry_after: float | None = 1
    clock: Clock = time.monotonic
    refused: int = 0
    """How many requests were answered 429."""
    admitted: int = 0
    """How many requests were let through."""
    _started: float | None = None
    _owed: float = 0.0

    def admit(self, request: ReceivedRequest) -> tuple[Fault | None, Headers]:  # noqa: ARG002 - any request alike
        """None, or the 429 that refuses ``request`` while the storm lasts."""
        now = self.clock()
        if self._started is None:
            self._started = now
        if now - self._started < self.seconds:
            self._owed += self.share
            if self._owed >= 1:
                self._owed -= 1
                self.refused += 1
                return Fault(429, retry_after=self.retry_after), ()
        self.admitted += 1
        return None, ()

    @property
    def over(self) -> bool:
        """Whether the storm has started and ended."""
        return self._started is not None and self.clock() - self._started >= self.seconds


Limits = RateLimits | Storm
"""What :attr:`FakeServer.limits` may hold."""
