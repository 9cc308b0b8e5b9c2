"""Comparing two runs, or two targets or prompt variants of one run, from Python:
:func:`compare` (docs/python-api.md#comparing-runs)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal

from evalwright.errors import ConfigError
from evalwright.stats.compare import Comparison, compare_scored, latest_scored, side_by_side

PathArg = str | os.PathLike[str]


def _paths(paths: PathArg | Sequence[PathArg]) -> list[PathArg]:
    return [paths] if isinstance(paths, str | os.PathLike) else list(paths)


def compare(
    old_paths: PathArg | Sequence[PathArg],
    new_paths: PathArg | Sequence[PathArg] | None = None,
    *,
    pass_mark: float = 0.5,
    targets: tuple[str, str] | None = None,
    variants: tuple[str, str] | None = None,
) -> Comparison:
    """Match the rows of two runs (each one or more results files) on ``(eval_file, eval_id,
    target, repeat, variant)`` and mark each key improved, regressed, unchanged, new or
    removed, as ``evalwright compare`` does (docs/running.md#evalwright-compare). With
    ``targets=(A, B)`` (or ``variants``) and no ``new_paths``, one run's target A is the
    earlier side and B the later. ``Comparison.paired()`` gives the paired statistics
    (docs/statistics.md).

    The files are streamed: each change keeps its rows' status and score, and reads a row
    back from its file when its ``old`` or ``new`` is asked for. A row passes as its recorded
    ``passed`` says (docs/eval-files.md#pass-rules); ``pass_mark`` decides rows written
    before pass rules. A file that cannot be read, or a line that is not a row, raises
    :class:`ConfigError`.
    """
    if targets is not None or variants is not None:
        if new_paths is not None or (targets is not None and variants is not None):
            raise ConfigError("compare one run's two targets or two variants, or two runs")
        dimension: Literal["target", "variant"] = "target" if targets else "variant"
        a, b = targets or variants or ("", "")
        before, after = side_by_side(latest_scored(_paths(old_paths)), dimension, a, b)
        if not before or not after:
            missing = a if not before else b
            raise ConfigError(f"the results hold no row of {dimension} {missing!r}")
        return compare_scored(before, after, pass_mark=pass_mark)
    if new_paths is None:
        raise ConfigError("compare needs two runs, or one run's two targets or variants")
    before = latest_scored(_paths(old_paths))
    after = latest_scored(_paths(new_paths))
    return compare_scored(before, after, pass_mark=pass_mark)
