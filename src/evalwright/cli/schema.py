"""``evalwright schema``: print a file format's JSON Schema."""

from __future__ import annotations

import argparse
import json

from evalwright.evalfile.schemas import json_schema


def run(args: argparse.Namespace) -> int:
    """Print the schema of ``args.kind``."""
    print(json.dumps(json_schema(args.kind), indent=2))
    return 0
