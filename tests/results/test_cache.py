"""The response cache file: keys, round trips, and several processes opening it at once."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import sqlite3
import threading
import time
from pathlib import Path

from evalwright.prompts import ChatMessage, DeliveryNote
from evalwright.providers.base import PreparedRequest, ProviderRequest, ProviderResponse
from evalwright.providers.wire import ChatWireRequest, Usage
from evalwright.redact import Redactor
from evalwright.results.cache import ResponseCache, cache_key

REQUEST = ProviderRequest(case_id="c", messages=(ChatMessage(role="user", content="hi"),))
WIRE = ChatWireRequest(
    api="openai.chat.completions", model="m", url_path="/v1/chat/completions", body={"t": 0}
)
NOTE = DeliveryNote(rule="unmatched_tool_result", detail="d")
PREPARED = PreparedRequest(REQUEST, WIRE, (NOTE,))
CACHED_X = ProviderResponse("x", None, None, 0.0, WIRE, (NOTE,), 0)
"""``answer("x", None, None)`` as the cache gives it back."""


def answer(text: str, finish_reason: str | None, usage: Usage | None) -> ProviderResponse:
    """A response as a target's ``send`` gives it."""
    return ProviderResponse(text, finish_reason, usage, 12.5, WIRE, (NOTE,))


def test_the_key_covers_everything_that_decides_the_answer() -> None:
    base = cache_key("candidate", "openai", "http://x/v1/chat/completions", "m", {"t": 0})
    assert base == cache_key("candidate", "openai", "http://x/v1/chat/completions", "m", {"t": 0})
    others = [
        cache_key("judge", "openai", "http://x/v1/chat/completions", "m", {"t": 0}),
        cache_key("candidate", "azure", "http://x/v1/chat/completions", "m", {"t": 0}),
        cache_key("candidate", "openai", "http://y/v1/chat/completions", "m", {"t": 0}),
        cache_key("candidate", "openai", "http://x/v1/chat/completions", "n", {"t": 0}),
        cache_key("candidate", "openai", "http://x/v1/chat/completions", "m", {"t": 1}),
    ]
    assert base not in others
    assert len(set(others)) == len(others)


def test_round_trip_stats_and_clear(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache", Redactor(["sk-secret-12345"]))
    usage = Usage(input_tokens=3, output_tokens=None)

    async def fill() -> list[ProviderResponse | None]:
        await cache.put("k1", "candidate", answer("said sk-secret-12345", "stop", usage))
        await cache.put("k2", "judge", answer('{"score": 1}', None, None))
        return [await cache.get(key, PREPARED) for key in ("k1", "k2", "missing")]

    hit, judged, missing = asyncio.run(fill())
    # What no request was made for: no latency, no attempt; the prepared request and notes.
    assert hit == ProviderResponse("said [REDACTED]", "stop", usage, 0.0, WIRE, (NOTE,), 0)
    assert judged == ProviderResponse('{"score": 1}', None, None, 0.0, WIRE, (NOTE,), 0)
    assert missing is None
    stats = cache.stats()
    assert (stats["entries"], stats["candidate"], stats["judge"]) == (2, 1, 1)
    assert cache.clear() == 2
    assert asyncio.run(cache.get("k1", PREPARED)) is None
    cache.close()
    cache.close()  # closing twice is harmless


def test_a_servers_words_are_stored_redacted(tmp_path: Path) -> None:
    """The answer and the finish reason (a server's words both), in every spelling."""
    cache = ResponseCache(tmp_path / "cache", Redactor(["sk-secret-12345"]))
    reason = "stop (key SK-SECRET-12345)"
    asyncio.run(cache.put("k1", "candidate", answer("said sk-secret-12345", reason, None)))
    hit = asyncio.run(cache.get("k1", PREPARED))
    cache.close()
    assert hit is not None
    assert (hit.text, hit.finish_reason) == ("said [REDACTED]", "stop (key [REDACTED])")
    stored = b"".join(path.read_bytes() for path in (tmp_path / "cache").iterdir())
    assert b"12345" not in stored


def _hold_write_lock(path: Path, seconds: float) -> threading.Thread:
    """Another writer (as another run would be) holding the database's lock for ``seconds``."""
    locked = threading.Event()

    def hold() -> None:
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        locked.set()
        time.sleep(seconds)
        db.execute("COMMIT")
        db.close()

    holder = threading.Thread(target=hold)
    holder.start()
    locked.wait()
    return holder


def test_a_put_waiting_for_a_lock_does_not_stall_the_event_loop(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    holder = _hold_write_lock(cache.path, 0.5)

    async def put_while_ticking() -> tuple[float, int]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.ensure_future(tick())
        started = time.monotonic()
        await cache.put("k", "candidate", answer("x", None, None))
        waited = time.monotonic() - started
        ticker.cancel()
        return waited, ticks

    waited, ticks = asyncio.run(put_while_ticking())
    holder.join()
    assert waited >= 0.4, "the put waited for the other writer"
    assert ticks >= 10, f"the loop ran on while the put waited ({ticks} ticks)"
    assert asyncio.run(cache.get("k", PREPARED)) == ProviderResponse(
        "x", None, None, 0.0, WIRE, (NOTE,), 0
    )
    cache.close()


def test_close_lets_a_started_write_finish_after_its_caller_is_cancelled(tmp_path: Path) -> None:
    """Ctrl-C cancels the run's tasks; a write already begun is finished, then the file and
    the cache's thread are closed."""
    cache = ResponseCache(tmp_path / "cache")
    holder = _hold_write_lock(cache.path, 0.3)

    async def cancelled_put() -> None:
        task = asyncio.ensure_future(cache.put("k", "candidate", answer("x", None, None)))
        await asyncio.sleep(0.1)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(cancelled_put())
    cache.close()
    holder.join()
    assert not [t for t in threading.enumerate() if t.name.startswith("evalwright-cache")]
    reopened = ResponseCache(tmp_path / "cache")
    assert asyncio.run(reopened.get("k", PREPARED)) == ProviderResponse(
        "x", None, None, 0.0, WIRE, (NOTE,), 0
    )
    reopened.close()


def open_and_write(directory: str, index: int, start: object) -> None:
    """A run of its own: open the cache once ``start`` lets it, write 20 entries, close."""
    start.wait()  # type: ignore[attr-defined]
    cache = ResponseCache(Path(directory))

    async def write() -> None:
        for item in range(20):
            await cache.put(f"{index}-{item}", "candidate", answer("x", None, None))

    asyncio.run(write())
    cache.close()


def test_many_processes_open_a_new_cache_at_once(tmp_path: Path) -> None:
    """Runs started together all switch a new file to WAL mode: none may fail on the lock.

    The race does not happen every time, so two fresh caches with eight processes each."""
    context = multiprocessing.get_context("spawn")
    for round_ in range(2):
        directory = tmp_path / f"round-{round_}"
        start = context.Barrier(8)
        workers = [
            context.Process(target=open_and_write, args=(str(directory), i, start))
            for i in range(8)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        assert [worker.exitcode for worker in workers] == [0] * 8
        cache = ResponseCache(directory)
        assert cache.stats()["entries"] == 160
        cache.close()
