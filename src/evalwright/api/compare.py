"""Comparing two runs from Python: :func:`compare` (docs/python-api.md#comparing-runs)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from evalwright.stats.compare import Comparison, compare_scored, latest_scored

PathArg = str | os.PathLike[str]


def _paths(paths: PathArg | Sequence[PathArg]) -> list[PathArg]:
    return [paths] if isinstance(paths, str | os.PathLike) else list(paths)


def compare(
    old_paths: PathArg | Sequence[PathArg],
    new_paths: PathArg | Sequence[PathArg],
    *,
    pass_mark: float = 0.5,
) -> Comparison:
    """Match the rows of two runs (each one or more results files) on ``(eval_file, eval_id,
    target, repeat, variant)`` and mark each key improved, regressed, unchanged, new or removed, as
    ``evalwright compare`` does (docs/running.md#evalwright-compare).

    The files are streamed: each change keeps its rows' status and score, and reads a row
    back from its file when its ``old`` or ``new`` is asked for. A case passes when it ran
    and scored at least ``pass_mark``. A file that cannot be read, or a line that is not a
    row, raises :class:`ConfigError`.
    """
    before = latest_scored(_paths(old_paths))
    after = latest_scored(_paths(new_paths))
    return compare_scored(before, after, pass_mark=pass_mark)
