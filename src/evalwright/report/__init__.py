"""The HTML report (docs/report.md): one self-contained page from one or more results files,
optionally compared with a baseline run."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from evalwright.errors import ConfigError
from evalwright.report.data import ReportData
from evalwright.report.html import write_page

PathArg = str | os.PathLike[str]


def default_report_path(results_path: PathArg) -> Path:
    """Where ``eval --report`` writes without a name: beside the results file, ``.html``."""
    return Path(results_path).with_suffix(".html")


def write_report(
    results_paths: PathArg | Sequence[PathArg],
    out: PathArg | None = None,
    *,
    baseline: PathArg | Sequence[PathArg] = (),
    pass_mark: float = 0.5,
) -> Path:
    """Write one self-contained HTML report of ``results_paths`` (compared with ``baseline``
    when given) and return its path: ``out``, or the first results file with ``.html``
    (docs/report.md). The files are streamed: a large run costs little memory."""
    results = _paths(results_paths)
    if not results:
        raise ConfigError("a report needs at least one results file")
    data = ReportData.read(results, _paths(baseline), pass_mark=pass_mark)
    names = ", ".join(Path(p).name for p in results)
    target = Path(out) if out is not None else default_report_path(results[0])
    try:
        write_page(target, f"evalwright report: {names}", data.write)
    except OSError as exc:
        raise ConfigError(f"{target}: cannot write the report: {exc.strerror or exc}") from None
    return target


def _paths(value: PathArg | Sequence[PathArg]) -> list[PathArg]:
    if isinstance(value, str | os.PathLike):
        return [value]
    return list(value)
