"""The response cache keeps an answer's reasoning (docs/running.md#reasoning): replayed as it
was, signatures and redacted data included, covered by the entry's checksum, stored redacted,
and a file of schema 2 is brought up to date with every entry kept."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from pathlib import Path

from evalwright.records import ReasoningPart
from evalwright.redact import Redactor
from evalwright.results.cache import ResponseCache
from evalwright.results.cache_schema import SCHEMA_VERSION
from tests.results.test_cache import PREPARED, answer
from tests.results.test_cache_faults import ENTRIES, filled, read_all, replayed
from tests.results.test_cache_tool_calls import CALLED

REASONING = (
    ReasoningPart(text="Let me think.", signature="sig-1"),
    ReasoningPart(text="", data="ENCRYPTED"),
    ReasoningPart(text="Gemini's summary"),
)
THOUGHT = dataclasses.replace(answer("42", "end_turn", None), reasoning=REASONING)


def test_an_answer_s_reasoning_is_replayed_as_it_was(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    asyncio.run(cache.put("k", "candidate", THOUGHT))
    both = dataclasses.replace(CALLED, reasoning=REASONING[:1])
    asyncio.run(cache.put("both", "candidate", both))
    asyncio.run(cache.put("plain", "candidate", answer("none", "stop", None)))
    hit = asyncio.run(cache.get("k", PREPARED))
    hit_both = asyncio.run(cache.get("both", PREPARED))
    plain = asyncio.run(cache.get("plain", PREPARED))
    cache.close()
    assert hit is not None
    assert hit_both is not None
    assert plain is not None
    assert (hit.text, hit.reasoning, hit.tool_calls) == ("42", REASONING, ())
    assert (hit_both.tool_calls, hit_both.reasoning) == (CALLED.tool_calls, REASONING[:1])
    assert plain.reasoning == ()


def test_changed_reasoning_is_a_damaged_entry(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    asyncio.run(cache.put("k", "candidate", THOUGHT))
    asyncio.run(cache.put("plain", "candidate", answer("none", "stop", None)))
    cache.close()
    db = sqlite3.connect(cache.path, isolation_level=None)
    db.execute("""UPDATE responses SET reasoning = '[{"text":"x"}]' WHERE key = 'k'""")
    db.execute("""UPDATE responses SET reasoning = '[{"text":"x"}]' WHERE key = 'plain'""")
    db.close()
    again = ResponseCache(tmp_path / "cache")
    assert asyncio.run(again.get("k", PREPARED)) is None
    assert asyncio.run(again.get("plain", PREPARED)) is None
    assert again.damaged == 2
    again.close()


def test_secrets_in_reasoning_are_stored_redacted(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache", Redactor(["sk-secret-12345"]))
    leaky = (ReasoningPart(text="the key is sk-secret-12345", signature="s"),)
    asyncio.run(cache.put("k", "candidate", dataclasses.replace(THOUGHT, reasoning=leaky)))
    hit = asyncio.run(cache.get("k", PREPARED))
    cache.close()
    assert hit is not None
    assert hit.reasoning == (ReasoningPart(text="the key is [REDACTED]", signature="s"),)
    stored = b"".join(path.read_bytes() for path in (tmp_path / "cache").iterdir())
    assert b"12345" not in stored


def test_a_schema_2_file_keeps_every_entry(tmp_path: Path) -> None:
    """Schema 2's table (no reasoning column): its entries are replayed as answers without
    reasoning, nothing is dropped, and new entries hold reasoning."""
    path = filled(tmp_path / "cache")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("ALTER TABLE responses DROP COLUMN reasoning")
    db.execute("PRAGMA user_version = 2")
    db.close()

    cache = ResponseCache(tmp_path / "cache")
    assert read_all(cache) == [replayed(i) for i in range(ENTRIES)]
    asyncio.run(cache.put("k", "candidate", THOUGHT))
    assert cache.warnings() == []
    cache.close()

    again = ResponseCache(tmp_path / "cache")
    hit = asyncio.run(again.get("k", PREPARED))
    assert hit is not None
    assert hit.reasoning == REASONING
    assert again.stats()["entries"] == ENTRIES + 1
    again.close()
    db = sqlite3.connect(path, isolation_level=None)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    db.close()
