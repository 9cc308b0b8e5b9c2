"""Cut a large eval file's ``evalcases`` block into runs of cases that rapidyaml reads one at a
time, so that its tree (about 150 bytes a node) never holds the whole file.

The cut is only where a case of the block starts: a line of the block's own indentation that
begins with ``-``. Inside a block scalar no such line can be (its lines are indented deeper),
and a cut inside a quoted scalar or a flow collection leaves a piece that does not parse; each
piece must also give exactly as many cases as starts were found in it, and the rest of the file
must give ``evalcases: []``. Anything else, and :mod:`.ryml` reads the file whole
(docs/eval-files.md#large-files).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CASES_PER_PIECE = 1000
"""About how many cases rapidyaml reads at a time."""
_CASES_KEY = re.compile(rb"^evalcases:[ ]*(?:#[^\n]*)?\n", re.MULTILINE)
_FIRST_ITEM = re.compile(rb"(?:[ ]*(?:#[^\n]*)?\n)*([ ]*)-[ \n]")
_PLACEHOLDER = b"evalcases: []\n"


@dataclass(frozen=True, slots=True)
class Pieces:
    """The file with its cases block emptied, and the block cut into runs of cases."""

    rest: bytes
    cases: list[tuple[bytes, int]]
    """Each run of cases and how many case starts it holds."""


def cut_cases(encoded: bytes, per_piece: int = CASES_PER_PIECE) -> Pieces | None:
    """The file's pieces, or ``None`` when its cases are not one block sequence under a
    top-level ``evalcases:`` line (or are too few to cut)."""
    key = _CASES_KEY.search(encoded)
    if key is None or _CASES_KEY.search(encoded, key.end()) is not None:
        return None
    first = _FIRST_ITEM.match(encoded, key.end())
    if first is None:
        return None
    indent = len(first.group(1))
    # The block ends at the first line starting in column 0 that is not blank, a comment or
    # (for a sequence in column 0) an item.
    end_pattern = rb"^(?![ #\n]|-[ \n])" if indent == 0 else rb"^(?![ #\n])"
    end_match = re.compile(end_pattern, re.MULTILINE).search(encoded, key.end())
    end = end_match.start() if end_match is not None and end_match.start() < len(encoded) else None
    block_end = len(encoded) if end is None else end
    item = re.compile(rb"^" + b" " * indent + rb"-[ \n]", re.MULTILINE)
    starts = [match.start() for match in item.finditer(encoded, first.start(1), block_end)]
    if len(starts) <= per_piece:
        return None
    bounds = [*starts[::per_piece], block_end]
    counts = [min(per_piece, len(starts) - i) for i in range(0, len(starts), per_piece)]
    cases = [(encoded[a:b], n) for a, b, n in zip(bounds[:-1], bounds[1:], counts, strict=True)]
    cases[0] = (encoded[key.end() : bounds[1]], counts[0])  # comments before the first case
    rest = encoded[: key.start()] + _PLACEHOLDER + encoded[block_end:]
    return Pieces(rest, cases)
