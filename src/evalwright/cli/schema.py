"""``evalwright schema``: print a file format's JSON Schema (the eval, targets and config files
a person writes, or one row of the results file evalwright writes)."""

from __future__ import annotations

import argparse
import json
from typing import Any


def run(args: argparse.Namespace) -> int:
    """Print the schema of ``args.kind``."""
    schema: dict[str, Any]
    if args.kind == "results":
        from evalwright.results.row import results_schema

        schema = results_schema()
    else:
        from evalwright.evalfile.schemas import json_schema

        schema = json_schema(args.kind)
    print(json.dumps(schema, indent=2))
    return 0
