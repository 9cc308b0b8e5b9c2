"""Read a previous results file for ``--resume``: which rows to keep and which to rerun."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalwright.errors import ConfigError

RowKey = tuple[str, str, str]


def row_key(row: dict[str, Any]) -> RowKey:
    """``(eval_file, eval_id, target)``: what identifies a row across runs."""
    return (str(row.get("eval_file")), str(row.get("eval_id")), str(row.get("target")))


@dataclass(slots=True)
class PreviousRun:
    """The rows of an earlier run: kept (``ok``) lines, and errored lines to rerun."""

    run_id: str | None = None
    kept: list[str] = field(default_factory=list[str])
    kept_keys: set[RowKey] = field(default_factory=set[RowKey])
    errored: dict[RowKey, str] = field(default_factory=dict[RowKey, str])


def read_previous(path: Path) -> PreviousRun:
    """Parse a results file; a last line without a newline (cut off mid-write) is dropped."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path} for --resume: {exc.strerror or exc}") from None
    lines = text.split("\n")
    if lines and lines[-1]:
        lines.pop()  # no newline after it: the write was interrupted
    previous = PreviousRun()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            raise ConfigError(f"{path}:{number}: not a results row (invalid JSON)") from None
        previous.run_id = previous.run_id or row.get("run_id")
        key = row_key(row)
        if row.get("status") == "ok":
            previous.kept.append(line)
            previous.kept_keys.add(key)
            previous.errored.pop(key, None)
        elif key not in previous.kept_keys:
            previous.errored[key] = line
    return previous
