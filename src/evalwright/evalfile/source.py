"""Parse YAML 1.2 and JSON text into plain data plus a tree of source positions.

YAML is read with libyaml and built under the YAML 1.2 core schema (:mod:`.yaml_source`), so
``yes`` and ``2024-10-21`` stay strings and a duplicate key is an error naming both places.
JSON lines are parsed with :mod:`json` (:mod:`.json_line`); their positions are computed only
when a diagnostic needs one. This module gathers the names the rest of the package uses.
"""

from __future__ import annotations

from evalwright.evalfile.json_line import DuplicateKeyError, LazyPositions, parse_json_line
from evalwright.evalfile.positions import DataPath, Positions, PosNode
from evalwright.evalfile.yaml_source import parse_yaml

__all__ = [
    "DataPath",
    "DuplicateKeyError",
    "LazyPositions",
    "PosNode",
    "Positions",
    "parse_json_line",
    "parse_yaml",
]
