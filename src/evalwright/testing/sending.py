"""Writing the fake server's replies to a connection: whole, streamed as chunks, or a flood of
bytes; and waiting for a client to leave."""

from __future__ import annotations

import asyncio

from evalwright.testing.actions import Flood
from evalwright.testing.http11 import (
    Reply,
    StreamReply,
    encode_chunk,
    encode_response,
    encode_stream_head,
)

_FLOOD_CHUNK = b"x" * (1 << 20)


async def _flood(writer: asyncio.StreamWriter, flood: Flood) -> None:
    """Send ``flood.size`` bytes of body; a client that leaves ends it (ConnectionError)."""
    if flood.declare_length:
        head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {flood.size}"
        writer.write((head + "\r\nconnection: close\r\n\r\n").encode("ascii"))
    else:
        writer.write(
            encode_stream_head(200, content_type="application/json", headers=(), keep_alive=False)
        )
    left = flood.size
    while left > 0:
        chunk = _FLOOD_CHUNK[: min(left, len(_FLOOD_CHUNK))]
        writer.write(chunk if flood.declare_length else encode_chunk(chunk))
        await writer.drain()
        flood.sent[0] += len(chunk)
        left -= len(chunk)
    if not flood.declare_length:
        writer.write(encode_chunk(b""))
        await writer.drain()


async def send_reply(
    writer: asyncio.StreamWriter, reply: Reply | StreamReply | Flood, keep_alive: bool
) -> None:
    """Write ``reply`` to the connection."""
    if isinstance(reply, Flood):
        await _flood(writer, reply)
        return
    if isinstance(reply, Reply):
        head_and_body = encode_response(
            reply.status,
            reply.body,
            content_type=reply.content_type,
            headers=reply.headers,
            keep_alive=keep_alive,
        )
        writer.write(head_and_body)
        await writer.drain()
        return
    head = encode_stream_head(
        reply.status, content_type=reply.content_type, headers=reply.headers, keep_alive=keep_alive
    )
    writer.write(head)
    for event in reply.events:
        writer.write(encode_chunk(event))
        await writer.drain()
    writer.write(encode_chunk(b""))
    await writer.drain()


async def client_leaves(reader: asyncio.StreamReader, seconds: float | None) -> bool:
    """Wait ``seconds`` (None: for ever); True if the client closed the connection first."""

    async def until_eof() -> None:
        # Anything the client sends meanwhile is dropped: a stalled exchange is over anyway.
        while await reader.read(1 << 16):
            pass

    try:
        await asyncio.wait_for(until_eof(), seconds)
    except TimeoutError:
        return False
    return True
