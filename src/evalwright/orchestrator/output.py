"""Where a run writes its results, and the paths it refuses to write to
(docs/running.md#the-results-file).

``--out`` and ``--resume`` must name a regular file that is neither one of the run's eval
files nor a file the run reads, and that is empty, missing (``--out`` only) or a results
file already. Everything is checked before the file is opened, so a refused path is left
exactly as it was.
"""

from __future__ import annotations

import os
import stat
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from evalwright.errors import ConfigError
from evalwright.evalfile.discovery import is_results_file
from evalwright.files.project import display_path
from evalwright.files.reading import file_kind
from evalwright.orchestrator.plan import Plan
from evalwright.redact import Redactor
from evalwright.results import files
from evalwright.results.files import OpenResults

_NEW_NAME_ATTEMPTS = 5


def new_run_id() -> str:
    """A run id: the UTC start time and a random suffix."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:8]


def open_results(plan: Plan, redact: Redactor) -> OpenResults:
    """The run's results file, checked, locked and ready for rows."""
    options = plan.options
    if options.resume is not None:
        path = checked_path(plan, options.resume, "--resume")
        results = files.resume(path, new_run_id(), redact)
    elif options.out is not None:
        path = checked_path(plan, options.out, "--out")
        results = files.replace(path, new_run_id(), redact)
    else:
        results = _create_default(plan, redact)
    # A JSONL case read later must not take the file being written for one of its own.
    plan.resolver.protect(results.path)
    return results


def _create_default(plan: Plan, redact: Redactor) -> OpenResults:
    """``<root>/.evalwright/results/<stem>-<run_id>.jsonl``, created exclusively."""
    stem = plan.suites[0].path.stem if len(plan.suites) == 1 else "run"
    directory = plan.project.root / ".evalwright" / "results"
    for _ in range(_NEW_NAME_ATTEMPTS):
        run_id = new_run_id()
        path = directory / f"{stem}-{run_id}.jsonl"
        try:
            return files.create_new(path, run_id, redact)
        except FileExistsError:
            continue
        except OSError as exc:
            problem = exc.strerror or exc
            raise ConfigError(f"cannot create {display_path(path)}: {problem}") from None
    raise ConfigError(f"cannot find a new results file name in {display_path(directory)}")


def checked_path(plan: Plan, given: Path, option: str) -> Path:
    """The real path of ``--out`` or ``--resume``; ConfigError when it must not be written."""
    real = Path(os.path.realpath(given))
    shown = f"{option} {display_path(given)}"
    try:
        found: os.stat_result | None = os.stat(real)
    except FileNotFoundError:
        if option == "--resume":
            raise ConfigError(
                f"cannot read {display_path(given)} for --resume: No such file or directory"
            ) from None
        found = None
    except OSError as exc:
        raise ConfigError(f"cannot use {shown}: {exc.strerror or exc}") from None
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise ConfigError(f"{shown} is {file_kind(found.st_mode)}, not a regular file")
    for what, other in _read_by_run(plan):
        if _same(real, found, other):
            raise ConfigError(f"{shown} is {what}; writing results there would destroy it")
    if found is not None and found.st_size and not _holds_results(real):
        raise ConfigError(
            f"{shown} is not a results file (its first line is not a row with run_id and "
            "eval_id); it is left as it is: choose another path"
        )
    return real


def _read_by_run(plan: Plan) -> Iterator[tuple[str, str | os.PathLike[str]]]:
    """Every file the run reads, and what it is to the run."""
    project = plan.project
    for suite in plan.suites:
        yield "one of the run's eval files", suite.path
    for path in sorted(plan.resolver.files_read()):
        yield "a file the run's cases reference", path
    if project.config_path is not None:
        yield "the project's config file", project.config_path
    targets = plan.options.targets_file or project.targets_path
    if targets is not None:
        yield "the targets file", targets
    yield "the project's .env file", project.root / ".env"


def _same(real: Path, found: os.stat_result | None, other: str | os.PathLike[str]) -> bool:
    if os.path.realpath(other) == str(real):
        return True
    if found is None:
        return False
    try:
        return os.path.samestat(found, os.stat(other))
    except OSError:
        return False


def _holds_results(path: Path) -> bool:
    """A results file, or one whose only (first) row was cut off mid-write."""
    if is_results_file(path):
        return True
    with open(path, "rb") as handle:
        start = handle.read(1 << 16)
    return b"\n" not in start and start.startswith(b'{"run_id":')
