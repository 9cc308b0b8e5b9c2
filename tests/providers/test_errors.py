"""How HTTP errors and odd replies become ProviderErrors (pure functions, no network)."""

from __future__ import annotations

import email.utils
import json
import time

import pytest

from evalwright.errors import BlockedError
from evalwright.providers.chat import http_error, retry_after
from evalwright.providers.http import HttpResult

URL = "http://127.0.0.1:9/v1/chat/completions"


def reply(status: int, body: object, headers: dict[str, str] | None = None) -> HttpResult:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return HttpResult(status, headers or {}, raw)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"error": {"message": "Rate limit", "type": "requests", "code": "rate_limit"}},
            "rate_limit: requests: Rate limit",
        ),
        (
            [{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "Quota"}}],
            "429: RESOURCE_EXHAUSTED: Quota",
        ),
        (
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "overloaded_error: Overloaded",
        ),
        (b"<html>Bad gateway</html>", "<html>Bad gateway</html>"),
        (b"", "(empty body)"),
        ({"detail": "plain"}, '{"detail": "plain"}'),
    ],
    ids=["openai", "gemini-list", "anthropic", "html", "empty", "other-json"],
)
def test_error_messages_name_what_the_api_said(body: object, message: str) -> None:
    error = http_error(reply(503, body), URL)
    assert str(error) == f"HTTP 503 from {URL}: {message}"
    assert error.status == 503
    assert not error.retryable  # the retry policy decides from the status


def test_a_content_filter_400_is_a_block() -> None:
    error = http_error(
        reply(400, {"error": {"code": "content_filter", "message": "filtered"}}), URL
    )
    assert isinstance(error, BlockedError)
    assert error.error_type == "blocked"


def test_retry_after_headers() -> None:
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"retry-after": "2"}) == 2.0
    assert retry_after({"retry-after": "-3"}) == 0.0
    assert retry_after({}) is None
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({"retry-after-ms": "x", "retry-after": "4"}) == 4.0
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= (retry_after({"retry-after": later}) or 0) <= 31
    assert http_error(reply(429, b"", {"retry-after": "7"}), URL).retry_after == 7.0


def test_a_hint_follows_the_message() -> None:
    error = http_error(reply(404, {"error": {"message": "Not Found"}}), URL, "try /v1")
    assert str(error) == f"HTTP 404 from {URL}: Not Found (hint: try /v1)"
