"""Each run option is declared once (evalwright.orchestrator.options) and every view of it is
read from that declaration: ``eval``'s parser, the Python API's keywords and checks, and the
options table of docs/running.md#evalwright-eval."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

import evalwright
from evalwright.api.run import options_for
from evalwright.cli import build_parser
from evalwright.cli.argtypes import docs_table, settings_from
from evalwright.cli.eval_output import EVAL_OUTPUT
from evalwright.errors import ConfigError
from evalwright.orchestrator.option_spec import Option
from evalwright.orchestrator.options import RUN_OPTIONS, RunSettings, run_option
from evalwright.orchestrator.run import SilentReporter
from tests.conftest import run_cli

REPO = Path(__file__).resolve().parents[2]


def test_the_docs_table_is_the_declared_options() -> None:
    """docs/running.md holds the table generated from the declarations, whole: a new or
    changed option fails here until its row is pasted in (the expected table is shown)."""
    expected = docs_table(RUN_OPTIONS, EVAL_OUTPUT)
    page = (REPO / "docs" / "running.md").read_text(encoding="utf-8")

    assert expected in page, f"docs/running.md's options table should be:\n\n{expected}"
    assert page.count("| option | Python | meaning |") == 1


def test_run_settings_has_a_keyword_for_each_run_option_and_no_other() -> None:
    names = {option.name for option in RUN_OPTIONS}

    assert set(RunSettings.__optional_keys__) == names | {"reporter", "keep_rows"}
    assert not RunSettings.__required_keys__
    assert not names & {option.name for option in EVAL_OUTPUT}


def _given(option: Option) -> list[str]:
    """A command line giving ``option`` a value other than its default."""
    if option.action in ("flag", "toggle"):
        return [option.flags[0]]
    if option.choices:
        return [option.flags[0], next(c for c in option.choices if c != option.default)]
    return [option.flags[0], "1"]


# The README's test install has no Ray extra: there ``--executor ray`` is its clear error.
_RAY = importlib.util.find_spec("ray") is not None


def test_every_run_option_on_the_command_line_reaches_the_run() -> None:
    given = [o for o in RUN_OPTIONS if _RAY or o.name not in ("executor", "ray_address")]
    argv = ["eval", "evals"]
    for option in given:
        argv += _given(option)
    args = build_parser().parse_args(argv)

    options = options_for(["evals"], settings_from(args, SilentReporter()))

    for option in given:
        value = getattr(options, option.name)
        assert value != option.default, f"{option.flags[0]} did not reach RunOptions"
    if not _RAY:
        ray = settings_from(
            build_parser().parse_args(["eval", "x", "--executor", "ray"]), SilentReporter()
        )
        with pytest.raises(ConfigError, match=r"--executor ray needs Ray: pip install"):
            options_for(["x"], ray)
    assert options.targets == ["1"]
    assert options.eval_id == ("1",)
    assert options.out == Path("1")
    assert (options.workers, options.pass_mark, options.max_cost) == (1, 1.0, 1.0)


def test_pass_mark_is_the_same_option_on_every_command() -> None:
    for command in (["eval", "x"], ["report", "r.jsonl"], ["compare", "a", "b"]):
        assert build_parser().parse_args(command).pass_mark == run_option("pass_mark").default
        given = build_parser().parse_args([*command, "--pass-mark", "0.8"])
        assert given.pass_mark == 0.8


# One check per option: the command line and the Python API give the same message.

BAD = [
    ("workers", "0", 0, "expected at least 1, got 0"),
    ("workers", "two", "two", "expected a whole number, got 'two'"),
    ("repeat", "1001", 1001, "expected at most 1000, got 1001"),
    ("pass_mark", "1.5", 1.5, "expected a number from 0 to 1, got 1.5"),
    ("threshold", "-1", -1, "expected a number from 0 to 1, got -1"),
    ("max_cost", "0", 0, "expected a positive number of US dollars, got 0"),
    ("max_cost", "inf", math.inf, "expected a positive number of US dollars, got inf"),
    ("max_cost", "abc", "abc", "expected a number of US dollars, got 'abc'"),
]


@pytest.mark.parametrize(("name", "typed", "given", "problem"), BAD)
def test_a_bad_value_gets_one_message_from_the_cli_and_the_api(
    tmp_path: Path, name: str, typed: str, given: object, problem: str
) -> None:
    flag = run_option(name).flags[0]

    result = run_cli("eval", tmp_path, flag, typed)
    with pytest.raises(ConfigError) as raised:
        evalwright.run(tmp_path, **{name: given})  # pyright: ignore[reportArgumentType]

    assert result.code == 2
    assert f"argument {flag}: {problem}" in result.err
    assert str(raised.value) == f"{name}: {problem}"


@pytest.mark.parametrize("name", ["workers", "repeat", "pass_mark", "max_cost"])
def test_the_api_takes_no_bool_for_a_number(tmp_path: Path, name: str) -> None:
    with pytest.raises(ConfigError, match=f"^{name}: expected a .*number.*, got True$"):
        evalwright.run(tmp_path, **{name: True})  # pyright: ignore[reportArgumentType]


def test_a_bad_api_value_is_refused_before_any_file_is_read(tmp_path: Path) -> None:
    """The options are checked first: the path does not exist, and that is not the error."""
    with pytest.raises(ConfigError, match=r"^workers: expected at least 1, got 0$"):
        evalwright.run(tmp_path / "missing", workers=0)
