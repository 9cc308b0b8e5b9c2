"""The ``evalwright`` command line: parse options, call one library function per command.

Only argparse and the options' declarations (evalwright.orchestrator.options, standard
library only) are imported here, so ``evalwright --help`` starts fast; each command's module
is imported when that command runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

from evalwright import __version__
from evalwright.cli import argtypes
from evalwright.cli.eval_output import EVAL_OUTPUT
from evalwright.orchestrator.options import RUN_OPTIONS, run_option

CONFIG_ERROR = 2
INTERRUPTED = 130
BROKEN_PIPE = 141


def _add_pass_mark(parser: Any) -> None:
    """``--pass-mark X``: what eval, report and compare count as a passing case."""
    argtypes.add_option(parser, run_option("pass_mark"))


def _command(commands: Any, name: str, help_text: str, description: str) -> Any:
    parser = commands.add_parser(name, help=help_text, description=description)
    parser.set_defaults(module=name)
    return parser


def _add_eval(commands: Any) -> None:
    run = _command(
        commands,
        "eval",
        "run eval files against targets and write the results",
        "Run eval cases against targets, judge the answers and write one JSON line per case "
        "and target. Exit 0 when every case ran and passed (with --threshold: when every case "
        "ran and each target's mean meets it), 1 otherwise, 2 for a configuration error.",
    )
    run.add_argument("paths", nargs="+", metavar="PATH", help="eval files or directories")
    for option in (*RUN_OPTIONS, *EVAL_OUTPUT):
        argtypes.add_option(run, option)


def _add_checks(commands: Any) -> None:
    validate = _command(
        commands,
        "validate",
        "check eval files, config and targets for every problem",
        "Check eval files (and their project's config and targets) and report every problem "
        "as path:line:col. Exit 0 when there are no errors (warnings alone pass), 1 otherwise.",
    )
    validate.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="eval files, targets files, or directories to search",
    )
    prompt = _command(
        commands,
        "prompt",
        "show what a case will send, without calling anything",
        "Show each selected case's question, guidelines and chat prompt.",
    )
    prompt.add_argument("eval_file", metavar="EVAL_FILE")
    prompt.add_argument(
        "--eval-id",
        action="append",
        metavar="GLOB",
        help="select cases whose id matches (repeatable: any of the globs)",
    )
    prompt.add_argument(
        "--tag",
        action="append",
        metavar="TAG",
        help="select only cases with this tag (repeatable: any of the tags)",
    )
    prompt.add_argument(
        "--skip-tag",
        action="append",
        metavar="TAG",
        help="leave out cases with this tag (repeatable; wins over --tag)",
    )
    prompt.add_argument(
        "--mode",
        choices=("lm", "agent"),
        default="lm",
        help="lm: chat APIs and cli targets; agent: codex and vscode",
    )
    prompt.add_argument("--json", action="store_true", help="one JSON object per case")
    prompt.add_argument(
        "--media",
        action="store_true",
        help="put each media file's bytes in the wire body, not its placeholder",
    )
    prompt.add_argument(
        "--target", metavar="NAME", help="also show the exact wire request this target would send"
    )
    prompt.add_argument("--targets", metavar="FILE", help="the targets file to use (as for eval)")
    prompt.add_argument(
        "--rendered",
        action="store_true",
        help="with --target: also show the text the model sees, rendered by the target's "
        "server with its chat template (llama.cpp)",
    )


def _add_tools(commands: Any) -> None:
    schema = _command(
        commands,
        "schema",
        "print the JSON Schema of a file format",
        "Print the JSON Schema generated from evalwright's models.",
    )
    schema.add_argument(
        "kind",
        nargs="?",
        choices=("eval", "targets", "config", "results"),
        default="eval",
        help="the format: eval (default), targets, config, or results (one results-file row)",
    )
    cache = _command(
        commands,
        "cache",
        "show or clear the response cache",
        "Show or clear the project's response cache.",
    )
    cache.add_argument("action", choices=("stats", "clear"))
    cache.add_argument(
        "path",
        nargs="?",
        default=".",
        metavar="PATH",
        help="a directory of the project (default: the current one)",
    )


def _add_report(commands: Any) -> None:
    report = _command(
        commands,
        "report",
        "write a self-contained HTML report of results files",
        "Write one HTML file (no network access needed) showing the results: an overview per "
        "target, a matrix of scores, the case list and each case in detail; with --baseline, "
        "each row's change against an earlier run.",
    )
    report.add_argument("results", nargs="+", metavar="RESULTS", help="results files (JSON Lines)")
    report.add_argument(
        "-o", "--out", metavar="FILE", help="the report (default: the first results file, .html)"
    )
    report.add_argument(
        "--baseline",
        nargs="+",
        action="extend",
        default=[],
        metavar="OLD",
        help="results files of an earlier run to compare with",
    )
    _add_pass_mark(report)
    report.add_argument("--open", action="store_true", help="open the report in a web browser")


def _add_compare(commands: Any) -> None:
    compare = _command(
        commands,
        "compare",
        "compare two runs, or two targets or prompt variants of one run",
        "Match the rows of two results files on (eval file, eval id, target, repeat, "
        "variant) and show the cases that regressed, improved, are new or were removed, per "
        "target the mean score and pass rate before and after, and the paired difference "
        "with its 95% interval clustered by case. With --targets A B (or --variants), one "
        "results file's two targets (or variants) are compared. Exit 1 when the --fail-on "
        "rule trips (by default: a case regressed), 0 otherwise, 2 for a file that cannot "
        "be read.",
    )
    compare.add_argument("old", metavar="OLD", help="the earlier results file (or the run)")
    compare.add_argument(
        "new", metavar="NEW", nargs="?", help="the later results file (not with --targets)"
    )
    within = compare.add_mutually_exclusive_group()
    within.add_argument("--targets", nargs=2, metavar=("A", "B"), help="compare B with A")
    within.add_argument("--variants", nargs=2, metavar=("X", "Y"), help="compare Y with X")
    compare.add_argument(
        "--fail-on",
        choices=("regression", "significant-regression", "score-drop"),
        default="regression",
        help="exit 1 when a case regressed (default), when a target's paired interval lies "
        "below zero, or when a case's score fell by --score-drop or more",
    )
    compare.add_argument(
        "--score-drop",
        type=float,
        default=None,
        metavar="X",
        help="list the cases whose score fell by X or more without a flip (default 0.2 "
        "with --fail-on score-drop)",
    )
    compare.add_argument(
        "--junit",
        metavar="FILE",
        help="also write JUnit XML: a testcase per key (per target with "
        "significant-regression), failing as --fail-on decides",
    )
    compare.add_argument(
        "--summary-md",
        metavar="FILE",
        help="also write a Markdown summary naming what failed --fail-on",
    )
    compare.add_argument(
        "--effect",
        type=float,
        default=None,
        metavar="X",
        help="say how many cases a run needs to detect a difference of X (80%% power)",
    )
    _add_pass_mark(compare)


def _add_judge_check(commands: Any) -> None:
    check = _command(
        commands,
        "judge-check",
        "check each judge of a results file against human labels",
        "Compare each LLM judge in a results file (a single judge, each panel member and "
        "each panel's aggregate) with human pass/fail labels: accuracy, Cohen's kappa, a "
        "confusion table and the cases they disagree on. Exit 0, or 2 for a file that cannot "
        "be read or a bad label.",
    )
    check.set_defaults(module="judge_check")
    check.add_argument("results", metavar="RESULTS", help="the results file (JSON Lines)")
    check.add_argument(
        "--labels",
        required=True,
        metavar="LABELS",
        help='human labels, JSON Lines: {"eval_id", "target", "pass"} or "score" (0 to 1)',
    )
    _add_pass_mark(check)
    check.add_argument("--json", action="store_true", help="print the comparison as JSON")


def _add_init(commands: Any) -> None:
    init = _command(
        commands,
        "init",
        "write a working example project to start from",
        "Write a targets file (an offline mock and commented real targets), config.yaml and an "
        "example eval file with a guideline, an attached file and three kinds of evaluator. "
        "Nothing is overwritten: exit 2 naming a file that exists, with nothing written.",
    )
    init.add_argument(
        "directory",
        nargs="?",
        default=".",
        metavar="DIR",
        help="where to write the project (default: the current directory)",
    )


def _add_import(commands: Any) -> None:
    importing = _command(
        commands,
        "import",
        "import another tool's eval suite as evalwright files",
        "Write another tool's eval suite as an evalwright eval file, a targets file and "
        "IMPORT-NOTES.md, which lists every item not carried over (docs/importing.md). Exit 0 "
        "when everything was carried over, 1 when anything was not, 2 for a file that cannot be "
        "read or a file that would be overwritten.",
    )
    importing.set_defaults(module="importing")
    formats = importing.add_subparsers(dest="format", metavar="FORMAT", required=True)
    promptfoo = formats.add_parser(
        "promptfoo",
        help="a promptfoo config (promptfooconfig.yaml)",
        description=("Import a promptfoo config: each (prompt, test) pair becomes one case."),
    )
    promptfoo.add_argument("config", metavar="CONFIG", help="the promptfoo config file")
    promptfoo.add_argument(
        "-o",
        "--out",
        metavar="DIR",
        help="the directory to write (default: evalwright-import beside the config)",
    )
    agentv = formats.add_parser(
        "agentv",
        help="an AgentV suite (tests, vars, assert)",
        description="Import an AgentV suite: each test becomes one case, the nearest "
        ".agentv/providers.yaml the targets.",
    )
    agentv.add_argument("config", metavar="SUITE", help="the AgentV suite file")
    agentv.add_argument(
        "-o",
        "--out",
        metavar="DIR",
        help="the directory to write (default: evalwright-import beside the suite)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The full option parser."""
    parser = argparse.ArgumentParser(
        prog="evalwright", description="Evaluate LLMs and AI agents from YAML eval files."
    )
    parser.add_argument("--version", action="version", version=f"evalwright {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_eval(commands)
    _add_compare(commands)
    _add_checks(commands)
    _add_tools(commands)
    _add_report(commands)
    _add_judge_check(commands)
    _add_init(commands)
    _add_import(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    Ctrl-C at any moment exits 130, and a reader that stops reading (``prompt --json |
    head``) ends the command quietly with 141, as other command-line tools do; neither
    prints a traceback.
    """
    try:
        return _run(argv)
    except KeyboardInterrupt:
        print("evalwright: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # Nothing more can be written; keep the interpreter's last flush from failing too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE


def _interrupts_raise() -> None:
    """From now on Ctrl-C raises KeyboardInterrupt (the run keeps its finished rows), where
    the command's entry point left at once while its modules were imported."""
    handler = signal.getsignal(signal.SIGINT)
    if getattr(handler, "evalwright_early", False):
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _run(argv: Sequence[str] | None) -> int:
    # Our models are file formats, not a place for pydantic plugins; looking them up scans
    # every installed package's entry points (tens of milliseconds at each start).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    args = build_parser().parse_args(argv)
    from evalwright.errors import ConfigError, LoadError, printable

    try:
        command = importlib.import_module(f"evalwright.cli.{args.module}")
        _interrupts_raise()
        code: int = command.run(args)
    except LoadError as exc:
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
        return CONFIG_ERROR
    except ConfigError as exc:
        print(f"evalwright: error: {printable(str(exc))}", file=sys.stderr)
        return CONFIG_ERROR
    return code
