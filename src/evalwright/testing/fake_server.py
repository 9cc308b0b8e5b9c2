"""A fake chat API server on 127.0.0.1 that tests script request by request.

It speaks OpenAI Chat Completions, Azure OpenAI, Anthropic Messages, Gemini and the OpenAI
Responses API over real HTTP/1.1, so clients under test (and the official SDKs) run unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import socket
import threading
from collections import deque
from collections.abc import Callable, Generator, Mapping
from types import TracebackType
from typing import Literal, Self

from evalwright.jsontext import JsonValue
from evalwright.testing.actions import (
    Action,
    Drop,
    Fault,
    Flood,
    Stall,
    Text,
    Verdict,
    verdict_json,
)
from evalwright.testing.anthropic_batches import AnthropicBatches
from evalwright.testing.apis import error_body, not_found, render
from evalwright.testing.batches import BatchRoutes, Damage, OpenAIBatches
from evalwright.testing.common import dumps
from evalwright.testing.gemini_batches import GeminiBatches
from evalwright.testing.http11 import (
    READ_LIMIT,
    BadRequest,
    RawRequest,
    Reply,
    StreamReply,
    encode_response,
    read_request,
)
from evalwright.testing.loop_thread import LoopThread
from evalwright.testing.ratelimits import Headers, Limits
from evalwright.testing.recorded import CHAT_APIS, ApiName, ReceivedRequest, record
from evalwright.testing.sending import client_leaves, send_reply

JUDGE_PROMPT_PREFIX = "You are an evaluation judge"
"""System prompts starting with this get :attr:`FakeServer.judge_verdict` as the answer."""

Responder = Callable[[ReceivedRequest], Action | None]
"""Picks the action for a request, or None to fall through to the queue and defaults."""
Interrupt = Literal["before", "after", "drop"]
"""A batch API request left unanswered: the server hangs until the client leaves ``before``
doing what it asks or ``after`` it, or does it and ``drop``s the connection."""

_HEALTH = Reply(200, b'{"status":"ok"}')


class FakeServer:
    """A scriptable fake of the chat APIs, listening on ``host``:``port`` (0 picks a free port).

    Use ``async with FakeServer() as server`` inside an event loop, or
    ``with FakeServer.in_thread() as server`` from synchronous code. Every request is kept in
    :attr:`requests`; :meth:`enqueue` scripts the next answers.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_ms: float = 0,
        default_text: str = "fake answer",
        judge_verdict: Mapping[str, object] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.latency_ms = latency_ms
        """Delay before each answer unless the action sets its own."""
        self.default_text = default_text
        """The text of the answer when nothing is queued."""
        self.judge_verdict: Mapping[str, object] | None = (
            None if judge_verdict is None else dict(judge_verdict)
        )
        """The verdict judge requests get when nothing is queued (None: no special case)."""
        self.chat_template: Callable[[JsonValue], str] | None = None
        """Renders the ``messages`` of ``POST /apply-template`` as llama.cpp's server does
        (answering ``{"prompt": ...}``); None: that route answers 404, as other servers do."""
        self.responder: Responder | None = None
        """Consulted first for every API request; None from it falls through."""
        self.limits: Limits | None = None
        """Rate limits every chat API request must pass before anything else answers it:
        :class:`~evalwright.testing.ratelimits.RateLimits` or a
        :class:`~evalwright.testing.ratelimits.Storm` (docs/targets.md#rate-limits)."""
        self.requests: list[ReceivedRequest] = []
        """Every request received, in order of arrival."""
        self.errors: list[BaseException] = []
        """Exceptions raised while answering (each also answered with a 500)."""
        self.connections_opened = 0
        """How many TCP connections were accepted so far."""
        self.openai_batches = OpenAIBatches()
        """OpenAI's (and Azure's) files and batches; with :attr:`anthropic_batches` and
        :attr:`gemini_batches`, the four batch APIs (docs/batch.md)."""
        self.anthropic_batches = AnthropicBatches()
        self.gemini_batches = GeminiBatches()
        self.batch_delay = 0.0
        """Seconds a batch stays in progress before its requests are answered."""
        self.batch_expire_after: int | None = None
        """Requests a batch answers before it expires (None: it completes)."""
        self.batch_create_stall: Interrupt | None = None
        """A batch create call that never answers: it hangs until the client leaves
        ``before`` creating the batch or ``after`` it, or creates it and ``drop``s the
        connection (the window a killed run must survive)."""
        self.batch_interrupt: Callable[[ReceivedRequest], Interrupt | None] | None = None
        """Asked of every batch API request (create, upload, list, status, results): how to
        leave it unanswered, or None to answer it."""
        self.batch_list_lag = 0.0
        """Seconds after it is made before a batch shows in its API's listing."""
        self.batch_damage: Damage | None = None
        """Rewrites each line of a batch's results as they are made (given its request's
        index in the batch and the line's JSON): lines cut off, not JSON, misshapen."""
        self._queue: deque[tuple[Action, ApiName | None]] = deque()
        self._lock = threading.Lock()
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[object]] = set()

    @property
    def url(self) -> str:
        """The base URL, like ``http://127.0.0.1:8123`` (no trailing slash)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def pending(self) -> int:
        """How many queued actions no request has taken yet."""
        with self._lock:
            return len(self._queue)

    def enqueue(self, *actions: Action, api: ApiName | None = None) -> None:
        """Queue ``actions`` for the next requests, first in first out.

        With ``api`` set only requests to that API take them; others pass them by.
        """
        with self._lock:
            self._queue.extend((action, api) for action in actions)

    def requests_for(self, api: ApiName) -> list[ReceivedRequest]:
        """The requests received for ``api``, in order."""
        with self._lock:
            return [request for request in self.requests if request.api == api]

    def clear(self) -> None:
        """Forget the recorded requests and errors, and drop every queued action."""
        with self._lock:
            self.requests.clear()
            self.errors.clear()
            self._queue.clear()

    async def start(self) -> None:
        """Start listening; :attr:`port` then holds the real port."""
        self._server = await asyncio.start_server(
            self._on_connection, self.host, self.port, backlog=1024, limit=READ_LIMIT
        )
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        """Stop listening and close every connection, stalled ones included."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        handlers = list(self._handlers)
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)
        await server.wait_closed()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @classmethod
    @contextlib.contextmanager
    def in_thread(
        cls,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_ms: float = 0,
        default_text: str = "fake answer",
        judge_verdict: Mapping[str, object] | None = None,
    ) -> Generator[FakeServer]:
        """Run a server on its own event loop in a daemon thread, for synchronous tests."""
        server = cls(
            host=host,
            port=port,
            latency_ms=latency_ms,
            default_text=default_text,
            judge_verdict=judge_verdict,
        )
        loop_thread = LoopThread(server)
        loop_thread.start()
        try:
            yield server
        finally:
            loop_thread.stop()

    async def _on_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        with self._lock:
            self.connections_opened += 1
            connection_id = self.connections_opened
        sock = writer.get_extra_info("socket")
        if sock is not None:
            # Small answers must not wait for Nagle's delayed-ACK dance.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            await self._serve(reader, writer, connection_id)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            # Only stop() cancels handlers. Python 3.11's stream protocol logs a traceback
            # for a handler task that ends cancelled, so end it normally instead.
            pass
        finally:
            if task is not None:
                self._handlers.discard(task)
            writer.close()

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, connection_id: int
    ) -> None:
        while True:
            try:
                raw = await read_request(reader, writer)
            except BadRequest as exc:
                body = dumps(error_body("unknown", 400, str(exc)))
                writer.write(encode_response(400, body, keep_alive=False))
                await writer.drain()
                return
            if raw is None:
                return
            if not await self._respond(raw, connection_id, reader, writer):
                return

    async def _respond(
        self,
        raw: RawRequest,
        connection_id: int,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """Answer one request; False when the connection must close."""
        request = record(raw, connection_id)
        with self._lock:
            self.requests.append(request)
        keep_alive = raw.keep_alive
        try:
            reply = await self._reply_for(request, reader)
        except Exception as exc:  # a broken responder must still answer, visibly
            self.errors.append(exc)
            message = f"fake server error: {exc!r}"
            reply, keep_alive = Reply(500, dumps(error_body(request.api, 500, message))), False
        if reply is None:
            return False
        if isinstance(reply, Flood):
            keep_alive = False  # its head says so: the body may end anywhere
        await send_reply(writer, reply, keep_alive)
        return keep_alive

    async def _reply_for(
        self, request: ReceivedRequest, reader: asyncio.StreamReader
    ) -> Reply | StreamReply | Flood | None:
        """The reply to ``request``, or None to close the connection without one."""
        if request.api == "health":
            return _HEALTH
        if request.api == "apply_template":
            return self._apply_template(request)
        if request.api == "unknown":
            return not_found(request)
        routes = self._batch_routes(request)
        if routes is not None:
            return await self._batch_reply(routes, request, reader)
        refusal, headers = self._admit(request)
        if refusal is not None:
            return _with_headers(render(refusal, request), headers)
        action = self._choose(request)
        if isinstance(action, Drop):
            return None
        if isinstance(action, Flood):
            return action
        if isinstance(action, Stall):
            if await client_leaves(reader, action.seconds):
                return None
            action = self._fallback(request)
        if isinstance(action, Verdict):
            action = action.to_text()
        latency_ms = self.latency_ms if action.latency_ms is None else action.latency_ms
        if latency_ms > 0:
            await asyncio.sleep(latency_ms / 1000)
        return _with_headers(render(action, request), headers)

    def _admit(self, request: ReceivedRequest) -> tuple[Fault | None, Headers]:
        """The 429 of :attr:`limits` refusing a chat API request, or None; and the rate-limit
        headers of the answer."""
        if self.limits is None or request.api not in CHAT_APIS:
            return None, ()
        return self.limits.admit(request)

    async def _batch_reply(
        self, routes: BatchRoutes, request: ReceivedRequest, reader: asyncio.StreamReader
    ) -> Reply | None:
        """A batch API's answer, or None when it is left unanswered (an interrupt)."""
        routes.delay, routes.expire_after = self.batch_delay, self.batch_expire_after
        routes.list_lag, routes.damage = self.batch_list_lag, self.batch_damage
        stall = self.batch_create_stall if routes.creates(request) else None
        if stall is None and self.batch_interrupt is not None:
            stall = self.batch_interrupt(request)
        if stall == "before":
            await client_leaves(reader, None)
            return None
        reply = routes.reply(request, self._answer_line)
        if stall == "after":
            await client_leaves(reader, None)
        return None if stall else reply

    def _batch_routes(self, request: ReceivedRequest) -> BatchRoutes | None:
        if request.api == "openai_batch":
            return self.openai_batches
        if request.api == "anthropic_batch":
            return self.anthropic_batches
        return self.gemini_batches if request.api == "gemini_batch" else None

    def _answer_line(self, request: ReceivedRequest) -> Reply:
        """A batch line's answer: what the live request would get (a stall, a dropped
        connection or a flood is a server error, as a batch has no connection to drop)."""
        action = self._choose(request)
        if isinstance(action, Stall | Drop | Flood):
            return Reply(500, dumps(error_body(request.api, 500, "the request was not answered")))
        if isinstance(action, Verdict):
            action = action.to_text()
        reply = render(action, request)
        if isinstance(reply, Reply):
            return reply
        return Reply(400, dumps(error_body(request.api, 400, "a batch cannot stream")))

    def _apply_template(self, request: ReceivedRequest) -> Reply:
        """llama.cpp's ``/apply-template``, when :attr:`chat_template` is set."""
        if self.chat_template is None:
            return not_found(request)
        body: JsonValue = request.json
        messages = body.get("messages") if isinstance(body, dict) else None
        return Reply(200, dumps({"prompt": self.chat_template(messages)}))

    def _choose(self, request: ReceivedRequest) -> Action:
        responder = self.responder
        if responder is not None:
            chosen = responder(request)
            if chosen is not None:
                return chosen
        with self._lock:
            for index, (action, api) in enumerate(self._queue):
                if api is None or api == request.api:
                    del self._queue[index]
                    return action
        return self._fallback(request)

    def _fallback(self, request: ReceivedRequest) -> Text:
        verdict = self.judge_verdict
        system = request.system_prompt
        if verdict is not None and system and system.lstrip().startswith(JUDGE_PROMPT_PREFIX):
            return Text(verdict_json(verdict))
        return Text(self.default_text)


def _with_headers(reply: Reply | StreamReply, headers: Headers) -> Reply | StreamReply:
    """``reply`` with ``headers`` added (a rate limit's)."""
    return dataclasses.replace(reply, headers=reply.headers + headers) if headers else reply
