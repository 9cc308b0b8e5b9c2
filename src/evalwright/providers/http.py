"""One pooled aiohttp session for a whole run: connection reuse across every chat target.

The session is created lazily inside the running event loop. ``trust_env`` stays off: no
proxy or other client setting is taken from the environment. Each target's URL and headers
are prepared once, so a request costs the body and little else.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evalwright.errors import ProviderError

if TYPE_CHECKING:
    import aiohttp


@dataclass(frozen=True, slots=True)
class HttpReply:
    """A response: status, lower-cased headers (error responses only), and the raw body."""

    status: int
    headers: dict[str, str]
    body: bytes


def encode_json(body: dict[str, Any]) -> bytes:
    """The exact bytes sent for a JSON body."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class Endpoint:
    """A URL and the headers sent with every request to it, parsed once."""

    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        from multidict import CIMultiDict
        from yarl import URL

        self.url = URL(url)
        self.headers = CIMultiDict({"content-type": "application/json", **headers})


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

    async def post_json(self, endpoint: Endpoint, body: dict[str, Any]) -> HttpReply:
        """POST ``body`` as JSON; connection failures raise a retryable ProviderError."""
        import aiohttp

        session = self._get_session()
        try:
            async with session.post(
                endpoint.url, data=encode_json(body), headers=endpoint.headers
            ) as resp:
                raw = await resp.read()
                headers = (
                    {k.lower(): v for k, v in resp.headers.items()} if resp.status >= 400 else {}
                )
                return HttpReply(resp.status, headers, raw)
        except aiohttp.ClientError as exc:
            reason = str(exc) or type(exc).__name__
            raise ProviderError(f"connection failed: {reason}", retryable=True) from None

    async def aclose(self) -> None:
        """Close the session if this pool created it."""
        if self._session is not None and self._owned:
            await self._session.close()
        self._session = None
