"""What every chat-API adapter shares: send the converted body, map the reply and errors."""

from __future__ import annotations

import dataclasses
import email.utils
import hashlib
import time
from abc import abstractmethod
from typing import TYPE_CHECKING, Any, cast

from evalwright import jsontext
from evalwright.errors import BlockedError, ProviderError
from evalwright.jsontext import JsonObject
from evalwright.prompts import DeliveryNote
from evalwright.providers.base import (
    PreparedRequest,
    Provider,
    ProviderContext,
    ProviderRequest,
    ProviderResponse,
)
from evalwright.providers.http import Endpoint, HttpResult
from evalwright.providers.media import check_limits, omitted, with_bytes
from evalwright.providers.ratelimits import read_quota, retry_info_delay
from evalwright.providers.wire import AnswerToolCall, ChatWireRequest, Usage
from evalwright.records import ReasoningPart
from evalwright.redact import clip
from evalwright.targets.models import ChatTarget, RetrySettings

if TYPE_CHECKING:
    from evalwright.providers.batching import BatchApi

Parsed = tuple[str, str | None, Usage | None]
"""What a chat API answered: the text parts joined, its own finish value, and usage."""


def usage_from(
    data: Any, input_key: str, output_key: str, **extra: str | tuple[str, str]
) -> Usage | None:
    """Token counts from an API's usage object, if it has one.

    ``extra`` maps further :class:`Usage` keys (the cache counts) to the API's key, or to a
    ``(object, key)`` path inside it; each is set only when the API reported it.
    """
    if not isinstance(data, dict):
        return None
    usage = cast(dict[str, Any], data)

    def count(path: str | tuple[str, str]) -> int | None:
        if isinstance(path, tuple):
            inner = usage.get(path[0])
            value = cast(dict[str, Any], inner).get(path[1]) if isinstance(inner, dict) else None
        else:
            value = usage.get(path)
        return value if isinstance(value, int) else None

    given = {key: value for key, path in extra.items() if (value := count(path)) is not None}
    return Usage(input_tokens=count(input_key), output_tokens=count(output_key), **given)


class ChatProvider(Provider):
    """A chat API reached over the run's pooled HTTP session."""

    def __init__(self, target: ChatTarget, context: ProviderContext) -> None:
        super().__init__(target, context)
        self.chat = target
        self.pool = context.pool
        # Built once per target: nothing per request but the body.
        self.url = self.endpoint()
        self.headers = self.auth_headers()
        self._endpoint: Endpoint | None = None

    @property
    def cache_scope(self) -> str:
        """The full request URL: the same body sent elsewhere may be answered otherwise."""
        return self.url

    @property
    def rate_limit_scope(self) -> str:
        """The URL, the model and (as a digest) the credential: an API counts a key's
        requests to a model together."""
        credential = hashlib.sha256(repr(sorted(self.headers.items())).encode()).hexdigest()
        return f"{self.url} {self.chat.api_model} {credential}"

    @property
    def retry(self) -> RetrySettings:
        """The target's ``retry`` settings."""
        return self.chat.retry

    @abstractmethod
    def endpoint(self) -> str:
        """The full request URL."""

    @abstractmethod
    def auth_headers(self) -> dict[str, str]:
        """The headers that carry the credential and API version."""

    @abstractmethod
    def convert(self, request: ProviderRequest) -> tuple[ChatWireRequest, list[DeliveryNote]]:
        """The native request and the delivery notes of the mapping (pure)."""

    @abstractmethod
    def parse(self, data: Any) -> Parsed:
        """The answer from the native response body (pure); raise on a blocked prompt."""

    def tool_calls(self, data: Any) -> tuple[AnswerToolCall, ...]:  # noqa: ARG002 - overridden
        """The answer's tool calls in the API's order, none where the adapter reads none
        (pure; docs/tools.md#tool-calls-in-the-answer)."""
        return ()

    def reasoning(self, data: Any) -> tuple[ReasoningPart, ...]:  # noqa: ARG002 - overridden
        """The answer's reasoning in the API's order, none where the adapter reads none
        (pure; docs/running.md#reasoning)."""
        return ()

    @staticmethod
    def output_limit(body: JsonObject) -> int | None:
        """The most output tokens (thinking included) the API may bill for ``body``, from the
        limit it sends; ``None`` when it sends none (docs/running.md#--max-cost). Chat
        Completions: the larger of ``max_completion_tokens`` and ``max_tokens``, per choice."""
        limits = [count_of(body.get(key)) for key in ("max_completion_tokens", "max_tokens")]
        known = [limit for limit in limits if limit is not None]
        return max(known) * (count_of(body.get("n")) or 1) if known else None

    def batch_api(self) -> BatchApi | None:
        """Its provider's batch API for this target (docs/batch.md); ``None``: it has none."""
        return None

    def error_hint(self, status: int, body: bytes) -> str | None:  # noqa: ARG002 - overridden where known
        """A hint for an HTTP error (status and body) from this target, where one is known."""
        return None

    def prepare(self, request: ProviderRequest) -> PreparedRequest:
        """The wire request and all notes, without sending anything."""
        api, accepts = self.chat.kind.chat_api, self.chat.accepts_media
        if self.chat.unsupported_media == "omit":
            messages, omissions = omitted(api, request.messages, accepts)
            if omissions:
                notes = (*request.notes, *omissions)
                request = dataclasses.replace(request, messages=messages, notes=notes)
        check_limits(api, request.messages, accepts)
        wire, notes = self.convert(request)
        return PreparedRequest(request, wire, (*request.notes, *notes))

    async def send(self, prepared: PreparedRequest) -> ProviderResponse:
        """Send the prepared body once and map the reply."""
        wire = prepared.wire
        if not isinstance(wire, ChatWireRequest):
            raise TypeError(f"{self.kind} was given a {wire.api} request")
        started = time.perf_counter()
        if self._endpoint is None:
            self._endpoint = Endpoint(self.url, self.headers, self.chat.max_response_bytes)
        endpoint = self._endpoint
        body = with_bytes(wire.body, prepared.request.messages)
        result = await self.pool.post_json(endpoint, body)
        latency_ms = (time.perf_counter() - started) * 1000
        if result.status >= 400:
            raise http_error(result, endpoint.shown, self.error_hint(result.status, result.body))
        try:
            data = jsontext.loads(result.body)
        except ValueError:
            raise ProviderError(
                f"HTTP {result.status} from {endpoint.shown}: the response body is not valid JSON",
                retryable=True,
            ) from None
        response = self.response_from(prepared, data, latency_ms)
        if result.headers:  # only rate-limit headers are kept of a success
            response = dataclasses.replace(response, quota=read_quota(result.headers))
        return response

    def response_from(
        self, prepared: PreparedRequest, data: Any, latency_ms: float
    ) -> ProviderResponse:
        """The answer in a response body ``data`` to ``prepared``: sent live, or a line of a
        batch's results (docs/batch.md)."""
        wire = prepared.wire
        assert isinstance(wire, ChatWireRequest)
        try:
            text, finish_reason, usage = self.parse(data)
            calls = self.tool_calls(data)
            reasoning = self.reasoning(data)
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ProviderError(
                f"unexpected response shape ({type(exc).__name__}: {exc})", retryable=True
            ) from None
        notes = (*prepared.notes, *self.answer_notes(wire, usage))
        return ProviderResponse(
            text,
            finish_reason,
            usage,
            latency_ms,
            wire,
            notes,
            tool_calls=calls,
            reasoning=reasoning,
        )


def count_of(value: object) -> int | None:
    """``value`` when it is a count of tokens: a non-negative integer, not a boolean."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def http_error(result: HttpResult, url: str, hint: str | None = None) -> ProviderError:
    """An HTTP error status as a ProviderError naming ``url``, with the API's message, a
    hint where one is known, and ``retry_after``."""
    message = _error_message(result.body)
    if result.status == 400 and "content_filter" in message:
        return BlockedError(f"HTTP 400 from {url}: {message}")
    delay = retry_after(result.headers)
    if delay is None and result.status == 429:
        delay = retry_info_delay(result.body)  # Gemini says it in the body
    return ProviderError(
        f"HTTP {result.status} from {url}: {message}" + (f" (hint: {hint})" if hint else ""),
        status=result.status,
        retry_after=delay,
        server_message=message,
        quota=read_quota(result.headers),
    )


def _error_message(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace")
    try:
        data = jsontext.loads(text)
    except ValueError:
        return clip(text, 500) or "(empty body)"
    if isinstance(data, list) and data:
        data = cast(list[Any], data)[0]  # Gemini sometimes wraps the error in a list
    if isinstance(data, dict):
        error = cast(dict[str, Any], data).get("error", data)
        if isinstance(error, dict):
            details = cast(dict[str, Any], error)
            parts = [str(details[k]) for k in ("code", "type", "status") if details.get(k)]
            parts.append(str(details.get("message", "")))
            joined = ": ".join(p for p in parts if p)
            if joined:
                return clip(joined, 1000)
    return clip(text, 500)


def retry_after(headers: dict[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms``, else ``Retry-After`` (seconds or a date)."""
    if "retry-after-ms" in headers:
        try:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None  # a header we cannot read: back off as if it were absent
    return max(0.0, when.timestamp() - time.time())
