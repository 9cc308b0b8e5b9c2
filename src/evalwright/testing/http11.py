"""Just enough HTTP/1.1 for a test server: request reading and response encoding.

Request bodies may come with ``Content-Length`` or chunked; connections stay open unless the
client says otherwise. Responses are encoded to bytes whole, so the server sends each one in a
single write and clients never wait on a half-sent head.
"""

from __future__ import annotations

import asyncio
import email.utils
from collections.abc import Iterable
from dataclasses import dataclass
from http import HTTPStatus

READ_LIMIT = 1 << 20
"""Longest header block or chunk-size line accepted (the stream reader's buffer limit)."""

SERVER_NAME = "evalwright-fake/1"


@dataclass(frozen=True)
class Reply:
    """A complete response, sent in one write."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class StreamReply:
    """A chunked response whose body is sent as ``events``, one chunk (and write) each."""

    events: tuple[bytes, ...]
    status: int = 200
    content_type: str = "text/event-stream"
    headers: tuple[tuple[str, str], ...] = ()


class BadRequest(Exception):
    """The client sent bytes that are not an HTTP/1.1 request we can read."""


@dataclass(frozen=True)
class RawRequest:
    """One request as read off the wire; header names are lower-cased."""

    method: str
    target: str
    version: str
    headers: dict[str, str]
    body: bytes

    @property
    def keep_alive(self) -> bool:
        """Whether the client lets the connection stay open after the response."""
        tokens = {token.strip().lower() for token in self.headers.get("connection", "").split(",")}
        if self.version == "HTTP/1.0":
            return "keep-alive" in tokens
        return "close" not in tokens


async def read_request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> RawRequest | None:
    """Read the next request, or None when the client closed the connection between requests.

    Raises :class:`BadRequest` on bytes we cannot read, and ``asyncio.IncompleteReadError``
    when the client goes away in the middle of a request.
    """
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise BadRequest("connection closed inside the request head") from exc
    except asyncio.LimitOverrunError as exc:
        raise BadRequest("request head too large") from exc
    method, target, version, headers = parse_head(head)
    if headers.get("expect", "").lower() == "100-continue":
        # Clients that ask for this (curl, for large bodies) would otherwise pause a second.
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    body = await read_body(reader, headers)
    return RawRequest(method, target, version, headers, body)


def parse_head(head: bytes) -> tuple[str, str, str, dict[str, str]]:
    """Split a request head into method, target, version and lower-cased headers."""
    try:
        text = head.decode("latin-1")
    except UnicodeDecodeError as exc:  # pragma: no cover - latin-1 decodes every byte
        raise BadRequest("undecodable head") from exc
    # RFC 9112 lets a server ignore empty lines before the request line.
    lines = text.lstrip("\r\n").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(f"bad request line {lines[0]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise BadRequest(f"bad header line {line!r}")
        key = name.lower()
        value = value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return parts[0].upper(), parts[1], parts[2], headers


async def read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    """Read the body the headers announce (chunked, a Content-Length, or none)."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return await read_chunked(reader)
    length_text = headers.get("content-length")
    if length_text is None:
        return b""
    try:
        length = int(length_text)
    except ValueError as exc:
        raise BadRequest(f"bad Content-Length {length_text!r}") from exc
    if length < 0:
        raise BadRequest(f"bad Content-Length {length_text!r}")
    return await reader.readexactly(length)


async def read_chunked(reader: asyncio.StreamReader) -> bytes:
    """Read a chunked body and its trailers, returning the joined chunks."""
    parts: list[bytes] = []
    while True:
        size_line = await _read_line(reader)
        size_text = size_line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError as exc:
            raise BadRequest(f"bad chunk size {size_text!r}") from exc
        if size == 0:
            break
        parts.append(await reader.readexactly(size))
        if await reader.readexactly(2) != b"\r\n":
            raise BadRequest("chunk not followed by CRLF")
    while await _read_line(reader) != b"\r\n":
        pass
    return b"".join(parts)


async def _read_line(reader: asyncio.StreamReader) -> bytes:
    try:
        return await reader.readuntil(b"\r\n")
    except asyncio.LimitOverrunError as exc:
        raise BadRequest("line too long") from exc


def _head(status: int, headers: Iterable[tuple[str, str]], keep_alive: bool) -> list[str]:
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = "Status"
    lines = [
        f"HTTP/1.1 {status} {reason}",
        f"Date: {email.utils.formatdate(usegmt=True)}",
        f"Server: {SERVER_NAME}",
        f"Connection: {'keep-alive' if keep_alive else 'close'}",
    ]
    lines.extend(f"{name}: {value}" for name, value in headers)
    return lines


def encode_response(
    status: int,
    body: bytes,
    *,
    content_type: str = "application/json",
    headers: Iterable[tuple[str, str]] = (),
    keep_alive: bool = True,
) -> bytes:
    """A complete response (head and body) as one byte string."""
    lines = _head(status, headers, keep_alive)
    lines.append(f"Content-Type: {content_type}")
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def encode_stream_head(
    status: int,
    *,
    content_type: str,
    headers: Iterable[tuple[str, str]] = (),
    keep_alive: bool = True,
) -> bytes:
    """The head of a chunked response whose body follows as :func:`encode_chunk` pieces."""
    lines = _head(status, headers, keep_alive)
    lines.append(f"Content-Type: {content_type}")
    lines.append("Cache-Control: no-cache")
    lines.append("Transfer-Encoding: chunked")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def encode_chunk(data: bytes) -> bytes:
    """One chunk of a chunked body; empty ``data`` gives the terminating chunk."""
    if not data:
        return b"0\r\n\r\n"
    return f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n"
