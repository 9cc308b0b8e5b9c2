"""Reading results files from Python: :func:`read_results` and :func:`results_dataframe`
(docs/python-api.md#reading-results)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from evalwright.errors import ConfigError
from evalwright.evalfile.reading import UnreadableFile, open_regular
from evalwright.results.row import ResultRow, row_problem

if TYPE_CHECKING:
    import pandas

PathArg = str | os.PathLike[str]


def read_results(path: PathArg) -> Iterator[ResultRow]:
    """Each row of a results file, in file order (streamed: the file is never held whole).

    A line that is not a row raises :class:`ConfigError` naming the file and line.
    """
    shown = os.fspath(path)
    try:
        handle = open_regular(path)
    except UnreadableFile as exc:
        raise ConfigError(f"{shown}: {exc}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield ResultRow.model_validate_json(line)
            except ValidationError as exc:
                problem = row_problem(exc)
                raise ConfigError(f"{shown}:{number}: not a result row: {problem}") from None


def flat_row(row: ResultRow) -> dict[str, Any]:
    """A row as one record of a table: every top-level key, with ``usage`` and ``error``
    spread into ``input_tokens``, ``output_tokens``, ``error_type`` and ``error_message``."""
    record: dict[str, Any] = row.model_dump(mode="json", exclude={"usage", "error"})
    record.update(
        input_tokens=row.usage.input_tokens if row.usage else None,
        output_tokens=row.usage.output_tokens if row.usage else None,
        error_type=row.error.type if row.error else None,
        error_message=row.error.message if row.error else None,
    )
    return record


def results_dataframe(paths: PathArg | Sequence[PathArg]) -> pandas.DataFrame:
    """Every row of one or more results files as a pandas DataFrame, one row per line
    (needs pandas: ``pip install 'evalwright[pandas]'``)."""
    try:
        import pandas
    except ImportError:
        raise ConfigError(
            "results_dataframe needs pandas: pip install 'evalwright[pandas]'"
        ) from None
    given = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    records = [flat_row(row) for path in given for row in read_results(path)]
    return pandas.DataFrame.from_records(records)
