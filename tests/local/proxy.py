"""A forwarding proxy on 127.0.0.1 that counts the requests passing through it, so a test can
tell how many requests reached the real server, and keeps each exchange, so a test can compare
a row with what the real server answered."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Exchange:
    """One request forwarded and the upstream's answer, as bytes."""

    path: str
    request: bytes | None
    status: int
    response: bytes


class CountingProxy(ThreadingHTTPServer):
    """Forwards every request to ``upstream`` and records its method and path, and the
    exchange."""

    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _Forward)
        self.upstream = upstream
        self.seen: list[str] = []
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        """The proxy's root URL."""
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Forward(BaseHTTPRequestHandler):
    @property
    def proxy(self) -> CountingProxy:
        """The proxy this handler serves."""
        server = self.server
        assert isinstance(server, CountingProxy)
        return server

    def do_GET(self) -> None:
        self._forward(None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._forward(self.rfile.read(length))

    def _forward(self, body: bytes | None) -> None:
        with self.proxy.lock:
            self.proxy.seen.append(f"{self.command} {self.path}")
        headers = {"Content-Type": self.headers.get("Content-Type") or "application/json"}
        request = urllib.request.Request(
            self.proxy.upstream + self.path, data=body, headers=headers, method=self.command
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                status, payload = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        with self.proxy.lock:
            self.proxy.exchanges.append(Exchange(self.path, body, status, payload))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads ``seen`` instead."""


@contextmanager
def counting_proxy(upstream: str) -> Generator[CountingProxy]:
    """A running proxy to ``upstream``, shut down afterwards."""
    proxy = CountingProxy(upstream)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.shutdown()
        proxy.server_close()
