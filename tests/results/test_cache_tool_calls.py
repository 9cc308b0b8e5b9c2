"""The response cache keeps an answer's tool calls (docs/tools.md#tool-calls-in-the-answer):
replayed as they were, covered by the entry's checksum, and a file of schema 1 is brought up
to date with every entry kept."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from pathlib import Path

from evalwright.providers.wire import AnswerToolCall
from evalwright.redact import Redactor
from evalwright.results.cache import ResponseCache
from evalwright.results.cache_schema import SCHEMA_VERSION
from tests.results.test_cache import PREPARED, answer
from tests.results.test_cache_faults import ENTRIES, filled, read_all, replayed

CALLS = (
    AnswerToolCall(
        id="c1", name="get_weather", raw_arguments='{"city":"Paris"}', arguments={"city": "Paris"}
    ),
    AnswerToolCall(id="c2", name="f", raw_arguments="not json {", arguments=None),
    AnswerToolCall(id="call_0", name="g", raw_arguments={"n": [1, 2]}, arguments={"n": [1, 2]}),
)
CALLED = dataclasses.replace(answer("Checking.", "tool_calls", None), tool_calls=CALLS)


def test_an_answer_s_tool_calls_are_replayed_as_they_were(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    asyncio.run(cache.put("k", "candidate", CALLED))
    asyncio.run(cache.put("plain", "candidate", answer("no calls", "stop", None)))
    hit = asyncio.run(cache.get("k", PREPARED))
    plain = asyncio.run(cache.get("plain", PREPARED))
    cache.close()
    assert hit is not None
    assert (hit.text, hit.finish_reason, hit.tool_calls) == ("Checking.", "tool_calls", CALLS)
    assert plain is not None
    assert plain.tool_calls == ()


def test_changed_tool_calls_are_a_damaged_entry(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    asyncio.run(cache.put("k", "candidate", CALLED))
    asyncio.run(cache.put("plain", "candidate", answer("no calls", "stop", None)))
    cache.close()
    db = sqlite3.connect(cache.path, isolation_level=None)
    db.execute("UPDATE responses SET tool_calls = '[]' WHERE key = 'k'")
    db.execute("""UPDATE responses SET tool_calls = '[{"id":"x"}]' WHERE key = 'plain'""")
    db.close()
    again = ResponseCache(tmp_path / "cache")
    assert asyncio.run(again.get("k", PREPARED)) is None
    assert asyncio.run(again.get("plain", PREPARED)) is None
    assert again.damaged == 2
    again.close()


def test_secrets_in_tool_calls_are_stored_redacted(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache", Redactor(["sk-secret-12345"]))
    leaky = AnswerToolCall(
        id="c1", name="login", raw_arguments={"key": "sk-secret-12345"}, arguments=None
    )
    asyncio.run(cache.put("k", "candidate", dataclasses.replace(CALLED, tool_calls=(leaky,))))
    hit = asyncio.run(cache.get("k", PREPARED))
    cache.close()
    assert hit is not None
    assert hit.tool_calls[0].raw_arguments == {"key": "[REDACTED]"}
    stored = b"".join(path.read_bytes() for path in (tmp_path / "cache").iterdir())
    assert b"12345" not in stored


def test_a_schema_1_file_keeps_every_entry(tmp_path: Path) -> None:
    """Schema 1's table (no tool_calls column) and user_version: its entries are replayed as
    answers without tool calls, nothing is dropped, and new entries hold tool calls."""
    path = filled(tmp_path / "cache")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("ALTER TABLE responses DROP COLUMN reasoning")
    db.execute("ALTER TABLE responses DROP COLUMN tool_calls")
    db.execute("PRAGMA user_version = 1")
    db.close()

    cache = ResponseCache(tmp_path / "cache")
    assert read_all(cache) == [replayed(i) for i in range(ENTRIES)]
    asyncio.run(cache.put("k", "candidate", CALLED))
    assert cache.warnings() == []
    cache.close()

    again = ResponseCache(tmp_path / "cache")
    hit = asyncio.run(again.get("k", PREPARED))
    assert hit is not None
    assert hit.tool_calls == CALLS
    assert again.stats()["entries"] == ENTRIES + 1
    again.close()
    db = sqlite3.connect(path, isolation_level=None)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()
