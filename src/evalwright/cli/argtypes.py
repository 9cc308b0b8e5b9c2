"""The command line's spelling of a declared option (evalwright.orchestrator.option_spec): its
argparse argument, and its row of the options table of docs/running.md#evalwright-eval.

A bad value is a usage error (exit 2) with the message the option's checks give the Python
API too.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

from evalwright.orchestrator.option_spec import Option, OptionProblem
from evalwright.orchestrator.options import RUN_OPTIONS, RunSettings

if TYPE_CHECKING:
    from evalwright.orchestrator.run import Reporter


def settings_from(args: argparse.Namespace, reporter: Reporter) -> RunSettings:
    """The run's settings from the parsed command line: each run option under its keyword."""
    given = {option.name: getattr(args, option.name) for option in RUN_OPTIONS}
    # The rows are in the results file; holding them too would grow with the suite.
    return cast(RunSettings, {**given, "reporter": reporter, "keep_rows": False})


def add_option(parser: Any, option: Option) -> None:
    """Add ``option`` to an argparse parser, its value under ``args.<option.name>``."""
    extra: dict[str, Any] = {"default": option.default}
    if option.action == "flag":
        extra["action"] = "store_true"
    elif option.action == "append":
        # argparse appends to a copy of its default, and a tuple has no append.
        extra.update(action="append", default=list(option.default))
    elif option.action == "toggle":
        extra["action"] = argparse.BooleanOptionalAction
    elif option.action == "count":
        extra["action"] = "count"
    elif option.action == "optional":
        extra.update(nargs="?", const="")
    if option.metavar is not None:
        extra["metavar"] = option.metavar
    if option.choices:
        extra["choices"] = option.choices
    if option.number is not None:
        extra["type"] = _checked(option)
    parser.add_argument(*option.flags, dest=option.name, help=option.help, **extra)


def _checked(option: Option) -> Callable[[str], float]:
    """argparse's ``type=`` for a number option: its problem as the usage error."""

    def parse(text: str) -> float:
        try:
            return option.parse(text)
        except OptionProblem as problem:
            raise argparse.ArgumentTypeError(str(problem)) from None

    return parse


def spelling(option: Option) -> str:
    """How the docs write the option: ``--out FILE``, ``--cache`` / ``--no-cache``."""
    if option.action == "toggle":
        (flag,) = option.flags
        return f"`{flag}` / `--no-{flag.removeprefix('--')}`"
    if option.choices:
        choices = "\\|".join(option.choices)
        return ", ".join(f"`{flag} {choices}`" for flag in option.flags)
    if option.metavar is None:
        return ", ".join(f"`{flag}`" for flag in option.flags)
    value = f"[{option.metavar}]" if option.action == "optional" else option.metavar
    return ", ".join(f"`{flag} {value}`" for flag in option.flags)


def docs_table(run_options: Iterable[Option], command_options: Iterable[Option]) -> str:
    """The options table of docs/running.md#evalwright-eval: each option's spelling, its
    keyword of ``evalwright.run`` (run options only), and its meaning."""
    rows = ["| option | Python | meaning |", "|---|---|---|"]
    rows.extend(f"| {spelling(o)} | `{o.name}` | {o.doc} |" for o in run_options)
    rows.extend(f"| {spelling(o)} |  | {o.doc} |" for o in command_options)
    return "\n".join(rows) + "\n"
