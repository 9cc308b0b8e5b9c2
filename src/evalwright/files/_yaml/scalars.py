"""YAML 1.2 core schema: what a scalar means, from its text, style and tag (docs/eval-files.md).

``yes`` and ``2024-10-21`` stay strings, ``3.10`` is a float only when unquoted, and a quoted or
block scalar is always a string unless an explicit core tag says otherwise.
"""

from __future__ import annotations

import math
import re
import sys
from typing import TypeAlias

_CORE = re.compile(
    r"""(?P<null>~|null|Null|NULL|)
    |(?P<true>true|True|TRUE)
    |(?P<false>false|False|FALSE)
    |(?P<int10>[-+]?[0-9]+)
    |0o(?P<int8>[0-7]+)
    |0x(?P<int16>[0-9a-fA-F]+)
    |(?P<float>[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)
    |(?P<inf>[-+]?\.(?:inf|Inf|INF))
    |(?P<nan>\.nan|\.NaN|\.NAN)""",
    re.VERBOSE,
)
# A core-schema value other than a string is empty, one of these words, or starts with one of
# these characters.
_WORDS = frozenset(("null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "~"))
_FIRST = frozenset("0123456789+-.")
MAY_RESOLVE_WORDS = _WORDS
"""The words a plain scalar may be that are not strings (the inline form of :func:`may_resolve`)."""
MAY_RESOLVE_FIRST = _FIRST
"""The first characters of a plain scalar that may not be a string."""
_YAML_ORG = "tag:yaml.org,2002:"
STR_TAG = _YAML_ORG + "str"
MAP_TAG = _YAML_ORG + "map"
SEQ_TAG = _YAML_ORG + "seq"
NON_SPECIFIC = "!"
_TYPED_TAGS = {_YAML_ORG + name: name for name in ("int", "float", "bool", "null")}

Scalar: TypeAlias = str | int | float | bool | None
"""What a scalar means under the core schema."""


class ScalarProblem(ValueError):
    """A scalar that cannot be read as written; the message says why."""


def may_resolve(value: str) -> bool:
    """Whether a plain scalar could be something other than a string (a cheap test)."""
    return not value or value[0] in _FIRST or value in _WORDS


def resolve(value: str) -> Scalar:
    """Resolve a plain scalar under the YAML 1.2 core schema."""
    if not may_resolve(value):
        return value
    match = _CORE.fullmatch(value)
    if match is None:
        return value
    kind = match.lastgroup
    if kind == "null":
        return None
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "int10":
        return _decimal(value)
    if kind == "int8":
        return int(match.group(kind), 8)
    if kind == "int16":
        return int(match.group(kind), 16)
    if kind == "float":
        return float(value)
    if kind == "inf":
        return -math.inf if value[0] == "-" else math.inf
    return math.nan


def _decimal(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        # Python refuses to convert very long decimal strings (sys.get_int_max_str_digits).
        digits = len(value.lstrip("+-"))
        limit = sys.get_int_max_str_digits()
        raise ScalarProblem(f"integer has too many digits ({digits}; at most {limit})") from None


def tagged(value: str, tag: str) -> Scalar:
    """A scalar with an explicit tag: ``!!str`` and ``!`` give the text, other core tags check it.

    Raises :class:`ScalarProblem` for a tag outside the core schema or a value it does not fit.
    """
    if tag in (STR_TAG, NON_SPECIFIC):
        return value
    kind = _TYPED_TAGS.get(tag)
    if kind is None:
        raise ScalarProblem(f"unsupported YAML tag '{short_tag(tag)}'")
    result = resolve(value)
    if kind == "float" and type(result) is int:
        return float(result)
    expected = {"int": int, "float": float, "bool": bool, "null": type(None)}[kind]
    if type(result) is not expected:
        raise ScalarProblem(f"{value!r} is not a valid {short_tag(tag)}")
    return result


def short_tag(tag: str) -> str:
    """A tag as it is usually written: ``!!int`` rather than ``tag:yaml.org,2002:int``."""
    return "!!" + tag.removeprefix(_YAML_ORG) if tag.startswith(_YAML_ORG) else tag
