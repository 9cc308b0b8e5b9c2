"""The response cache's file: its table, the checksum each entry carries, bringing an older
file up to date, and what is wrong when SQLite or the file system refuses it
(docs/running.md#when-the-cache-is-damaged-or-read-only).

An entry is replayed only when its checksum, SHA-256 over its key and everything stored for
it, matches: a flipped byte in the file gives a miss, never a wrong answer.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

CACHE_FILE = "responses.sqlite3"
SCHEMA_VERSION = 3
"""``PRAGMA user_version`` of a cache whose entries carry checksums, tool calls and reasoning;
2 is one without reasoning, 1 one without tool calls either (both brought up to date, every
entry kept); 0 is a new file, or one written before checksums."""
_COLUMNS = (
    "key",
    "namespace",
    "created",
    "text",
    "finish_reason",
    "usage",
    "checksum",
    "tool_calls",
    "reasoning",
)
_TABLE = """
CREATE TABLE responses (
    key TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    created REAL NOT NULL,
    text TEXT NOT NULL,
    finish_reason TEXT,
    usage TEXT,
    checksum TEXT NOT NULL,
    tool_calls TEXT,
    reasoning TEXT
)
"""
# Older schemas' entries, kept: they read as answers without tool calls (1) or reasoning (2).
_ADD_TOOL_CALLS = "ALTER TABLE responses ADD COLUMN tool_calls TEXT"
_ADD_REASONING = "ALTER TABLE responses ADD COLUMN reasoning TEXT"
_REQUIRED = 4  # namespace, text, finish reason, usage: always summed
# The files SQLite keeps beside the database (WAL mode, and a rollback journal after a crash).
_COMPANIONS = ("", "-wal", "-shm", "-journal")

StoredAnswer = tuple[str, str, str | None, str | None, str | None, str | None]
"""What an entry stores for its key: namespace, text, finish reason, usage as JSON, and the
answer's tool calls and reasoning as JSON (each ``None`` when it has none)."""

FaultKind = Literal["damaged", "read-only", "unavailable"]


class CacheFault(Exception):
    """Why the cache file cannot be used (``damaged``: ``cache clear`` may remove it) or
    written (``read-only``)."""

    def __init__(self, kind: FaultKind, path: Path, reason: str) -> None:
        self.kind, self.path, self.reason = kind, path, reason
        state = {"damaged": "is damaged", "read-only": "cannot be written"}
        super().__init__(
            f"the response cache {path} {state.get(kind, 'cannot be used')} ({reason})"
        )

    @property
    def remedy(self) -> str:
        """``; <what fixes it>`` where evalwright can (a damaged file), else nothing."""
        return "; `evalwright cache clear` removes it" if self.kind == "damaged" else ""


def checksum(key: str, values: Sequence[bytes | None]) -> str:
    """SHA-256 over an entry's key and the UTF-8 of what it stores, each value set apart from
    the next by its length (a NULL by a byte of its own)."""
    digest = hashlib.sha256(key.encode("utf-8"))
    for value in values:
        digest.update(b"-" if value is None else b"%d:%s" % (len(value), value))
    return digest.hexdigest()


def _summed(values: Sequence[bytes | None]) -> Sequence[bytes | None]:
    """What an entry's checksum covers of its stored values: the later columns (tool calls,
    reasoning) up to the last one that holds something, so an entry without them keeps the
    checksum an older schema gave it."""
    end = len(values)
    while end > _REQUIRED and values[end - 1] is None:
        end -= 1
    return values[:end]


def insert(db: sqlite3.Connection, key: str, created: float, stored: StoredAnswer) -> None:
    """Store an entry with its checksum, in place of any entry under the same key. Raises
    UnicodeEncodeError for a text SQLite cannot store (a lone surrogate)."""
    encoded = [None if value is None else value.encode("utf-8") for value in stored]
    namespace, text, finish_reason, usage, tool_calls, reasoning = stored
    values = (key, namespace, created, text, finish_reason, usage, checksum(key, _summed(encoded)))
    marks = ", ".join("?" * len(_COLUMNS))
    db.execute(
        f"INSERT OR REPLACE INTO responses ({', '.join(_COLUMNS)}) VALUES ({marks})",
        (*values, tool_calls, reasoning),
    )


STORED = ", ".join(
    f"CAST({column} AS BLOB)"
    for column in (
        "namespace",
        "text",
        "finish_reason",
        "usage",
        "tool_calls",
        "reasoning",
        "checksum",
    )
)
"""The columns :func:`sound` checks, in its order, as the bytes in the file: a flipped byte
that leaves a text invalid UTF-8 is a damaged entry, not an error of the whole read."""


def sound(key: str, row: tuple[Any, ...]) -> StoredAnswer | None:
    """What a row of the :data:`STORED` columns stores for ``key``, or None when it is
    damaged (a value missing, or a checksum that does not match)."""
    *values, digest = row
    if not isinstance(digest, bytes) or not all(v is None or isinstance(v, bytes) for v in values):
        return None
    if checksum(key, _summed(values)).encode("ascii") != digest:
        return None
    try:
        namespace, text, finish_reason, usage, tool_calls, reasoning = (
            None if value is None else value.decode("utf-8") for value in values
        )
    except UnicodeDecodeError:  # the checksum matched: only if it was written so
        return None
    if namespace is None or text is None:
        return None
    return (namespace, text, finish_reason, usage, tool_calls, reasoning)


def prepare(db: sqlite3.Connection, path: Path) -> int:
    """Make the file a cache of this version; returns how many entries written before
    checksums were dropped (they cannot be checked). Raises :class:`CacheFault` for a file
    of a newer evalwright, or a table that is not ours."""
    version, dropped = db.execute("PRAGMA user_version").fetchone()[0], 0
    if version < SCHEMA_VERSION:
        version, dropped = _upgrade(db)
    if version > SCHEMA_VERSION:
        reason = f"written by a newer evalwright: schema {version}, this one reads {SCHEMA_VERSION}"
        raise CacheFault("damaged", path, reason)
    columns = tuple(row[1] for row in db.execute("PRAGMA table_info(responses)"))
    if columns != _COLUMNS:
        raise CacheFault("damaged", path, f"its table has columns {list(columns)}")
    return dropped


def _upgrade(db: sqlite3.Connection) -> tuple[int, int]:
    """Under the write lock (two runs may start at once): add the columns of tool calls
    (schema 1) and reasoning (schemas 1 and 2), or create the table, first dropping one
    written before checksums. The version found, and the entries dropped (0 when another run
    had already brought the file up to date)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version >= SCHEMA_VERSION:
            db.execute("COMMIT")
            return version, 0
        old = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'responses'").fetchone()
        dropped = 0
        if version in (1, 2) and old:
            if version == 1:
                db.execute(_ADD_TOOL_CALLS)
            db.execute(_ADD_REASONING)
        else:
            dropped = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] if old else 0
            db.execute("DROP TABLE IF EXISTS responses")
            db.execute(_TABLE)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return SCHEMA_VERSION, dropped


def fault_of(error: sqlite3.Error | OSError, path: Path) -> CacheFault:
    """What ``error``, raised using the cache at ``path``, says is wrong."""
    if isinstance(error, OSError):
        if isinstance(error, FileExistsError) and error.filename == str(path.parent):
            return CacheFault("unavailable", path, f"{path.parent} is not a directory")
        return CacheFault("unavailable", path, f"cannot create {error.filename}: {error.strerror}")
    code = getattr(error, "sqlite_errorcode", -1) & 0xFF
    if code == sqlite3.SQLITE_READONLY:
        reason = f"{error}: SQLite writes the file and creates its -wal and -shm files beside it"
        return CacheFault("read-only", path, reason)
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return CacheFault("damaged", path, str(error))
    if code == sqlite3.SQLITE_CANTOPEN and path.is_dir():
        return CacheFault("unavailable", path, "it is a directory, not a file")
    return CacheFault("unavailable", path, str(error))


def remove(path: Path) -> None:
    """Delete the database and the files SQLite keeps beside it (raises OSError)."""
    for suffix in _COMPANIONS:
        path.with_name(path.name + suffix).unlink(missing_ok=True)
