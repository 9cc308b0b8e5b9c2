"""The response cache: SQLite under ``<root>/.evalwright/cache/``.

The key hashes the provider kind, endpoint, model and the full wire body, so any change to
what is sent (temperature, system prompt, a message) is a different entry. Candidate and
judge answers are kept apart. WAL mode and a busy timeout make concurrent writers and two
runs at once safe.

The database is used from one thread of its own, which owns the connection: a run awaits
:meth:`ResponseCache.get` and :meth:`ResponseCache.put`, so a slow disk or a busy lock held
by another run never stalls the event loop. The reads asked in one turn of the event loop go
to that thread together: a trip to the thread and back costs more than the read itself, and a
cached rerun asks for one read a case.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from evalwright import logs
from evalwright.providers.base import PreparedRequest, ProviderResponse
from evalwright.providers.wire import Usage
from evalwright.results.redact import Redactor

T = TypeVar("T")
logger = logging.getLogger(__name__)

CACHE_FILE = "responses.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    created REAL NOT NULL,
    text TEXT NOT NULL,
    finish_reason TEXT,
    usage TEXT
)
"""


def cache_key(
    namespace: str,
    kind: str,
    endpoint: str,
    model: str,
    body: dict[str, Any],
    *,
    repeat: int = 0,
) -> str:
    """A stable hash of everything that decides the answer. A repeat after the first
    (docs/running.md#repeats-and-reliability) is its own entry; the first keeps the key a
    run without repeats has, so turning repeats on reuses what is cached."""
    parts: list[Any] = [namespace, kind, endpoint, model, body]
    if repeat > 0:
        parts.append({"repeat": repeat})
    material = json.dumps(
        parts,
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class ResponseCache:
    """A SQLite file of answers, shared by every run of a project.

    Every statement runs on the cache's own thread (the connection refuses any other), in
    the order the calls were made. :meth:`close` lets the writes already asked for finish.
    """

    def __init__(self, directory: Path, redact: Redactor | None = None) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / CACHE_FILE
        self.redact = redact or Redactor()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalwright-cache")
        self._closed = False
        # Reads asked in this turn of the event loop, made together at its end.
        self._reads: list[tuple[str, PreparedRequest, asyncio.Future[ProviderResponse | None]]] = []
        try:
            self._db = self._thread.submit(self._open).result()
        except BaseException:
            self._thread.shutdown(wait=False)
            raise

    def _open(self) -> sqlite3.Connection:
        """The connection (made on the cache's thread, the only one that may use it), in WAL
        mode with the table. Switching a new file to WAL needs a lock SQLite does not wait
        for, so two runs starting at once take turns here."""
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        deadline = time.monotonic() + 30
        while True:
            try:
                if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute(_SCHEMA)
                return db
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    db.close()
                    raise
                time.sleep(0.02)

    async def _run(self, work: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, work, *args)

    def _wait(self, work: Callable[..., T], *args: Any) -> T:
        return self._thread.submit(work, *args).result()

    async def get(self, key: str, prepared: PreparedRequest) -> ProviderResponse | None:
        """The stored answer for ``key`` as the response to ``prepared``, if there is one:
        no request was made for it (``attempts`` 0, ``latency_ms`` 0)."""
        loop = asyncio.get_running_loop()
        found: asyncio.Future[ProviderResponse | None] = loop.create_future()
        if self._reads and self._reads[0][2].get_loop() is not loop:
            self._reads = []  # left by an event loop that stopped before reading them
        if not self._reads:
            loop.call_soon(self._read_together)
        self._reads.append((key, prepared, found))
        hit = await found
        logger.debug("%scache %s %s", logs.context(), "hit" if hit else "miss", key[:16])
        return hit

    def _read_together(self) -> None:
        """Send the reads asked in this loop turn to the cache's thread in one trip."""
        reads, self._reads = self._reads, []
        asked = [(key, prepared) for key, prepared, _ in reads]
        try:
            done = asyncio.wrap_future(self._thread.submit(self._get_many, asked))
        except RuntimeError as exc:  # the cache was closed meanwhile
            for _, _, found in reads:
                if not found.done():
                    found.set_exception(exc)
            return

        def answer(done: asyncio.Future[list[ProviderResponse | Exception | None]]) -> None:
            error = done.exception() if not done.cancelled() else asyncio.CancelledError()
            for index, (_, _, found) in enumerate(reads):
                if found.done():  # its caller was cancelled meanwhile
                    continue
                result = error if error is not None else done.result()[index]
                if isinstance(result, BaseException):
                    found.set_exception(result)
                else:
                    found.set_result(result)

        done.add_done_callback(answer)

    def _get_many(
        self, asked: list[tuple[str, PreparedRequest]]
    ) -> list[ProviderResponse | Exception | None]:
        """Each read's answer, or the error of that read alone (a bad entry fails its case,
        not the reads asked with it)."""
        answers: list[ProviderResponse | Exception | None] = []
        for key, prepared in asked:
            try:
                answers.append(self._get(key, prepared))
            except Exception as exc:  # handed to that read's caller
                answers.append(exc)
        return answers

    async def put(self, key: str, namespace: str, response: ProviderResponse) -> None:
        """Store an answer's text, finish reason and usage (redacted, like everything
        written to disk)."""
        await self._run(self._put, key, namespace, response)
        logger.debug("%scache write %s (%s)", logs.context(), key[:16], namespace)

    def _get(self, key: str, prepared: PreparedRequest) -> ProviderResponse | None:
        row = self._db.execute(
            "SELECT text, finish_reason, usage FROM responses WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        usage = Usage.model_validate(json.loads(row[2])) if row[2] else None
        return ProviderResponse(
            row[0], row[1], usage, 0.0, prepared.wire, prepared.notes, attempts=0
        )

    def _put(self, key: str, namespace: str, response: ProviderResponse) -> None:
        usage = json.dumps(response.usage.model_dump(mode="json")) if response.usage else None
        # The two columns of a server's words (usage holds only numbers).
        text = self.redact(response.text)
        reason = None if response.finish_reason is None else self.redact(response.finish_reason)
        self._db.execute(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
            (key, namespace, time.time(), text, reason, usage),
        )

    def stats(self) -> dict[str, Any]:
        """Entries per namespace and the file's size."""
        counts: dict[str, int] = dict(self._wait(self._counts))
        size = sum(p.stat().st_size for p in self.path.parent.glob(CACHE_FILE + "*"))
        return {
            "path": str(self.path),
            "entries": sum(counts.values()),
            "candidate": counts.get("candidate", 0),
            "judge": counts.get("judge", 0),
            "bytes": size,
        }

    def _counts(self) -> list[tuple[str, int]]:
        query = "SELECT namespace, COUNT(*) FROM responses GROUP BY namespace"
        return self._db.execute(query).fetchall()

    def clear(self) -> int:
        """Delete every entry; returns how many there were."""
        return self._wait(self._clear)

    def _clear(self) -> int:
        removed = self._db.execute("DELETE FROM responses").rowcount
        self._db.execute("VACUUM")
        return removed

    def close(self) -> None:
        """Let the calls already made finish, then close the database and its thread."""
        if self._closed:
            return
        self._closed = True
        try:
            self._thread.submit(self._db.close)
        finally:
            self._thread.shutdown(wait=True)
