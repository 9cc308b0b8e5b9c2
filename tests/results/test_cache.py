"""The response cache file: keys, round trips, and several processes opening it at once."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from evalwright.prompts import ChatMessage, DeliveryNote
from evalwright.providers.base import PreparedRequest, ProviderRequest, ProviderResponse
from evalwright.providers.wire import ChatWireRequest, Usage
from evalwright.results.cache import ResponseCache, cache_key
from evalwright.results.redact import Redactor

REQUEST = ProviderRequest(case_id="c", messages=(ChatMessage(role="user", content="hi"),))
WIRE = ChatWireRequest(
    api="openai.chat.completions", model="m", url_path="/v1/chat/completions", body={"t": 0}
)
NOTE = DeliveryNote(rule="unmatched_tool_result", detail="d")
PREPARED = PreparedRequest(REQUEST, WIRE, (NOTE,))


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
    cache.put("k1", "candidate", answer("said sk-secret-12345", "stop", usage))
    cache.put("k2", "judge", answer('{"score": 1}', None, None))
    hit = cache.get("k1", PREPARED)
    # What no request was made for: no latency, no attempt; the prepared request and notes.
    assert hit == ProviderResponse("said [REDACTED]", "stop", usage, 0.0, WIRE, (NOTE,), 0)
    assert cache.get("k2", PREPARED) == ProviderResponse(
        '{"score": 1}', None, None, 0.0, WIRE, (NOTE,), 0
    )
    assert cache.get("missing", PREPARED) is None
    stats = cache.stats()
    assert (stats["entries"], stats["candidate"], stats["judge"]) == (2, 1, 1)
    assert cache.clear() == 2
    assert cache.get("k1", PREPARED) is None
    cache.close()


def _open_and_write(directory: str, index: int, start: object) -> None:
    start.wait()  # type: ignore[attr-defined]
    cache = ResponseCache(Path(directory))
    for item in range(20):
        cache.put(f"{index}-{item}", "candidate", answer("x", None, None))
    cache.close()


def test_many_processes_open_a_new_cache_at_once(tmp_path: Path) -> None:
    """Runs started together all switch a new file to WAL mode: none may fail on the lock.

    The race does not happen every time, so two fresh caches with eight processes each."""
    context = multiprocessing.get_context("spawn")
    for round_ in range(2):
        directory = tmp_path / f"round-{round_}"
        start = context.Barrier(8)
        workers = [
            context.Process(target=_open_and_write, args=(str(directory), i, start))
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
