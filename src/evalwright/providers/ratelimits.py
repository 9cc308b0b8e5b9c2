"""What an API's answer says of its rate limits: the budgets of requests and tokens its headers
announce (OpenAI's and Azure's ``x-ratelimit-*``, Anthropic's ``anthropic-ratelimit-*``), and
the delay a Gemini 429 gives in its body (docs/targets.md#rate-limits).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from evalwright import jsontext

RATE_LIMIT_PREFIXES = ("x-ratelimit-", "anthropic-ratelimit-")
"""The headers a successful answer keeps (lower-cased names): the rest are not read."""

# OpenAI names each budget's headers x-ratelimit-{limit,remaining}-{requests,tokens};
# Anthropic anthropic-ratelimit-{requests,tokens,input-tokens}-{limit,remaining}.
_OPENAI = "x-ratelimit-{part}-{budget}"
_ANTHROPIC = "anthropic-ratelimit-{budget}-{part}"
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


@dataclass(frozen=True, slots=True)
class Budget:
    """One announced budget: ``limit`` per minute (None when not announced) and what remains
    of it now."""

    limit: float | None
    remaining: float


@dataclass(frozen=True, slots=True)
class Quota:
    """The budgets of requests and of tokens an answer announced (None: not announced)."""

    requests: Budget | None
    tokens: Budget | None

    def exhausted(self, tokens_needed: float) -> bool:
        """Whether a budget has no room for one more request (of ``tokens_needed`` tokens)."""
        requests, tokens = self.requests, self.tokens
        if requests is not None and requests.remaining < 1:
            return True
        return tokens is not None and tokens.remaining < max(1.0, tokens_needed)


def rate_limit_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The rate-limit headers among ``headers``, names lower-cased."""
    kept: dict[str, str] = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower.startswith(RATE_LIMIT_PREFIXES):
            kept[lower] = value
    return kept


def read_quota(headers: Mapping[str, str]) -> Quota | None:
    """The budgets lower-cased ``headers`` announce, or None when they announce none."""
    requests = _budget(headers, "requests")
    tokens = _budget(headers, "tokens") or _budget(headers, "input-tokens")
    if requests is None and tokens is None:
        return None
    return Quota(requests, tokens)


def _budget(headers: Mapping[str, str], budget: str) -> Budget | None:
    for pattern in (_OPENAI, _ANTHROPIC):
        remaining = _number(headers.get(pattern.format(part="remaining", budget=budget)))
        if remaining is not None:
            limit = _number(headers.get(pattern.format(part="limit", budget=budget)))
            return Budget(limit if limit else None, remaining)
    return None


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value >= 0 and value != float("inf") else None


def duration_seconds(text: str) -> float | None:
    """A duration as Google (``"37s"``, ``"1.5s"``) or OpenAI (``"6m0s"``, ``"20ms"``) write
    it, in seconds; None for anything else."""
    text = text.strip()
    parts = _DURATION.findall(text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(number) * scale[unit] for number, unit in parts)


def retry_info_delay(body: bytes) -> float | None:
    """The ``retryDelay`` of a ``google.rpc.RetryInfo`` in an error body (Gemini's 429), in
    seconds; None when there is none."""
    if b"RetryInfo" not in body:
        return None
    try:
        data: Any = jsontext.loads(body)
    except ValueError:
        return None
    if isinstance(data, list) and data:
        data = cast(list[Any], data)[0]  # Gemini sometimes wraps the error in a list
    error = cast(dict[str, Any], data).get("error") if isinstance(data, dict) else None
    details = cast(dict[str, Any], error).get("details") if isinstance(error, dict) else None
    for detail in cast(list[Any], details) if isinstance(details, list) else []:
        if isinstance(detail, dict):
            delay = cast(dict[str, Any], detail).get("retryDelay")
            if isinstance(delay, str):
                return duration_seconds(delay)
    return None
