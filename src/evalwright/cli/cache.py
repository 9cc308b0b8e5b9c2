"""``evalwright cache stats|clear``: the project's response cache."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evalwright.evalfile.project import find_project_root
from evalwright.results.cache import CACHE_FILE, ResponseCache


def run(args: argparse.Namespace) -> int:
    """Show or empty the cache of the project holding ``args.path``."""
    root = find_project_root(Path(args.path) / "_")
    directory = root / ".evalwright" / "cache"
    if not (directory / CACHE_FILE).exists():  # nothing to show, and nothing to create
        print(f"no response cache in {directory}")
        return 0
    cache = ResponseCache(directory)
    try:
        if args.action == "clear":
            print(f"removed {cache.clear()} cached response(s) from {cache.path}")
        else:
            print(json.dumps(cache.stats(), indent=2))
    finally:
        cache.close()
    return 0
