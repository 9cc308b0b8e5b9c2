"""``evalwright eval --watch``: run, then rerun whenever an eval file or a file it reads
changes (docs/running.md#watching).

Files are polled (their size, modification time and inode, twice a second) rather than
watched with an OS facility: it needs no dependency, sees an editor's save-by-rename, and a
project's few hundred files cost nothing to stat. The response cache is on, so a rerun asks
the targets only for what an edit changed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from evalwright.api.run import options_for
from evalwright.cli.argtypes import settings_from
from evalwright.errors import ConfigError, EvalwrightError, LoadError, printable
from evalwright.evalfile.discovery import find_eval_files
from evalwright.evalfile.evaluator_specs import CodeSpec
from evalwright.files.project import find_project_root
from evalwright.orchestrator.plan import RunOptions, load_plan
from evalwright.orchestrator.run import SilentReporter

INTERRUPTED = 130
CONFIG_ERROR = 2
POLL_SECONDS = 0.5
"""How often the watched files are looked at."""

Signature = tuple[int, int, int] | None
"""A file's size, modification time and inode; ``None`` when it does not exist."""


def watch(args: argparse.Namespace, run_once: Callable[[argparse.Namespace], int]) -> int:
    """Run with ``run_once``, then again after each change, until Ctrl-C: exit 130, or
    the code of a run Ctrl-C interrupted (130 as well)."""
    if args.resume is not None:
        raise ConfigError("--watch cannot be combined with --resume: each rerun is a new run")
    if args.cache is None:
        args.cache = True  # an unchanged case is a cache hit: only edits are sent again
    try:
        while True:
            options = options_for(list(args.paths), settings_from(args, SilentReporter()))
            extra = referenced_files(options)
            before = snapshot(options, extra)
            if _run(args, run_once) == INTERRUPTED:
                return INTERRUPTED
            print(
                f"evalwright: watching {len(before)} file(s); edit one to rerun (Ctrl-C stops)",
                file=sys.stderr,
                flush=True,
            )
            wait_for_change(options, extra, before)
            _redraw()
    except KeyboardInterrupt:
        print("evalwright: stopped watching", file=sys.stderr)
        return INTERRUPTED


def _run(args: argparse.Namespace, run_once: Callable[[argparse.Namespace], int]) -> int:
    """One run; a mistake in the files is printed as ``eval`` prints it, and watching goes
    on so that the fix reruns."""
    try:
        code = run_once(args)
    except LoadError as exc:
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
        code = CONFIG_ERROR
    except ConfigError as exc:
        print(f"evalwright: error: {printable(str(exc))}", file=sys.stderr)
        code = CONFIG_ERROR
    sys.stdout.flush()
    return code


def _redraw() -> None:
    """Clear a terminal so that the next summary replaces the last one."""
    if sys.stdout.isatty():
        sys.stdout.write("\x1b[H\x1b[2J")
    print(f"evalwright: a file changed; rerunning ({time.strftime('%H:%M:%S')})", file=sys.stderr)


def wait_for_change(
    options: RunOptions, extra: frozenset[Path], before: dict[str, Signature]
) -> None:
    """Return once a watched file was changed, created or deleted (or an eval file was added
    to a named directory)."""
    while True:
        time.sleep(POLL_SECONDS)
        if snapshot(options, extra) != before:
            return


def snapshot(options: RunOptions, extra: Iterable[Path]) -> dict[str, Signature]:
    """The signature of every watched file: the eval files (those found in named directories
    now), the project's config, targets and ``.env`` files, and ``extra``."""
    files = [*_eval_files(options.paths), *_project_files(options), *extra]
    return {str(path): _signature(path) for path in files}


def _eval_files(paths: list[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from find_eval_files(path)
        else:
            yield path


def _project_files(options: RunOptions) -> Iterator[Path]:
    """The files beside the eval files that shape a run, whether they exist yet or not."""
    if options.targets_file is not None:
        yield options.targets_file
    first = next(_eval_files(options.paths), None)
    if first is None:
        return
    root = find_project_root(first)
    for folder in (".evalwright", ".agentv"):
        yield root / folder / "config.yaml"
        yield root / folder / "targets.yaml"
    yield root / ".env"


def referenced_files(options: RunOptions) -> frozenset[Path]:
    """The files the run's cases read: attachments, guidelines, judge templates, and the
    files a ``code`` evaluator's command line names, and where a referenced file that is
    missing was looked for. When the files cannot be loaded (the run reports why), those the
    load got to."""
    found: set[Path] = set()
    looked_for: set[str] = set()
    with contextlib.suppress(EvalwrightError, OSError):
        plan = load_plan(options, looked_for)
        for source in plan.sources:
            for case in source.cases:
                for evaluator in case.evaluators:
                    if isinstance(evaluator.spec, CodeSpec):
                        found.update(_script_files(evaluator.spec, evaluator.cwd))
    # Those a failed load looked for too: restoring a missing attachment reruns.
    return frozenset(found | {Path(path) for path in looked_for})


def _script_files(spec: CodeSpec, cwd: str | None) -> Iterator[Path]:
    """The arguments of an argv script that name a file (the script itself, its data)."""
    if isinstance(spec.script, str):
        return
    for argument in spec.script[1:]:
        path = Path(cwd or ".", argument)
        if path.is_file():
            yield path


def _signature(path: Path) -> Signature:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_size, found.st_mtime_ns, found.st_ino)
