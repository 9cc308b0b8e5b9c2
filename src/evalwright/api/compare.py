"""Comparing two runs from Python: :func:`compare` (docs/python-api.md#comparing-runs)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from evalwright.results.compare import Comparison, compare_rows
from evalwright.results.reading import read_results
from evalwright.results.row import ResultRow

PathArg = str | os.PathLike[str]


def _rows(paths: PathArg | Sequence[PathArg]) -> Iterator[ResultRow]:
    given = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    for path in given:
        yield from read_results(path)


def compare(
    old_paths: PathArg | Sequence[PathArg],
    new_paths: PathArg | Sequence[PathArg],
    *,
    pass_mark: float = 0.5,
) -> Comparison:
    """Match the rows of two runs (each one or more results files) on ``(eval_file, eval_id,
    target)`` and mark each key improved, regressed, unchanged, new or removed, as
    ``evalwright compare`` does (docs/running.md#evalwright-compare).

    A case passes when it ran and scored at least ``pass_mark``. A file that cannot be read,
    or a line that is not a row, raises :class:`ConfigError`.
    """
    return compare_rows(_rows(old_paths), _rows(new_paths), pass_mark=pass_mark)
