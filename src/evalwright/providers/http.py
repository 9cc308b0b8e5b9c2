"""One pooled aiohttp session for a whole run: connection reuse across every chat target.

The session is created lazily inside the running event loop. ``trust_env`` stays off: no
proxy or other client setting is taken from the environment. Each target's URL and headers
are prepared once, so a request costs the body and little else.
"""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from evalwright import logs
from evalwright.errors import ProviderError, ResponseTooLarge
from evalwright.providers.ratelimits import rate_limit_headers
from evalwright.targets.models import DEFAULT_MAX_RESPONSE_BYTES

if TYPE_CHECKING:
    import aiohttp
    import yarl

MAX_REDIRECTS = 3
logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class HttpResult:
    """What the transport got back, before any API reads it: status, lower-cased headers
    (all of an error response's, only the rate-limit ones of a success), and the raw body."""

    status: int
    headers: dict[str, str]
    body: bytes


def encode_json(body: dict[str, Any]) -> bytes:
    """The exact bytes sent for a JSON body."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class Endpoint:
    """A URL and the headers sent with every request to it, parsed once.

    ``shown`` is the URL as error messages name it: no user info and no query string.
    """

    def __init__(
        self, url: str, headers: Mapping[str, str], max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    ) -> None:
        from multidict import CIMultiDict
        from yarl import URL

        self.url = URL(url)
        self.headers = CIMultiDict({"content-type": "application/json", **headers})
        self.max_bytes = max_bytes
        self.shown = shown_url(self.url)


def shown_url(url: yarl.URL) -> str:
    """``scheme://host[:port]/path``: what an error may print of a URL."""
    return str(url.with_user(None).with_query(None).with_fragment(None))


class HttpPool:
    """Posts JSON over one shared, pooled session."""

    def __init__(self, session: aiohttp.ClientSession | None = None) -> None:
        self._session = session
        self._owned = session is None

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None:
            import aiohttp

            self._session = aiohttp.ClientSession(
                # Our own semaphores bound concurrency, so the connector adds no limit.
                connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300),
                # The retry policy bounds each attempt with the target's own timeout.
                timeout=aiohttp.ClientTimeout(total=None),
                cookie_jar=aiohttp.DummyCookieJar(),
                trust_env=False,
            )
        return self._session

    async def post_json(self, endpoint: Endpoint, body: dict[str, Any]) -> HttpResult:
        """POST ``body`` as JSON and read the reply, no more than ``endpoint.max_bytes``.

        Redirects are followed only to the same origin and only when they keep the method
        and body (307, 308): a POST carries the credential, so it never goes elsewhere.
        Connection failures raise a retryable ProviderError naming the URL.
        """
        import aiohttp

        session = self._get_session()
        data = encode_json(body)
        url = endpoint.url
        started = time.perf_counter()
        try:
            for _ in range(MAX_REDIRECTS + 1):
                started = time.perf_counter()
                async with session.post(
                    url, data=data, headers=endpoint.headers, allow_redirects=False
                ) as resp:
                    if 300 <= resp.status < 400:
                        _log_request(url, len(data), f"HTTP {resp.status}", started)
                        url = _redirect_target(endpoint, url, resp.status, resp.headers)
                        continue
                    raw = await _read_body(resp, endpoint.max_bytes)
                    got = f"HTTP {resp.status}, {len(raw)} B received"
                    _log_request(url, len(data), got, started)
                    headers = (
                        {k.lower(): v for k, v in resp.headers.items()}
                        if resp.status >= 400
                        else rate_limit_headers(resp.headers)
                    )
                    return HttpResult(resp.status, headers, raw)
        except aiohttp.ClientError as exc:
            problem = connection_problem(exc)
            _log_request(url, len(data), problem, started)
            raise ProviderError(
                f"{problem} ({endpoint.shown})", retryable=True, unreachable=unreachable(exc)
            ) from None
        except ResponseTooLarge:
            _log_request(url, len(data), "response over max_response_bytes", started)
            raise
        raise ProviderError(f"more than {MAX_REDIRECTS} redirects from {endpoint.shown}")

    async def exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        data: bytes | bytearray | IO[bytes] | None = None,
        max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        into: IO[bytes] | None = None,
    ) -> HttpResult:
        """One request of a batch API (an upload, a status, a results file): no redirect is
        followed, and a connection failure is a retryable ProviderError naming the URL.
        ``data`` may be a file (an upload, sent as it is read); with ``into``, a successful
        answer's body is written there instead of held (a results file)."""
        import aiohttp
        from yarl import URL

        target = URL(url)
        started = time.perf_counter()
        sent = len(data) if isinstance(data, bytes | bytearray) else 0
        try:
            async with self._get_session().request(
                method, target, data=data, headers=dict(headers), allow_redirects=False
            ) as resp:
                if into is not None and resp.status < 400:
                    await _copy_body(resp, max_bytes, into)
                    raw = b""
                else:
                    raw = await _read_body(resp, max_bytes)
                _log_request(target, sent, f"HTTP {resp.status}", started)
                return HttpResult(resp.status, {k.lower(): v for k, v in resp.headers.items()}, raw)
        except aiohttp.ClientError as exc:
            problem = connection_problem(exc)
            raise ProviderError(
                f"{problem} ({shown_url(target)})", retryable=True, unreachable=unreachable(exc)
            ) from None

    async def aclose(self) -> None:
        """Close the session if this pool created it."""
        if self._session is not None and self._owned:
            await self._session.close()
        self._session = None


def _log_request(url: yarl.URL, sent: int, outcome: str, started: float) -> None:
    """One DEBUG line per request: where it went and how it ended, never a header or body."""
    if not logger.isEnabledFor(logging.DEBUG):  # the URL's shown form costs 0.03 ms a request
        return
    elapsed = (time.perf_counter() - started) * 1000
    logger.debug(
        "%sPOST %s: %s (%d B sent, %.0f ms)",
        logs.context(),
        shown_url(url),
        outcome,
        sent,
        elapsed,
    )


def _redirect_target(
    endpoint: Endpoint, url: yarl.URL, status: int, headers: Mapping[str, str]
) -> yarl.URL:
    """Where a same-origin 307/308 leads; anything else is an error naming both URLs."""
    from yarl import URL

    location = headers.get("location")
    if location is None:
        raise ProviderError(f"HTTP {status} without a Location from {endpoint.shown}")
    target = url.join(URL(location))
    if status in (307, 308) and target.origin() == url.origin():
        return target
    raise ProviderError(
        f"HTTP {status} from {endpoint.shown} redirects to {shown_url(target)}: evalwright "
        "does not follow a POST to another origin or as another method; set the target's URL "
        "to where the API really is"
    )


async def _read_body(resp: aiohttp.ClientResponse, limit: int) -> bytes:
    """The whole body, or :class:`ResponseTooLarge` as soon as it passes ``limit`` bytes (the
    connection is then closed, not drained)."""
    declared = resp.content_length
    if declared is not None:
        if declared > limit:
            resp.close()
            raise ResponseTooLarge(limit, declared)
        # The usual case: a declared length within the limit; read() reads no further.
        # (A compressed body's length says nothing of its size once decoded.)
        if "content-encoding" not in resp.headers:
            return await resp.read()
    body = io.BytesIO()
    await _copy_body(resp, limit, body)
    return body.getvalue()


async def _copy_body(resp: aiohttp.ClientResponse, limit: int, into: IO[bytes]) -> None:
    """Write the body to ``into``; :class:`ResponseTooLarge` once it passes ``limit`` bytes."""
    total = 0
    async for chunk in resp.content.iter_chunked(1 << 16):
        total += len(chunk)
        if total > limit:
            resp.close()
            raise ResponseTooLarge(limit)
        into.write(chunk)


def unreachable(exc: aiohttp.ClientError) -> bool:
    """Whether nothing listens there: the connection was refused or the host is unknown
    (a reset, a timeout or a TLS failure says a server is there)."""
    import aiohttp

    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return True
    if isinstance(exc, aiohttp.ClientConnectorError) and not isinstance(
        exc, aiohttp.ClientSSLError
    ):
        return isinstance(exc.os_error, ConnectionRefusedError | socket.gaierror)
    return False


def connection_problem(exc: aiohttp.ClientError) -> str:
    """What went wrong with a connection, in words (not aiohttp's ``ssl:default`` jargon)."""
    import aiohttp

    if isinstance(exc, aiohttp.ClientConnectorError):
        error = exc.os_error
        reason = os.strerror(error.errno) if error.errno else str(error) or type(error).__name__
        return f"cannot connect to {exc.host}:{exc.port}: {reason}"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "the server closed the connection without answering"
    if isinstance(exc, aiohttp.ClientPayloadError):
        return f"the response was cut off: {exc}"
    return f"connection failed: {str(exc) or type(exc).__name__}"
