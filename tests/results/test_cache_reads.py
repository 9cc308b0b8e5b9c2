"""Reads of the response cache asked in one turn of the event loop go to the cache's thread
together (docs/running.md#the-response-cache): each caller gets its own answer, exactly as a
read on its own would, and an entry that cannot be read fails its own read alone."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from evalwright.providers.base import PreparedRequest, ProviderResponse
from evalwright.results.cache import ResponseCache
from tests.results.test_cache import PREPARED, answer

KEYS = [f"k{i}" for i in range(40)]


class _CountingCache(ResponseCache):
    """A cache that counts its trips to its thread for reads."""

    trips = 0

    def _get_many(
        self, asked: list[tuple[str, PreparedRequest]]
    ) -> list[ProviderResponse | Exception | None]:
        self.trips += 1
        return super()._get_many(asked)


def _filled(tmp_path: Path) -> _CountingCache:
    cache = _CountingCache(tmp_path / "cache")

    async def fill() -> None:
        for index, key in enumerate(KEYS):
            if index % 3:
                await cache.put(key, "candidate", answer(f"answer {index}", "stop", None))

    asyncio.run(fill())
    return cache


def test_reads_asked_together_get_what_reads_alone_get_in_one_trip(tmp_path: Path) -> None:
    cache = _filled(tmp_path)

    async def alone() -> list[object]:
        return [await cache.get(key, PREPARED) for key in KEYS]

    async def together() -> list[object]:
        return list(await asyncio.gather(*(cache.get(key, PREPARED) for key in KEYS)))

    one_by_one = asyncio.run(alone())
    assert cache.trips == len(KEYS)
    cache.trips = 0
    assert asyncio.run(together()) == one_by_one
    assert cache.trips == 1
    assert sum(hit is not None for hit in one_by_one) == len([i for i in range(40) if i % 3])
    cache.close()


def test_a_damaged_entry_is_a_miss_of_its_own_read_only(tmp_path: Path) -> None:
    cache = _filled(tmp_path)
    db = sqlite3.connect(cache.path, isolation_level=None)
    db.execute("UPDATE responses SET usage = 'not json' WHERE key = 'k1'")
    db.close()

    async def together() -> list[object]:
        reads = (cache.get(key, PREPARED) for key in ("k1", "k2", "k0"))
        return list(await asyncio.gather(*reads, return_exceptions=True))

    broken, fine, missing = asyncio.run(together())
    assert broken is None
    assert cache.damaged == 1
    assert fine == ProviderResponse("answer 2", "stop", None, 0.0, PREPARED.wire, PREPARED.notes, 0)
    assert missing is None
    cache.close()


def test_a_read_left_by_a_stopped_loop_does_not_hold_up_the_next_loop(tmp_path: Path) -> None:
    cache = _filled(tmp_path)
    stopped = asyncio.new_event_loop()

    reads: list[asyncio.Task[ProviderResponse | None]] = []

    async def ask_and_stop() -> None:
        reads.append(asyncio.ensure_future(cache.get("k1", PREPARED)))
        await asyncio.sleep(0)  # the read is asked; the loop stops before reading it
        stopped.stop()

    stopper = stopped.create_task(ask_and_stop())
    stopped.run_forever()
    assert stopper.done()
    assert not reads[0].done()
    stopped.close()

    async def read() -> ProviderResponse | None:
        return await asyncio.wait_for(cache.get("k2", PREPARED), 5)

    assert asyncio.run(read()) is not None
    cache.close()
