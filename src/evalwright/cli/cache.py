"""``evalwright cache stats|clear``: the project's response cache. A damaged or read-only
file is named with what is wrong and exit 1, never a traceback; ``clear`` removes a damaged
file (docs/running.md#when-the-cache-is-damaged-or-read-only)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evalwright.errors import printable
from evalwright.files.project import find_project_root
from evalwright.results.cache import CACHE_FILE, CacheFault, ResponseCache
from evalwright.results.cache_schema import remove

CACHE_UNUSABLE = 1
"""The exit status when the cache cannot be read, or cannot be cleared."""


def run(args: argparse.Namespace) -> int:
    """Show or empty the cache of the project holding ``args.path``."""
    root = find_project_root(Path(args.path) / "_")
    directory = root / ".evalwright" / "cache"
    if not (directory / CACHE_FILE).exists() and not directory.is_file():
        print(f"no response cache in {directory}")  # nothing to show, and nothing to create
        return 0
    cache = ResponseCache(directory)
    try:
        code = _clear(cache) if args.action == "clear" else _stats(cache)
    finally:
        cache.close()
    if cache.fault is None:  # else told above, as the error
        for warning in cache.warnings():
            _tell(f"evalwright: warning: {warning}")
    return code


def _stats(cache: ResponseCache) -> int:
    try:
        stats = cache.stats()
    except CacheFault as fault:
        _tell(f"evalwright: error: {fault}{fault.remedy}")
        return CACHE_UNUSABLE
    print(json.dumps(stats, indent=2))
    if stats["damaged"]:
        _tell(
            f"evalwright: warning: {stats['damaged']} damaged entry(ies) in {cache.path} "
            "(checksum mismatch): a run asks them again and stores the new answers"
        )
    return 0


def _clear(cache: ResponseCache) -> int:
    try:
        print(f"removed {cache.clear()} cached response(s) from {cache.path}")
        return 0
    except CacheFault as fault:
        if fault.kind != "damaged":
            _tell(f"evalwright: error: {fault}: nothing was removed")
            return CACHE_UNUSABLE
        cache.close()  # the file is deleted, not emptied: SQLite cannot read it
        try:
            remove(cache.path)
        except OSError as exc:
            _tell(f"evalwright: error: {fault}, and cannot be removed: {exc.strerror}")
            return CACHE_UNUSABLE
        print(f"removed the damaged response cache {cache.path} ({fault.reason})")
        return 0


def _tell(line: str) -> None:
    print(printable(line, one_line=True), file=sys.stderr)
