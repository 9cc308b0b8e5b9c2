"""Parse YAML 1.2 and JSON text into plain data plus the positions of its values: the one way
into the YAML engine (:mod:`evalwright.files._yaml`).

YAML is read with libyaml and built under the YAML 1.2 core schema, so ``yes`` and
``2024-10-21`` stay strings and a duplicate key is an error naming both places. JSON lines
are parsed with :mod:`json`; their positions are computed only when a diagnostic needs one.
"""

from __future__ import annotations

from evalwright.files._yaml import parse
from evalwright.files._yaml.collector import collector_paused
from evalwright.files._yaml.events import MAX_DEPTH
from evalwright.files._yaml.json_line import DuplicateKeyError, LazyPositions, parse_json_line
from evalwright.files._yaml.positions import DataPath, Positions, PosNode

__all__ = [
    "MAX_DEPTH",
    "DataPath",
    "DuplicateKeyError",
    "LazyPositions",
    "PosNode",
    "Positions",
    "collector_paused",
    "parse",
    "parse_json_line",
]
