"""The response cache: SQLite under ``<root>/.evalwright/cache/``.

The key hashes the provider kind, endpoint, model and the full wire body, so any change to
what is sent (temperature, system prompt, a message) is a different entry. Candidate and
judge answers are kept apart. WAL mode and a busy timeout make concurrent writers and two
runs at once safe.

A cache cannot lie or stop a run (docs/running.md#when-the-cache-is-damaged-or-read-only): an
entry whose checksum does not match is a miss, counted; a file that cannot be opened or read
turns the cache off, and one that cannot be written keeps it for reading. :meth:`warnings`
says what happened, once.

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
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter

from evalwright import logs
from evalwright.providers.base import PreparedRequest, ProviderResponse
from evalwright.providers.wire import AnswerToolCall, Usage
from evalwright.records import ReasoningPart
from evalwright.redact import Redactor
from evalwright.results.cache_schema import (
    CACHE_FILE,
    STORED,
    CacheFault,
    StoredAnswer,
    fault_of,
    insert,
    prepare,
    sound,
)

T = TypeVar("T")
logger = logging.getLogger(__name__)

__all__ = ["CACHE_FILE", "CacheFault", "ResponseCache", "cache_key"]


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
    The cache never raises for its file: :attr:`fault` says why it is off (then every read
    is a miss and nothing is written), :attr:`read_only` why answers are no longer stored.
    """

    def __init__(self, directory: Path, redact: Redactor | None = None) -> None:
        self.path = directory / CACHE_FILE
        self.redact = redact or Redactor()
        self.fault: CacheFault | None = None
        self.read_only: CacheFault | None = None
        self.damaged = 0  # entries read whose checksum did not match
        self.unstored = 0  # answers not written because the file is read-only
        self.dropped = 0  # entries of a file written before checksums
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalwright-cache")
        self._closed = False
        self._db: sqlite3.Connection | None = None
        # Reads asked in this turn of the event loop, made together at its end.
        self._reads: list[tuple[str, PreparedRequest, asyncio.Future[ProviderResponse | None]]] = []
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.fault = fault_of(exc, self.path)
            return
        try:
            self._db = self._thread.submit(self._open).result()
        except BaseException:
            self._thread.shutdown(wait=False)
            raise

    @property
    def usable(self) -> bool:
        """Whether answers may still be read from the file."""
        return self.fault is None

    def _fail(self, error: sqlite3.Error | CacheFault) -> CacheFault:
        """Turn the cache off for what ``error`` says (the first fault is the one told)."""
        if self.fault is None:
            self.fault = error if isinstance(error, CacheFault) else fault_of(error, self.path)
            logger.debug("cache off: %s", self.fault)
        return self.fault

    def _open(self) -> sqlite3.Connection | None:
        """The connection (made on the cache's thread, the only one that may use it), or None
        with :attr:`fault` set when the file cannot be a cache."""
        try:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            self._fail(exc)
            return None
        try:
            self._set_up(db)
        except (sqlite3.Error, CacheFault) as exc:
            db.close()
            self._fail(exc)
            return None
        return db

    def _set_up(self, db: sqlite3.Connection) -> None:
        """WAL mode and the table of this version. Switching a new file to WAL needs a lock
        SQLite does not wait for, so two runs starting at once take turns here."""
        deadline = time.monotonic() + 30
        while True:
            try:
                if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                self.dropped = prepare(db, self.path)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    async def _run(self, work: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, work, *args)

    def _wait(self, work: Callable[..., T], *args: Any) -> T:
        return self._thread.submit(work, *args).result()

    async def get(self, key: str, prepared: PreparedRequest) -> ProviderResponse | None:
        """The stored answer for ``key`` as the response to ``prepared``, if there is one:
        no request was made for it (``attempts`` 0, ``latency_ms`` 0). A miss when the entry
        is damaged or the cache is off."""
        if self.fault is not None:
            return None
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
        """Each read's answer, or the unforeseen error of that read alone (it fails its
        case, not the reads asked with it)."""
        answers: list[ProviderResponse | Exception | None] = []
        for key, prepared in asked:
            try:
                answers.append(self._get(key, prepared))
            except Exception as exc:  # handed to that read's caller
                answers.append(exc)
        return answers

    async def put(self, key: str, namespace: str, response: ProviderResponse) -> None:
        """Store an answer's text, finish reason and usage (redacted, like everything
        written to disk) with their checksum, in place of a damaged entry under ``key``."""
        if self.fault is not None:
            return
        await self._run(self._put, key, namespace, response)
        logger.debug("%scache write %s (%s)", logs.context(), key[:16], namespace)

    def _get(self, key: str, prepared: PreparedRequest) -> ProviderResponse | None:
        if self._db is None or self.fault is not None:  # turned off by an earlier read
            return None
        try:
            query = f"SELECT {STORED} FROM responses WHERE key = ?"
            row = self._db.execute(query, (key,)).fetchone()
        except sqlite3.Error as exc:
            self._fail(exc)
            return None
        if row is None:
            return None
        stored = sound(key, row)
        hit = None if stored is None else _replayed(stored, prepared)
        if hit is None:
            self.damaged += 1
            logger.debug("cache entry %s damaged: asked again", key[:16])
        return hit

    def _put(self, key: str, namespace: str, response: ProviderResponse) -> None:
        if self._db is None or self.fault is not None:
            return
        if self.read_only is not None:
            self.unstored += 1
            return
        usage = json.dumps(response.usage.model_dump(mode="json")) if response.usage else None
        # The three columns of a server's words (usage holds only numbers).
        text = self.redact(response.text)
        reason = None if response.finish_reason is None else self.redact(response.finish_reason)
        calls = _calls_json(response.tool_calls)
        thought = _reasoning_json(response.reasoning)
        stored = (
            namespace,
            text,
            reason,
            usage,
            None if calls is None else self.redact(calls),
            None if thought is None else self.redact(thought),
        )
        try:
            insert(self._db, key, time.time(), stored)
        except UnicodeEncodeError:  # an answer SQLite cannot hold as text: asked again next time
            logger.debug("cache entry %s not stored: not UTF-8", key[:16])
        except sqlite3.Error as exc:
            fault = fault_of(exc, self.path)
            if fault.kind != "read-only":
                self._fail(fault)
                return
            self.read_only = fault
            self.unstored += 1

    def stats(self) -> dict[str, Any]:
        """Entries per namespace, the damaged ones apart, and the files' size. Raises
        :class:`CacheFault` when the file cannot be read."""
        counts = self._wait(self._counts)
        size = sum(p.stat().st_size for p in self.path.parent.glob(CACHE_FILE + "*"))
        return {
            "path": str(self.path),
            "entries": counts.total(),
            "candidate": counts["candidate"],
            "judge": counts["judge"],
            "damaged": counts[None],
            "bytes": size,
        }

    def _counts(self) -> Counter[str | None]:
        """Every entry checked: sound ones counted by namespace, damaged ones under None."""
        if self._db is None or self.fault is not None:
            raise self.fault or CacheFault("unavailable", self.path, "closed")
        counts: Counter[str | None] = Counter()
        try:
            for key, *row in self._db.execute(f"SELECT key, {STORED} FROM responses"):
                stored = sound(key, tuple(row)) if isinstance(key, str) else None
                counts[stored[0] if stored else None] += 1
        except sqlite3.Error as exc:
            raise self._fail(exc) from exc
        return counts

    def clear(self) -> int:
        """Delete every entry; returns how many there were. Raises :class:`CacheFault` when
        the file cannot be emptied."""
        return self._wait(self._clear)

    def _clear(self) -> int:
        if self._db is None or self.fault is not None:
            raise self.fault or CacheFault("unavailable", self.path, "closed")
        try:
            removed = self._db.execute("DELETE FROM responses").rowcount
            self._db.execute("VACUUM")
        except sqlite3.Error as exc:
            raise self._fail(exc) from exc
        return removed

    def warnings(self) -> list[str]:
        """What went wrong with the file, one line each, for the end of a run."""
        told: list[str] = []
        if self.dropped:
            told.append(
                f"the response cache {self.path} was written by an earlier evalwright, "
                f"without checksums: {_entries(self.dropped)} dropped, to be asked again"
            )
        if self.damaged:
            told.append(
                f"{_entries(self.damaged, 'damaged ')} in the response cache {self.path} "
                "(checksum mismatch): asked again, not replayed"
            )
        if self.fault is not None:
            told.append(f"{self.fault}: the run went on without it{self.fault.remedy}")
        elif self.read_only is not None:
            told.append(
                f"{self.read_only}: answers were read from it, {self.unstored} new one(s) "
                "not stored"
            )
        return told

    def close(self) -> None:
        """Let the calls already made finish, then close the database and its thread."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._db is not None:
                self._thread.submit(self._db.close)
        finally:
            self._thread.shutdown(wait=True)


def _replayed(stored: StoredAnswer, prepared: PreparedRequest) -> ProviderResponse | None:
    """A sound entry as the response to ``prepared`` (None if its usage or tool calls do
    not parse)."""
    _, text, finish_reason, usage, tool_calls, reasoning = stored
    try:
        parsed = Usage.model_validate(json.loads(usage)) if usage else None
        calls = _TOOL_CALLS.validate_json(tool_calls) if tool_calls else ()
        thought = _REASONING.validate_json(reasoning) if reasoning else ()
    except ValueError:
        return None
    return ProviderResponse(
        text,
        finish_reason,
        parsed,
        0.0,
        prepared.wire,
        prepared.notes,
        attempts=0,
        tool_calls=calls,
        reasoning=thought,
    )


_TOOL_CALLS = TypeAdapter(tuple[AnswerToolCall, ...])
_REASONING = TypeAdapter(tuple[ReasoningPart, ...])


def _reasoning_json(parts: tuple[ReasoningPart, ...]) -> str | None:
    """An answer's reasoning as the JSON its entry stores, ``None`` when it has none."""
    if not parts:
        return None
    return json.dumps([part.model_dump(mode="json") for part in parts], ensure_ascii=False)


def _calls_json(calls: tuple[AnswerToolCall, ...]) -> str | None:
    """An answer's tool calls as the JSON its entry stores, ``None`` when it has none."""
    if not calls:
        return None
    # json.dumps, not pydantic's: a lone surrogate then fails in ``insert`` as any text does.
    return json.dumps([call.model_dump(mode="json") for call in calls], ensure_ascii=False)


def _entries(count: int, kind: str = "") -> str:
    return f"{count} {kind}{'entry' if count == 1 else 'entries'}"
