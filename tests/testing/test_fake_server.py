"""The fake API server over real HTTP: scripting, faults, connections and lifecycle."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Coroutine
from typing import Any

import aiohttp
import pytest

from evalwright.testing import (
    Drop,
    FakeServer,
    Fault,
    Malformed,
    ReceivedRequest,
    Stall,
    Text,
    Verdict,
)

CHAT = "/v1/chat/completions"
GEMINI = "/v1beta/models/g:generateContent"
JUDGE_SYSTEM = "You are an evaluation judge. Grade the answer."
VERDICT = {"score": 0.75, "hits": ["a"], "misses": ["b"], "reasoning": "ok"}


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


def chat_body(text: str = "hi", system: str | None = None) -> dict[str, Any]:
    messages = [{"role": "user", "content": text}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    return {"model": "m", "messages": messages}


async def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    async with aiohttp.ClientSession() as session, session.post(url, json=body) as response:
        return response.status, dict(response.headers), await response.read()


async def chat_text(server: FakeServer, body: dict[str, Any], path: str = CHAT) -> str:
    status, _, raw = await post(server.url + path, body)
    assert status == 200
    return json.loads(raw)["choices"][0]["message"]["content"]


def test_health_and_unknown_routes() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            async with aiohttp.ClientSession() as session:
                async with session.get(server.url + "/health") as response:
                    assert (response.status, await response.json()) == (200, {"status": "ok"})
                async with session.post(server.url + "/v2/nothing?x=1") as response:
                    assert response.status == 404
                    assert "no route" in (await response.json())["error"]["message"]
            assert [(r.api, r.path, r.query) for r in server.requests] == [
                ("health", "/health", {}),
                ("unknown", "/v2/nothing", {"x": "1"}),
            ]

    run(scenario())


def test_requests_are_recorded_with_headers_and_body() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            url = server.url + CHAT + "?a=1&b=two"
            async with aiohttp.ClientSession() as session:
                await session.post(url, json=chat_body("yo"), headers={"X-Trace": "t1"})
            request: ReceivedRequest = server.requests[0]
            assert (request.method, request.path, request.query) == (
                "POST",
                CHAT,
                {"a": "1", "b": "two"},
            )
            assert request.headers["x-trace"] == "t1"
            assert request.header("X-TRACE") == "t1"
            assert request.json == chat_body("yo")
            assert json.loads(request.body) == chat_body("yo")
            assert (request.api, request.model, request.stream) == ("openai", "m", False)

    run(scenario())


def test_queue_is_fifo_and_respects_the_api_filter() -> None:
    async def scenario() -> None:
        async with FakeServer(default_text="default") as server:
            server.enqueue(Text("a1"), Text("a2"), api="anthropic")
            server.enqueue(Text("any1"), Text("any2"))
            assert server.pending == 4
            assert await chat_text(server, chat_body()) == "any1"
            status, _, raw = await post(server.url + "/v1/messages", {"model": "m"})
            assert (status, json.loads(raw)["content"][0]["text"]) == (200, "a1")
            assert await chat_text(server, chat_body()) == "any2"
            assert await chat_text(server, chat_body()) == "default"
            _, _, raw = await post(server.url + "/v1/messages", {"model": "m"})
            assert json.loads(raw)["content"][0]["text"] == "a2"
            assert server.pending == 0
            assert len(server.requests_for("anthropic")) == 2

    run(scenario())


def test_judge_requests_get_the_judge_verdict() -> None:
    async def scenario() -> None:
        async with FakeServer(default_text="plain") as server:
            assert await chat_text(server, chat_body(system=JUDGE_SYSTEM)) == "plain"
            server.judge_verdict = VERDICT
            assert json.loads(await chat_text(server, chat_body(system=JUDGE_SYSTEM))) == VERDICT
            assert await chat_text(server, chat_body(system="You are helpful.")) == "plain"
            body: dict[str, Any] = {"model": "m", "system": JUDGE_SYSTEM, "messages": []}
            _, _, raw = await post(server.url + "/v1/messages", body)
            assert json.loads(json.loads(raw)["content"][0]["text"]) == VERDICT
            gemini: dict[str, Any] = {
                "systemInstruction": {"parts": [{"text": JUDGE_SYSTEM}]},
                "contents": [],
            }
            _, _, raw = await post(server.url + GEMINI, gemini)
            answer = json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"]
            assert json.loads(answer) == VERDICT
            server.enqueue(Verdict(0.5, hits=("h",), reasoning="why"))
            assert json.loads(await chat_text(server, chat_body(system=JUDGE_SYSTEM))) == {
                "score": 0.5,
                "hits": ["h"],
                "misses": [],
                "reasoning": "why",
            }

    run(scenario())


def test_responder_is_consulted_first_and_may_fall_through() -> None:
    async def scenario() -> None:
        async with FakeServer(default_text="default") as server:
            server.enqueue(Text("queued"))

            def responder(request: ReceivedRequest) -> Text | None:
                return (
                    Text("echo " + request.json["messages"][0]["content"]) if request.json else None
                )

            server.responder = responder
            assert await chat_text(server, chat_body("x")) == "echo x"
            server.responder = lambda _request: None
            assert await chat_text(server, chat_body("x")) == "queued"

            def broken(_request: ReceivedRequest) -> Text:
                raise ZeroDivisionError("responder bug")

            server.responder = broken
            status, _, raw = await post(server.url + CHAT, chat_body())
            assert status == 500
            assert "ZeroDivisionError" in json.loads(raw)["error"]["message"]
            assert len(server.errors) == 1

    run(scenario())


def test_faults_carry_status_retry_headers_and_api_shaped_bodies() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(Fault(429, retry_after=2, retry_after_ms=1500), Fault(500), Fault(503))
            status, headers, raw = await post(server.url + CHAT, chat_body())
            assert (status, headers["Retry-After"], headers["retry-after-ms"]) == (429, "2", "1500")
            assert json.loads(raw)["error"]["code"] == "rate_limit_exceeded"
            status, _, raw = await post(server.url + "/v1/messages", {"model": "m"})
            assert (status, json.loads(raw)["error"]["type"]) == (500, "api_error")
            status, _, raw = await post(server.url + GEMINI, {})
            assert (status, json.loads(raw)["error"]["status"]) == (503, "UNAVAILABLE")
            server.enqueue(
                Fault(418, body="teapot", headers={"Content-Type": "text/plain", "X-A": "b"})
            )
            status, headers, raw = await post(server.url + CHAT, chat_body())
            assert (status, raw, headers["Content-Type"], headers["X-A"]) == (
                418,
                b"teapot",
                "text/plain",
                "b",
            )

    run(scenario())


def test_stall_outlasts_the_client_timeout_and_stop_is_prompt() -> None:
    async def scenario() -> None:
        server = FakeServer()
        await server.start()
        server.enqueue(Stall(), Stall(), Stall(seconds=0.05))
        timeout = aiohttp.ClientTimeout(total=0.2)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            with pytest.raises(asyncio.TimeoutError):
                await session.post(server.url + CHAT, json=chat_body())
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
        )
        await asyncio.sleep(0.05)
        assert await chat_text(server, chat_body()) == "fake answer"  # answered after 50 ms
        started = time.monotonic()
        await server.stop()
        assert time.monotonic() - started < 1
        assert await reader.read() == b""  # the stalled connection was closed by stop()
        writer.close()

    run(scenario())


def test_drop_closes_the_connection_without_a_response() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(Drop())
            async with aiohttp.ClientSession() as session:
                with pytest.raises(aiohttp.ServerDisconnectedError):
                    await session.post(server.url + CHAT, json=chat_body())
                async with session.post(server.url + CHAT, json=chat_body()) as response:
                    assert response.status == 200  # the next request is answered normally

    run(scenario())


def test_malformed_answers_200_with_invalid_json() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            server.enqueue(Malformed(), Malformed())
            for path in (CHAT, "/v1/messages"):
                status, headers, raw = await post(server.url + path, {"model": "m"})
                assert (status, headers["Content-Type"]) == (200, "application/json")
                with pytest.raises(json.JSONDecodeError):
                    json.loads(raw)

    run(scenario())


def test_latency_applies_per_request_and_actions_override_it() -> None:
    async def scenario() -> None:
        # Wide margins: a loaded CI machine adds hundreds of milliseconds; one after another
        # would take 8 x 0.6 s, at once about 0.6 s.
        async with FakeServer(latency_ms=600) as server:
            server.enqueue(Text("fast", latency_ms=0))
            started = time.monotonic()
            await chat_text(server, chat_body())
            assert time.monotonic() - started < 0.5
            started = time.monotonic()
            await asyncio.gather(*(chat_text(server, chat_body()) for _ in range(8)))
            elapsed = time.monotonic() - started
            assert 0.6 <= elapsed < 3.0  # slept concurrently, not one after another

    run(scenario())


def test_keep_alive_serves_many_requests_on_one_connection() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            connector = aiohttp.TCPConnector(limit=1)
            async with aiohttp.ClientSession(connector=connector) as session:
                for _ in range(5):
                    async with session.post(server.url + CHAT, json=chat_body()) as response:
                        assert response.headers["Connection"] == "keep-alive"
                        await response.read()
            assert server.connections_opened == 1
            assert {request.connection_id for request in server.requests} == {1}

    run(scenario())


async def exchange(
    writer: asyncio.StreamWriter, reader: asyncio.StreamReader, raw: bytes
) -> tuple[str, bytes]:
    """Send raw request bytes; return the status line and the Content-Length body."""
    writer.write(raw)
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    length = next(
        int(line.split(":")[1])
        for line in head.split("\r\n")
        if line.lower().startswith("content-length")
    )
    return head.split("\r\n")[0], await reader.readexactly(length)


def test_chunked_bodies_and_bad_requests_on_a_raw_socket() -> None:
    async def scenario() -> None:
        async with FakeServer() as server:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            body = json.dumps(chat_body("chunky")).encode()
            chunked = b"%x\r\n%s\r\n%x;ext=1\r\n%s\r\n0\r\n\r\n" % (
                5,
                body[:5],
                len(body) - 5,
                body[5:],
            )
            head = (
                b"POST %s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" % CHAT.encode()
            )
            status, answer = await exchange(writer, reader, head + chunked)
            assert status == "HTTP/1.1 200 OK"
            assert json.loads(answer)["choices"][0]["message"]["content"] == "fake answer"
            assert server.requests[0].json == chat_body("chunky")
            status, _ = await exchange(writer, reader, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert status == "HTTP/1.1 200 OK"
            status, _ = await exchange(writer, reader, b"NONSENSE\r\n\r\n")
            assert status == "HTTP/1.1 400 Bad Request"
            assert await reader.read() == b""
            writer.close()
            assert server.connections_opened == 1

    run(scenario())


def urlopen_json(url: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_thread_backed_server_serves_synchronous_code() -> None:
    with FakeServer.in_thread(default_text="threaded") as server:
        assert server.port > 0
        server.enqueue(Text("first"), Fault(429, retry_after=1))
        server.judge_verdict = VERDICT
        assert (
            urlopen_json(server.url + CHAT, chat_body())[1]["choices"][0]["message"]["content"]
            == "first"
        )
        status, error = urlopen_json(server.url + CHAT, chat_body())
        assert (status, error["error"]["code"]) == (429, "rate_limit_exceeded")
        judged = urlopen_json(server.url + CHAT, chat_body(system=JUDGE_SYSTEM))[1]
        assert json.loads(judged["choices"][0]["message"]["content"]) == VERDICT
        assert (
            urlopen_json(server.url + CHAT, chat_body())[1]["choices"][0]["message"]["content"]
            == "threaded"
        )
        assert len(server.requests) == 4
        server.enqueue(Stall())
        url = server.url
        with pytest.raises(TimeoutError):
            urllib.request.urlopen(urllib.request.Request(url + CHAT, data=b"{}"), timeout=0.2)
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/health", timeout=1)


def test_module_entry_point_serves_until_terminated() -> None:
    command = [sys.executable, "-m", "evalwright.testing", "--port", "0", "--text", "from cli"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("listening on http://127.0.0.1:")
        url = line.removeprefix("listening on ")
        assert urlopen_json(url + "/health") == (200, {"status": "ok"})
        reply = urlopen_json(url + CHAT, chat_body())[1]
        assert reply["choices"][0]["message"]["content"] == "from cli"
    finally:
        process.terminate()
        returncode = process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
    assert returncode == 0
