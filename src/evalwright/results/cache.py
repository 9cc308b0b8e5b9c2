"""The response cache: SQLite under ``<root>/.evalwright/cache/``.

The key hashes the provider kind, endpoint, model and the full wire body, so any change to
what is sent (temperature, system prompt, a message) is a different entry. Candidate and
judge answers are kept apart. WAL mode and a busy timeout make concurrent writers and two
runs at once safe.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from evalwright.providers.base import PreparedRequest, ProviderResponse
from evalwright.providers.wire import Usage
from evalwright.results.redact import Redactor

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


def cache_key(namespace: str, kind: str, endpoint: str, model: str, body: dict[str, Any]) -> str:
    """A stable hash of everything that decides the answer."""
    material = json.dumps(
        [namespace, kind, endpoint, model, body],
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class ResponseCache:
    """A SQLite file of answers, shared by every run of a project."""

    def __init__(self, directory: Path, redact: Redactor | None = None) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / CACHE_FILE
        self.redact = redact or Redactor()
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self._prepare()

    def _prepare(self) -> None:
        """WAL mode and the table. Switching a new file to WAL needs a lock SQLite does not
        wait for, so two runs starting at once take turns here."""
        deadline = time.monotonic() + 30
        while True:
            try:
                if self._db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute(_SCHEMA)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def get(self, key: str, prepared: PreparedRequest) -> ProviderResponse | None:
        """The stored answer for ``key`` as the response to ``prepared``, if there is one:
        no request was made for it (``attempts`` 0, ``latency_ms`` 0)."""
        row = self._db.execute(
            "SELECT text, finish_reason, usage FROM responses WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        usage = Usage.model_validate(json.loads(row[2])) if row[2] else None
        return ProviderResponse(
            row[0], row[1], usage, 0.0, prepared.wire, prepared.notes, attempts=0
        )

    def put(self, key: str, namespace: str, response: ProviderResponse) -> None:
        """Store an answer's text, finish reason and usage (redacted, like everything
        written to disk)."""
        usage = json.dumps(response.usage.model_dump(mode="json")) if response.usage else None
        text = self.redact(response.text)
        self._db.execute(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
            (key, namespace, time.time(), text, response.finish_reason, usage),
        )

    def stats(self) -> dict[str, Any]:
        """Entries per namespace and the file's size."""
        counts = dict(
            self._db.execute(
                "SELECT namespace, COUNT(*) FROM responses GROUP BY namespace"
            ).fetchall()
        )
        size = sum(p.stat().st_size for p in self.path.parent.glob(CACHE_FILE + "*"))
        return {
            "path": str(self.path),
            "entries": sum(counts.values()),
            "candidate": counts.get("candidate", 0),
            "judge": counts.get("judge", 0),
            "bytes": size,
        }

    def clear(self) -> int:
        """Delete every entry; returns how many there were."""
        removed = self._db.execute("DELETE FROM responses").rowcount
        self._db.execute("VACUUM")
        return removed

    def close(self) -> None:
        """Close the database."""
        self._db.close()
