"""The options of a run, each declared once (docs/running.md#evalwright-eval).

A field of :class:`RunOptions` declared with :func:`option` is an option of ``evalwright
eval`` and a keyword of :func:`evalwright.run` at once: its name, type, default, flags,
metavar, help, docs text and checks live in that one declaration, and the command line's
parser (``evalwright.cli.argtypes``), the Python API's conversion (:func:`accepted`) and the
table of docs/running.md (checked by tests/orchestrator/test_options.py) are read from it.
:class:`RunSettings` is the typed spelling of the same keywords for ``run(**settings)``: a
type checker cannot derive one class from another, so the test checks that its keys are the
declared names.

Like ``option_spec``, this imports only the standard library when it loads: the command line
builds its parser from it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from evalwright.errors import ConfigError
from evalwright.limits import MAX_REPEAT
from evalwright.orchestrator.option_spec import (
    BUDGET,
    FRACTION,
    POSITIVE,
    REPEATS,
    Option,
    declared,
    option,
)

if TYPE_CHECKING:
    from evalwright.evalfile.suite import Suite
    from evalwright.orchestrator.run import Reporter
    from evalwright.orchestrator.select import Selection
    from evalwright.targets.models import Target


def _path(value: str | os.PathLike[str] | None) -> Path | None:
    return Path(value) if value is not None else None


def _strings(value: str | Sequence[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def chosen_targets(value: object) -> list[str | Target]:
    """The ``targets`` keyword as a list: one name or target object, or a sequence of them."""
    from pydantic import BaseModel  # the Python API has loaded it already; the CLI need not

    if isinstance(value, str | BaseModel):
        return [cast("str | Target", value)]
    return list(cast("Sequence[str | Target]", value))


def _target_names(value: object) -> list[str]:
    return list(dict.fromkeys(t if isinstance(t, str) else t.name for t in chosen_targets(value)))


def _executor(value: str) -> str:
    if value == "ray":
        from evalwright.executors.ray_cluster import require_ray

        require_ray()
    return value


@dataclass(slots=True)
class RunOptions:
    """What ``evalwright eval`` (or :func:`evalwright.run`) was asked to do."""

    paths: list[str]
    suites: tuple[Suite, ...] = ()
    """Suites built in Python (or loaded with ``load_suite``), run after ``paths``."""
    given_targets: tuple[Target, ...] = ()
    """Targets given as objects rather than by name (they win over the targets file's)."""
    targets: list[str] = option(
        [],
        "--target",
        action="append",
        metavar="NAME",
        help="run every case on this target (repeatable)",
        doc="run every case on this target; repeat it to run every case on each target",
        accept=_target_names,
    )
    targets_file: Path | None = option(
        None,
        "--targets",
        metavar="FILE",
        help="the targets file to use",
        doc="use this targets file instead of the project's",
        accept=_path,
    )
    eval_id: tuple[str, ...] = option(
        (),
        "--eval-id",
        action="append",
        metavar="GLOB",
        help="run only cases whose id matches (repeatable: any of the globs)",
        doc="run only cases whose id matches (`fnmatch` glob, e.g. `'review-*'`); repeat it to "
        "run the cases matching any of the globs ([selecting cases](#selecting-cases))",
        accept=_strings,
    )
    tags: tuple[str, ...] = option(
        (),
        "--tag",
        action="append",
        metavar="TAG",
        help="run only cases with this tag (repeatable: any of the tags)",
        doc="run only cases with this [tag](eval-files.md#tags); repeat it to run the cases "
        "having any of the tags",
        accept=_strings,
    )
    skip_tags: tuple[str, ...] = option(
        (),
        "--skip-tag",
        action="append",
        metavar="TAG",
        help="leave out cases with this tag (repeatable; wins over --tag)",
        doc="leave out cases with this tag (repeatable); it wins over `--tag`",
        accept=_strings,
    )
    only_failed: Path | None = option(
        None,
        "--only-failed",
        metavar="RESULTS",
        help="run only the cases and targets that failed or errored in this earlier results "
        "file, into a new results file",
        doc="run only the case and target pairs that failed or errored in an earlier results "
        "file, into a new results file ([below](#--only-failed))",
        accept=_path,
    )
    repeat: int | None = option(
        None,
        "--repeat",
        metavar="K",
        number=REPEATS,
        help="run each case K times on each target and report pass@k and flaky cases "
        "(a case's repeat: wins; default: config.yaml's repeat, else 1)",
        doc=f"run each case K times on each target (1 to {MAX_REPEAT}) and report pass@k, "
        "pass^k and flaky cases; a case's own `repeat:` wins, the default is `repeat` in "
        "config.yaml, else 1 ([below](#repeats-and-reliability))",
    )
    workers: int = option(
        8,
        "--workers",
        metavar="N",
        number=POSITIVE,
        help="cases running at once (default 8)",
        doc="cases running at once (default 8)",
    )
    executor: Literal["local", "ray"] = option(
        "local",
        "--executor",
        choices=("local", "ray"),
        help="where agent (cli, codex) cases run: here, or as tasks on a Ray cluster "
        "(needs evalwright[ray]; docs/scale.md)",
        doc="where agent (`cli`, `codex`) cases run: on this machine (default) or as tasks on "
        "a Ray cluster ([scale.md](scale.md))",
        accept=_executor,
    )
    ray_address: str | None = option(
        None,
        "--ray-address",
        metavar="ADDR",
        help="the Ray cluster to join with --executor ray (default: RAY_ADDRESS, else a local Ray)",
        doc="the Ray cluster `--executor ray` joins (default: `RAY_ADDRESS`, else a local Ray "
        "started for the run)",
    )
    out: Path | None = option(
        None,
        "--out",
        metavar="FILE",
        help="the results file (JSON Lines)",
        doc="the results file; an existing results file (or an empty file) is replaced (use "
        "`--resume` to continue one); other files are refused "
        "([below](#paths-that-are-refused))",
        accept=_path,
    )
    resume: Path | None = option(
        None,
        "--resume",
        metavar="FILE",
        help="rerun the missing and errored rows of an earlier results file",
        doc="rerun the missing and errored rows of an earlier results file, appending to it "
        "([below](#--resume))",
        accept=_path,
    )
    cache: bool | None = option(
        None,
        "--cache",
        action="toggle",
        help="reuse cached answers (default: config.yaml's cache)",
        doc="reuse cached chat-API answers (default: `cache` in config.yaml, else off)",
    )
    dry_run: bool = option(
        False,
        "--dry-run",
        action="flag",
        help="answer every target and judge with the offline mock",
        doc="answer every target and judge with the offline mock",
    )
    batch: bool = option(
        False,
        "--batch",
        action="flag",
        help="send chat targets' single-turn cases through their provider's batch API "
        "(OpenAI, Azure OpenAI, Anthropic, Gemini: half the price, answers within 24 hours; "
        "see docs/batch.md)",
        doc="send chat targets' single-turn cases through their provider's batch API: half the "
        "price, answers within 24 hours; `--resume` re-attaches to batches in flight "
        "([batch.md](batch.md))",
    )
    judge_live: bool = option(
        False,
        "--judge-live",
        action="flag",
        help="with batched targets, call their cases' judges live instead of in a second "
        "batch phase (docs/batch.md#judges)",
        doc="with batched targets, call their cases' judges live instead of in a second batch "
        "phase ([batch.md](batch.md#judges))",
    )
    pass_mark: float = option(
        0.5,
        "--pass-mark",
        metavar="X",
        number=FRACTION,
        help="a case passes when its score is at least X (default 0.5)",
        doc="a case passes when its score is at least X (default 0.5)",
    )
    pass_rule: Literal["all", "mean"] = option(
        "all",
        "--pass-rule",
        choices=("all", "mean"),
        help="how a case's evaluators make its verdict: all (each meets its threshold; "
        "default) or mean (the weighted score reaches the pass mark); a file's or case's "
        "execution.pass wins",
        doc="how a case's evaluators make its verdict: `all` (default), every counted "
        "evaluator meets its own threshold; `mean`, the weighted score reaches the pass mark; "
        "a file's or case's `execution.pass` wins ([pass rules](eval-files.md#pass-rules))",
    )
    pass_rate: float | None = option(
        None,
        "--pass-rate",
        metavar="X",
        number=FRACTION,
        help="with --repeat, a case passes when at least this share of its repeats pass "
        "(default: every repeat); a file's or case's execution.pass_rate wins",
        doc="with `--repeat`, a case passes when at least this share of its repeats pass "
        "(default: every one); a file's or case's `execution.pass_rate` wins "
        "([below](#gates-over-repeats))",
    )
    threshold: float | None = option(
        None,
        "--threshold",
        metavar="X",
        number=FRACTION,
        help="gate on each target's mean score being at least X, not on each case passing",
        doc="gate on each target's mean score (of its `ok` rows) being at least X instead of "
        "on each case passing ([exit status](#exit-status))",
    )
    max_cost: float | None = option(
        None,
        "--max-cost",
        metavar="USD",
        number=BUDGET,
        help="a hard budget: no target, judge or simulator call is sent whose worst case "
        "could take this run's spending past USD (cache hits are free); exit 1, and --resume "
        "continues",
        doc="a hard budget: no call (target, judge, simulated user) is sent whose worst case "
        "could take this run's spending past USD; exit 1 once one is refused, `--resume` "
        "continues ([below](#--max-cost))",
    )

    @property
    def selection(self) -> Selection:
        """The cases ``eval_id``, ``tags`` and ``skip_tags`` select."""
        from evalwright.orchestrator.select import Selection  # the CLI's start stays light

        return Selection(self.eval_id, self.tags, self.skip_tags)


RUN_OPTIONS = declared(RunOptions)
"""Every run option, in the order ``--help`` and the docs table show them."""


def run_option(name: str) -> Option:
    """The run option of keyword ``name`` (``--pass-mark`` is shared with other commands)."""
    return next(declared for declared in RUN_OPTIONS if declared.name == name)


def accepted(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The run options of a call to :func:`evalwright.run`, converted and checked: the
    values of :class:`RunOptions`' option fields (a keyword not given gets its default)."""
    values = {
        declared.name: declared.value(settings.get(declared.name, declared.default))
        for declared in RUN_OPTIONS
    }
    if values["ray_address"] is not None and values["executor"] != "ray":
        raise ConfigError("ray_address: give it with executor 'ray'")
    return values


class RunSettings(TypedDict, total=False):
    """The options of :func:`run` and :func:`run_async`, those of ``evalwright eval``
    (docs/running.md#evalwright-eval): the fields of :class:`RunOptions` declared with
    :func:`option`, plus ``reporter`` and ``keep_rows``."""

    targets: str | Target | Sequence[str | Target]
    """Run every case on these targets: names in the targets file, or target objects."""
    targets_file: str | os.PathLike[str] | None
    eval_id: str | Sequence[str]
    """Globs: a case runs when its id matches any of them."""
    tags: str | Sequence[str]
    """A case runs when it has any of these tags (docs/eval-files.md#tags)."""
    skip_tags: str | Sequence[str]
    """A case with any of these tags does not run, whatever ``tags`` says."""
    only_failed: str | os.PathLike[str] | None
    """Run only the (case, target) pairs that failed or errored in this results file."""
    repeat: int | None
    """Run each (case, target) this many times where the case sets no ``repeat:`` (else the
    config's, else 1; docs/running.md#repeats-and-reliability)."""
    workers: int
    executor: Literal["local", "ray"]
    """Where agent (``cli``, ``codex``) cases run: ``"local"`` (default) or ``"ray"``, as
    Ray tasks (the ``evalwright[ray]`` extra; docs/scale.md)."""
    ray_address: str | None
    """The Ray cluster to join with ``executor="ray"`` (default: Ray's own choice)."""
    out: str | os.PathLike[str] | None
    resume: str | os.PathLike[str] | None
    cache: bool | None
    dry_run: bool
    batch: bool
    """Send chat targets' single-turn cases through their provider's batch API
    (docs/batch.md)."""
    judge_live: bool
    """Call the judges of batched cases live instead of in a second batch phase
    (docs/batch.md#judges)."""
    pass_mark: float
    pass_rule: Literal["all", "mean"]
    """How a case's evaluators make its verdict (docs/eval-files.md#pass-rules)."""
    pass_rate: float | None
    """The share of a case's repeats that must pass (docs/running.md#gates-over-repeats)."""
    threshold: float | None
    max_cost: float | None
    """A hard budget in USD: no call (target, judge, simulator; cache hits free) is sent whose
    worst case could take the run's spending past it (docs/running.md#--max-cost)."""
    reporter: Reporter | None
    """Told when the run starts, each row, each warning, and the end."""
    keep_rows: bool
    """Whether :attr:`RunResult.rows` holds the rows (default ``True``). ``False`` keeps
    memory flat however large the suite: the rows are in the results file, and iterating a
    :class:`AsyncRun` still yields each (docs/python-api.md#running)."""
