"""The YAML engine, private to :mod:`evalwright.files.source`: YAML 1.2 (libyaml's events
built under the core schema, a fast path and rapidyaml for large files) and JSON lines, each
into plain data plus the source positions of every value (docs/eval-files.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalwright.files._yaml.document import parse_yaml, parse_yaml_lazy
from evalwright.files._yaml.positions import Positions

if TYPE_CHECKING:
    from evalwright.files.diagnostics import Report
    from evalwright.jsontext import JsonValue


def parse(
    text: str, report: Report, *, first_line: int = 1, large: bool = False
) -> tuple[JsonValue, Positions] | None:
    """One YAML document as data and the positions of its values; ``None`` after reporting
    in ``report`` why it is not valid. ``first_line`` is the file line the text starts on.

    ``large``: most positions are composed only when a diagnostic asks for one, and a large
    text may be read by rapidyaml (the data, and every diagnostic, are the same)."""
    if large:
        return parse_yaml_lazy(text, report, first_line)
    parsed = parse_yaml(text, report, first_line)
    return None if parsed is None else (parsed[0], Positions(parsed[1]))
