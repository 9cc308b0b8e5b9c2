"""The workspace checks (docs/agents.md#workspace-checks) on real directories with real
commands: ``workspace_command`` passes on exit 0 or scores a printed line, keeps the ends of
its output and scores a timeout 0; ``file_exists`` and ``file_contains`` never leave the
workspace; ``diff`` names each file the agent should not have changed; each may be negated."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import ValidationError

from evalwright.evalfile.action_specs import (
    DiffSpec,
    FileContainsSpec,
    FileExistsSpec,
    WorkspaceCommandSpec,
)
from evalwright.evalfile.evaluator_specs import WORKSPACE_CHECK_TYPES
from evalwright.evalfile.resolved import Evaluator
from evalwright.evalfile.template import parse_template
from evalwright.evaluators import EvalContext, evaluate
from evalwright.evaluators.base import EvaluatorFailure
from evalwright.evaluators.judge import judge_prompt
from evalwright.evaluators.workspace import OUTPUT_KEPT, WorkspaceCheckSpec, workspace_check
from evalwright.providers.workspace_diff import Change, FileChange
from evalwright.results.parts import EvaluatorResult

PYTHON = sys.executable


def _context(workspace: Path | None, change: Change | None = None) -> EvalContext:
    return EvalContext(
        case_id="c1",
        question="Fix the bug.",
        expected_outcome="Fixed.",
        reference_answer="",
        candidate_answer="Done.",
        guidelines="",
        guideline_paths=[],
        input_files=[],
        workspace=None if workspace is None else str(workspace),
        change=change,
    )


def _result(spec: WorkspaceCheckSpec, workspace: Path | None, **ctx: Any) -> EvaluatorResult:
    [result] = asyncio.run(evaluate((Evaluator(spec),), _context(workspace, **ctx)))
    return result


def _command(*argv: str, **options: Any) -> WorkspaceCommandSpec:
    return WorkspaceCommandSpec(name="tests", command=list(argv), **options)


def test_every_workspace_check_type_is_run_as_one() -> None:
    kinds = {cls.model_fields["type"].default for cls in get_args(WorkspaceCheckSpec)}
    assert kinds == set(WORKSPACE_CHECK_TYPES)


def test_a_command_passes_on_exit_zero_and_fails_otherwise(tmp_path: Path) -> None:
    (tmp_path / "here.txt").write_text("x")
    ok = _result(_command(PYTHON, "-c", "import os; print(os.listdir('.'))"), tmp_path)
    assert (ok.status, ok.score) == ("ok", 1.0)
    assert ok.output is not None
    assert ok.output.stdout == "['here.txt']\n"
    assert ok.raw_request is not None
    assert ok.raw_request.model_dump()["cwd"] == str(tmp_path)
    fail = "import sys; print('2 failed'); sys.stderr.write('boom'); sys.exit(1)"
    bad = _result(_command(PYTHON, "-c", fail), tmp_path)
    assert (bad.status, bad.score) == ("ok", 0.0)
    assert bad.misses == (f"{PYTHON} -c {fail} exited with status 1",)
    assert bad.output is not None
    assert (bad.output.exit_code, bad.output.stdout, bad.output.stderr) == (1, "2 failed\n", "boom")


def test_a_score_on_the_last_line_is_the_score(tmp_path: Path) -> None:
    printed = "print('3 of 4 tests pass'); print('{\"score\": 0.75}')"
    result = _result(_command(PYTHON, "-c", printed), tmp_path)
    assert result.score == 0.75
    outside = _result(_command(PYTHON, "-c", "print('{\"score\": 7}')"), tmp_path)
    assert outside.status == "error"
    assert "printed score 7, not a number in [0, 1]" in outside.reasoning


def test_only_the_end_of_long_output_is_kept(tmp_path: Path) -> None:
    noisy = "import sys; print('a' * 100000 + 'THE END'); sys.stderr.write('b' * 100000 + 'TAIL')"
    result = _result(_command(PYTHON, "-c", noisy), tmp_path)
    assert result.output is not None
    assert result.output.stdout.endswith("THE END\n")
    assert result.output.stderr.endswith("TAIL")
    assert result.output.stdout.startswith("[")
    assert OUTPUT_KEPT < len(result.output.stdout) < OUTPUT_KEPT + 40


def test_a_timeout_scores_zero_and_says_so(tmp_path: Path) -> None:
    spec = _command(PYTHON, "-c", "import time; print('started', flush=True); time.sleep(60)")
    result = _result(spec.model_copy(update={"timeout_seconds": 0.5}), tmp_path)
    assert (result.status, result.score) == ("ok", 0.0)
    assert result.misses[0].endswith("timed out after 0.5 s")
    assert result.output is not None
    assert result.output.timed_out
    assert result.output.exit_code is None
    assert result.output.stdout == "started\n"


def test_the_command_gets_no_secret_and_the_workspace_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOME_API_KEY", "sk-hidden")
    show = "import os; print(os.environ.get('SOME_API_KEY'), os.environ['EVALWRIGHT_WORKSPACE'])"
    result = _result(_command(PYTHON, "-c", show), tmp_path)
    assert result.output is not None
    assert result.output.stdout == f"None {tmp_path}\n"


def test_a_check_without_a_workspace_is_an_error_saying_what_to_add() -> None:
    result = _result(FileExistsSpec(name="f", path="a"), None)
    assert result.status == "error"
    assert "file_exists needs the case's workspace: give the case, its file" in result.reasoning


def test_file_exists_and_its_negation(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "fix.py").write_text("")
    assert _result(FileExistsSpec(name="f", path="src/fix.py"), tmp_path).score == 1.0
    missing = _result(FileExistsSpec(name="f", path="notes.md"), tmp_path)
    assert (missing.score, missing.misses) == (0.0, ("notes.md does not exist",))
    spec = FileExistsSpec(name="f", path="notes.md", negate=True)
    negated = _result(spec, tmp_path)
    assert (negated.score, negated.hits) == (1.0, ("not: notes.md does not exist",))


def test_file_contains_every_value(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    both = FileContainsSpec(name="c", path="calc.py", value=["def add", "a + b"])
    assert _result(both, tmp_path).score == 1.0
    one = _result(FileContainsSpec(name="c", path="calc.py", value=["a + b", "A - B"]), tmp_path)
    assert (one.score, one.misses) == (0.0, ("calc.py lacks 'A - B'",))
    folded = FileContainsSpec(name="c", path="calc.py", value="A + B", case_sensitive=False)
    assert _result(folded, tmp_path).score == 1.0
    absent = _result(FileContainsSpec(name="c", path="nope.py", value="x"), tmp_path)
    assert absent.score == 0.0
    assert absent.misses[0].startswith("nope.py: ")


def test_a_link_the_agent_made_out_of_the_workspace_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("password")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    os.symlink(outside, workspace / "looks-local.txt")
    spec = FileContainsSpec(name="c", path="looks-local.txt", value="password")
    result = _result(spec, workspace)
    assert (result.score, result.misses) == (0.0, ("looks-local.txt leads out of the workspace",))
    exists = _result(FileExistsSpec(name="e", path="looks-local.txt"), workspace)
    assert exists.score == 0.0


@pytest.mark.parametrize("path", ["/etc/passwd", "../x", "a/../../x", "a\\..\\x"])
def test_a_path_leaving_the_workspace_is_refused_when_the_eval_file_is_read(path: str) -> None:
    with pytest.raises(ValidationError, match=r"relative to the workspace, without '\.\.'"):
        FileExistsSpec.model_validate({"name": "f", "type": "file_exists", "path": path})


CHANGE = Change(
    (
        FileChange("calc.py", 1, 1),
        FileChange("docs/notes.md", 3, 0),
        FileChange("logo.png", None, None),
    ),
    "diff --git a/calc.py b/calc.py\n-    return a - b\n+    return a + b\n",
)


def test_diff_names_each_file_outside_allowed_paths() -> None:
    result = _result(
        DiffSpec(name="d", allowed_paths=["calc.py", "docs/**"]), Path("."), change=CHANGE
    )
    assert result.score == 0.0
    assert result.hits == ("calc.py (+1 -1)", "docs/notes.md (+3 -0)")
    assert result.misses == ("logo.png (binary) is outside allowed_paths",)
    assert result.reasoning == "3 file(s) changed, +4 -1; 1 not allowed"


def test_diff_names_each_forbidden_file_and_passes_a_clean_change() -> None:
    spec = DiffSpec(name="d", forbidden_paths=["*.png", "tests/**"])
    result = _result(spec, Path("."), change=CHANGE)
    assert result.misses == ("logo.png (binary) matches forbidden_paths",)
    only_calc = Change((FileChange("calc.py", 1, 1),), "")
    assert _result(spec, Path("."), change=only_calc).score == 1.0
    negated = _result(spec.model_copy(update={"negate": True}), Path("."), change=only_calc)
    assert negated.score == 0.0


def test_diff_without_a_readable_change_is_an_error() -> None:
    with pytest.raises(EvaluatorFailure, match="change to its workspace could not be read"):
        asyncio.run(workspace_check(DiffSpec(name="d"), _context(Path("."))))


def test_a_judge_template_may_show_the_diff() -> None:
    template = parse_template("Answer: {{candidate_answer}}\nChange:\n{{diff}}", "inline")
    shown = judge_prompt(template, _context(Path("."), CHANGE))
    assert shown.endswith("Change:\n" + CHANGE.diff)
    assert judge_prompt(template, _context(None)).endswith("Change:\n")
