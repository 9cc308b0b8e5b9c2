"""The ``evalwright`` command line: parse options, call one library function per command.

Only argparse is imported here, so ``evalwright --help`` starts fast; each command imports
what it needs when it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from evalwright import __version__

Handler = Callable[[argparse.Namespace], int]


def _validate(args: argparse.Namespace) -> int:
    from evalwright.cli.validate import run

    return run(args)


def _prompt(args: argparse.Namespace) -> int:
    from evalwright.cli.prompt import run

    return run(args)


def _schema(args: argparse.Namespace) -> int:
    from evalwright.cli.schema import run

    return run(args)


def build_parser() -> argparse.ArgumentParser:
    """The full option parser."""
    parser = argparse.ArgumentParser(
        prog="evalwright", description="Evaluate LLMs and AI agents from YAML eval files."
    )
    parser.add_argument("--version", action="version", version=f"evalwright {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    validate = commands.add_parser(
        "validate",
        help="check eval files (and their project's config) for every problem",
        description="Check eval files and report every problem as path:line:col. Exit 0 when "
        "there are no errors (warnings alone pass), 1 otherwise.",
    )
    validate.add_argument(
        "paths", nargs="+", metavar="PATH", help="eval files, or directories to search for them"
    )
    validate.set_defaults(handler=_validate)

    prompt = commands.add_parser(
        "prompt",
        help="show what a case will send, without calling anything",
        description="Show each selected case's question, guidelines and chat prompt.",
    )
    prompt.add_argument("eval_file", metavar="EVAL_FILE")
    prompt.add_argument("--eval-id", metavar="GLOB", help="select cases whose id matches")
    prompt.add_argument(
        "--mode",
        choices=("lm", "agent"),
        default="lm",
        help="lm: chat APIs and cli targets; agent: codex and vscode",
    )
    prompt.add_argument("--json", action="store_true", help="one JSON object per selected case")
    prompt.add_argument(
        "--target", metavar="NAME", help="also show the exact wire request this target would send"
    )
    prompt.set_defaults(handler=_prompt)

    schema = commands.add_parser(
        "schema",
        help="print the JSON Schema of a file format",
        description="Print the JSON Schema generated from evalwright's models.",
    )
    schema.add_argument("kind", nargs="?", choices=("eval", "targets", "config"), default="eval")
    schema.set_defaults(handler=_schema)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    from evalwright.errors import ConfigError

    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except ConfigError as exc:
        print(f"evalwright: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("evalwright: interrupted", file=sys.stderr)
        return 130
