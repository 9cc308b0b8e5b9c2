"""A damaged cache file cannot lie or raise
(docs/running.md#when-the-cache-is-damaged-or-read-only): each entry's checksum is checked on
read, a damaged entry is a counted miss replaced when its answer is stored again, and a file
that cannot be a cache turns the cache off with one warning. Real SQLite files, damaged as a
disk or an old version would leave them; the read-only layouts need a process without root's
powers: tests/e2e/test_cache_faults.py runs them."""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from evalwright.providers.base import ProviderResponse
from evalwright.results.cache import CACHE_FILE, ResponseCache
from evalwright.results.cache_schema import SCHEMA_VERSION
from tests.results.test_cache import PREPARED, answer, open_and_write

ENTRIES = 200
PAGE = 4096  # SQLite's default page size; the first page holds the header and the schema


def text_of(index: int) -> str:
    """The answer stored under ``k{index}``, different for every entry."""
    return f"answer number {index}, " * 6


def replayed(index: int) -> ProviderResponse:
    """What a sound read of ``k{index}`` gives back."""
    return ProviderResponse(text_of(index), "stop", None, 0.0, PREPARED.wire, PREPARED.notes, 0)


def filled(directory: Path, count: int = ENTRIES) -> Path:
    """A closed cache of ``count`` entries; its file."""
    cache = ResponseCache(directory)

    async def fill() -> None:
        for index in range(count):
            await cache.put(f"k{index}", "candidate", answer(text_of(index), "stop", None))

    asyncio.run(fill())
    cache.close()
    return cache.path


def read_all(cache: ResponseCache, count: int = ENTRIES) -> list[ProviderResponse | None]:
    """Every entry read as a run reads it, in one turn of the loop."""

    async def read() -> list[ProviderResponse | None]:
        return list(await asyncio.gather(*(cache.get(f"k{i}", PREPARED) for i in range(count))))

    return asyncio.run(read())


def flip_bytes(path: Path, count: int, seed: int, start: int = PAGE) -> None:
    """Flip one bit in each of ``count`` random bytes of ``path`` from ``start`` on."""
    data = bytearray(path.read_bytes())
    chance = random.Random(seed)
    for _ in range(count):
        data[chance.randrange(start, len(data))] ^= 1 << chance.randrange(8)
    path.write_bytes(data)


@pytest.mark.parametrize("seed", range(6))
def test_300_flipped_bytes_never_replay_a_wrong_answer(tmp_path: Path, seed: int) -> None:
    path = filled(tmp_path / "cache")
    flip_bytes(path, 300, seed)
    cache = ResponseCache(tmp_path / "cache")

    answers = read_all(cache)

    wrong = [i for i, hit in enumerate(answers) if hit is not None and hit != replayed(i)]
    assert wrong == [], f"entries {wrong} replayed a damaged answer"
    assert answers.count(None) > 0, "the damage was seen"
    warnings = cache.warnings()
    assert 1 <= len(warnings) <= 2  # damaged entries counted, and the file if SQLite refused it
    assert all(str(path) in line for line in warnings)
    cache.close()


def _flip_in_place(path: Path, text: str, new: bytes) -> None:
    """Replace the first byte of ``text`` in the file by ``new``, as a disk error would."""
    data = path.read_bytes()
    at = data.index(text.encode())
    path.write_bytes(data[:at] + new + data[at + 1 :])


def test_a_damaged_entry_is_a_counted_miss_replaced_when_stored_again(tmp_path: Path) -> None:
    path = filled(tmp_path / "cache")
    _flip_in_place(path, text_of(7), b"A")  # still valid text: only the checksum tells
    _flip_in_place(path, text_of(9), b"\xff")  # not UTF-8 any more
    cache = ResponseCache(tmp_path / "cache")

    answers = read_all(cache)

    assert [i for i, hit in enumerate(answers) if hit != replayed(i)] == [7, 9]
    assert answers[7] is None
    assert answers[9] is None
    assert cache.usable
    assert cache.damaged == 2
    assert cache.warnings() == [
        f"2 damaged entries in the response cache {path} (checksum mismatch): asked again, "
        "not replayed"
    ]
    assert cache.stats()["damaged"] == 2

    async def store_again() -> None:
        for index in (7, 9):
            await cache.put(f"k{index}", "candidate", answer(text_of(index), "stop", None))

    asyncio.run(store_again())
    assert read_all(cache) == [replayed(i) for i in range(ENTRIES)]
    assert cache.stats()["damaged"] == 0
    cache.close()


def _garbage(path: Path) -> None:
    path.write_bytes(random.Random(0).randbytes(3 * PAGE))


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: PAGE + 1000])


def _zeroed_header(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(bytes(100) + data[100:])


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_garbage, "file is not a database"),
        (_truncated, "database disk image is malformed"),
        (_zeroed_header, "file is not a database"),
    ],
)
def test_a_file_that_is_not_a_database_turns_the_cache_off(
    tmp_path: Path, damage: Callable[[Path], None], reason: str
) -> None:
    path = filled(tmp_path / "cache")
    damage(path)
    before = path.read_bytes()
    cache = ResponseCache(tmp_path / "cache")

    assert read_all(cache) == [None] * ENTRIES
    asyncio.run(cache.put("k0", "candidate", answer("new", None, None)))

    assert not cache.usable
    assert cache.warnings() == [
        f"the response cache {path} is damaged ({reason}): the run went on without it; "
        "`evalwright cache clear` removes it"
    ]
    cache.close()
    assert path.read_bytes() == before, "a damaged file is left as it was"


def test_damaged_wal_and_shm_files_give_sound_answers_or_misses(tmp_path: Path) -> None:
    """A run killed while it wrote leaves -wal and -shm files beside the database: damaged,
    SQLite drops the WAL frames whose checksums fail."""
    path = filled(tmp_path / "cache", ENTRIES // 2)
    live = ResponseCache(tmp_path / "cache")
    live_db = sqlite3.connect(path)  # holds the WAL open: it is not checkpointed away
    live_db.execute("PRAGMA wal_autocheckpoint = 0")

    async def more() -> None:
        for index in range(ENTRIES // 2, ENTRIES):
            await live.put(f"k{index}", "candidate", answer(text_of(index), "stop", None))

    asyncio.run(more())
    crashed = tmp_path / "crashed"
    shutil.copytree(tmp_path / "cache", crashed)
    live.close()
    live_db.close()
    wal, shm = (crashed / (CACHE_FILE + suffix) for suffix in ("-wal", "-shm"))
    assert wal.stat().st_size > 0
    flip_bytes(wal, 300, seed=1, start=0)
    shm.write_bytes(random.Random(2).randbytes(shm.stat().st_size))
    cache = ResponseCache(crashed)

    answers = read_all(cache)

    assert all(hit in (None, replayed(i)) for i, hit in enumerate(answers))
    assert answers[: ENTRIES // 2] == [replayed(i) for i in range(ENTRIES // 2)]
    assert cache.usable
    assert cache.warnings() == []
    cache.close()


def test_a_directory_at_the_files_place_turns_the_cache_off(tmp_path: Path) -> None:
    (tmp_path / "cache" / CACHE_FILE).mkdir(parents=True)
    cache = ResponseCache(tmp_path / "cache")
    assert read_all(cache, 3) == [None] * 3
    asyncio.run(cache.put("k0", "candidate", answer("new", None, None)))
    assert cache.warnings() == [
        f"the response cache {cache.path} cannot be used (it is a directory, not a file): "
        "the run went on without it"
    ]
    cache.close()


@pytest.mark.parametrize("where", ["cache", "parent"])
def test_a_cache_directory_that_cannot_be_made_turns_the_cache_off(
    tmp_path: Path, where: str
) -> None:
    """The cache directory is a file; or its parent is, so it cannot be created."""
    (tmp_path / where).write_text("not a directory\n")
    directory = tmp_path / "cache" if where == "cache" else tmp_path / "parent" / "cache"
    cache = ResponseCache(directory)
    assert read_all(cache, 3) == [None] * 3
    asyncio.run(cache.put("k0", "candidate", answer("new", None, None)))
    reason = (
        f"{directory} is not a directory"
        if where == "cache"
        else f"cannot create {directory}: Not a directory"
    )
    assert cache.warnings() == [
        f"the response cache {cache.path} cannot be used ({reason}): the run went on without it"
    ]
    cache.close()
    assert (tmp_path / where).read_text() == "not a directory\n"


def old_file(directory: Path, count: int) -> Path:
    """A cache as evalwright wrote it before checksums (no checksum column, user_version 0)."""
    path = filled(directory, count)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("ALTER TABLE responses DROP COLUMN checksum")
    db.execute("PRAGMA user_version = 0")
    db.close()
    return path


def test_a_file_written_before_checksums_is_brought_up_to_date_once(tmp_path: Path) -> None:
    path = old_file(tmp_path / "cache", 5)
    cache = ResponseCache(tmp_path / "cache")

    assert read_all(cache, 5) == [None] * 5, "entries that cannot be checked are not replayed"
    assert cache.warnings() == [
        f"the response cache {path} was written by an earlier evalwright, without checksums: "
        "5 entries dropped, to be asked again"
    ]
    asyncio.run(cache.put("k0", "candidate", answer(text_of(0), "stop", None)))
    cache.close()

    again = ResponseCache(tmp_path / "cache")
    assert read_all(again, 2) == [replayed(0), None]
    assert again.warnings() == []
    again.close()


def test_many_processes_bring_an_old_file_up_to_date_at_once(tmp_path: Path) -> None:
    """Runs started together on an old file: one drops its table, none fails or loses the
    entries another wrote after it."""
    old_file(tmp_path / "cache", 50)
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(6)
    workers = [
        context.Process(target=open_and_write, args=(str(tmp_path / "cache"), i, start))
        for i in range(6)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0] * 6
    cache = ResponseCache(tmp_path / "cache")
    assert cache.stats()["entries"] == 6 * 20
    cache.close()


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            f"PRAGMA user_version = {SCHEMA_VERSION + 1}",
            f"written by a newer evalwright: schema {SCHEMA_VERSION + 1}, "
            f"this one reads {SCHEMA_VERSION}",
        ),
        (
            "ALTER TABLE responses RENAME COLUMN text TO answer",
            "its table has columns ['key', 'namespace', 'created', 'answer', 'finish_reason', "
            "'usage', 'checksum', 'tool_calls', 'reasoning']",
        ),
    ],
)
def test_a_file_of_another_layout_turns_the_cache_off(
    tmp_path: Path, change: str, reason: str
) -> None:
    path = filled(tmp_path / "cache", 3)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(change)
    db.close()
    cache = ResponseCache(tmp_path / "cache")
    assert read_all(cache, 3) == [None] * 3
    assert cache.warnings() == [
        f"the response cache {path} is damaged ({reason}): the run went on without it; "
        "`evalwright cache clear` removes it"
    ]
    cache.close()


def test_an_answer_sqlite_cannot_hold_is_not_stored_and_fails_nothing(tmp_path: Path) -> None:
    """A lone surrogate (JSON's ``"\\ud800"``) has no UTF-8: the answer is asked again next
    time, the other writes go on."""
    cache = ResponseCache(tmp_path / "cache")

    async def store() -> None:
        await cache.put("k0", "candidate", answer("half a pair: \ud800", "stop", None))
        await cache.put("k1", "candidate", answer(text_of(1), "stop", None))

    asyncio.run(store())
    assert read_all(cache, 2) == [None, replayed(1)]
    assert cache.usable
    assert cache.warnings() == []
    cache.close()
