"""``evalwright eval`` options and configuration errors, run in this process (the quickstart
as a real subprocess): --dry-run, --eval-id, --pass-mark, --threshold, --workers and a
target's workers, directories, and exit 2 with one clear message for each configuration
mistake."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, CliResult, ProjectDir, run_process
from tests.e2e.background import max_in_flight
from tests.e2e.harness import E2E, targets_yaml

EVAL_FILE = "evals/opts.yaml"
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
TRACEBACK = "Traceback"


CONTAINS = "    - {name: says-fake, type: contains, value: fake}"
JUDGE = "    - {name: judge, type: llm_judge}"


def _cases(ids: list[str], evaluators: str = CONTAINS) -> str:
    lines = ["execution:", "  evaluators:", evaluators, "evalcases:"]
    for case_id in ids:
        lines += [
            f"  - id: {case_id}",
            f"    expected_outcome: Answers {case_id}.",
            f"    input: Tell me about {case_id}.",
        ]
    return "\n".join(lines) + "\n"


JUDGED = _cases(["alpha-1", "alpha-2", "beta-1"], JUDGE)
VERDICT: dict[str, Any] = {"score": 1, "hits": [], "misses": [], "reasoning": "fine"}


def _summary(out: str, target: str) -> dict[str, str]:
    """The summary table's row of ``target``, by column name."""
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("target "))
    names = lines[head].split()
    row = next(line.split() for line in lines[head + 1 :] if line.split()[:1] == [target])
    return dict(zip(names, row, strict=False))


def _no_keys(e2e: E2E) -> None:
    for name in KEY_VARIABLES:
        e2e.env.pop(name, None)


# --dry-run, --eval-id


def test_dry_run_sends_nothing_and_needs_no_key(e2e: E2E) -> None:
    _no_keys(e2e)
    e2e.project.write(EVAL_FILE, JUDGED)
    result = e2e.run(
        "eval", EVAL_FILE, "--target", "oa", "--target", "an", "--dry-run", "--out", "r.jsonl"
    )
    assert result.code == 0, result.err
    assert e2e.server.requests == []
    rows = e2e.rows("r.jsonl")
    assert len(rows) == 6
    assert {r["provider"] for r in rows} == {"mock"}
    assert {r["target"] for r in rows} == {"oa", "an"}
    assert all(r["status"] == "ok" for r in rows), [r["error"] for r in rows]
    judged = [r["evaluator_results"][0] for r in rows]
    assert {j["reasoning"] for j in judged} == {"mock judge"}


def test_eval_id_selects_by_glob(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, _cases(["alpha-1", "alpha-2", "beta-1"]))
    result = e2e.run(
        "eval", EVAL_FILE, "--target", "oa", "--eval-id", "alpha-*", "--out", "r.jsonl"
    )
    assert result.code == 0, result.err
    assert sorted(r["eval_id"] for r in e2e.rows("r.jsonl")) == ["alpha-1", "alpha-2"]
    assert len(e2e.candidates()) == 2
    assert {r["cache"] for r in e2e.rows("r.jsonl")} == {"off"}
    assert not (e2e.root / ".evalwright" / "cache").exists(), "no cache unless asked for"


# --pass-mark, --threshold


def test_pass_mark_and_threshold(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, JUDGED)
    e2e.server.judge_verdict = {"score": 0.6, "hits": [], "misses": [], "reasoning": "ok"}
    base = ("eval", EVAL_FILE, "--target", "oa", "--quiet")

    strict = e2e.run(*base, "--out", "a.jsonl", "--pass-mark", "0.7")
    assert strict.code == 1, "without --threshold a case below the pass mark fails the run"
    assert _summary(strict.out, "oa")["passed"] == "0/3"
    assert _summary(strict.out, "oa")["mean"] == "0.600"
    assert "pass rule all, pass mark 0.7: 3 case(s) failed" in strict.out.splitlines()

    gated = e2e.run(*base, "--out", "c.jsonl", "--pass-mark", "0.7", "--threshold", "0.5")
    assert gated.code == 0, "with --threshold the mean is the gate, not each case"
    assert _summary(gated.out, "oa")["passed"] == "0/3"
    assert "oa: mean score 0.600 meets the threshold 0.5" in gated.out.splitlines()

    below = e2e.run(*base, "--out", "b.jsonl", "--threshold", "0.9")
    assert below.code == 1
    assert TRACEBACK not in below.err
    assert _summary(below.out, "oa")["passed"] == "3/3", "the default pass mark is 0.5"
    assert [line for line in below.out.splitlines() if "BELOW" in line] == [
        "oa: mean score 0.600 BELOW the threshold 0.9"
    ]
    assert [r["status"] for r in e2e.rows("b.jsonl")] == ["ok"] * 3


# Configuration errors: exit 2, one clear message, no traceback, nothing sent or written


def _assert_config_error(e2e: E2E, result: CliResult, *parts: str) -> None:
    assert result.code == 2, result.err + result.out
    assert TRACEBACK not in result.err + result.out
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, f"one message, not {lines}"
    assert lines[0].startswith("evalwright: error: ")
    for part in parts:
        assert part in lines[0]
    assert e2e.server.requests == []
    assert not (e2e.root / "r.jsonl").exists()


def test_an_unknown_target_is_a_config_error(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, JUDGED)
    result = e2e.run("eval", EVAL_FILE, "--target", "nope", "--out", "r.jsonl")
    _assert_config_error(e2e, result, "unknown target 'nope'", "oa")


def test_a_missing_targets_file_is_a_config_error(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, JUDGED)
    (e2e.root / ".evalwright" / "targets.yaml").unlink()
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "r.jsonl")
    _assert_config_error(e2e, result, "no targets file", ".evalwright/targets.yaml")


def test_a_missing_targets_option_file_is_a_config_error(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, JUDGED)
    result = e2e.run(
        "eval", EVAL_FILE, "--target", "oa", "--targets", "missing.yaml", "--out", "r.jsonl"
    )
    assert result.code == 2, result.err
    assert TRACEBACK not in result.err + result.out
    # A load error of the named file, located like every other one.
    assert result.err.strip().splitlines() == [
        "missing.yaml:1:1: error: cannot read the file: No such file or directory"
    ]
    assert e2e.server.requests == []


def test_an_eval_file_with_an_error_prints_its_diagnostic(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, "evalcases:\n  - id: broken\n    input: Hi\n")
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "r.jsonl")
    assert result.code == 2, result.err
    assert TRACEBACK not in result.err + result.out
    lines = result.err.strip().splitlines()
    assert lines
    diagnostic = re.compile(r"^\S*evals/opts\.yaml:\d+:\d+: error: .*expected_outcome")
    assert any(diagnostic.match(line) for line in lines), lines
    assert e2e.server.requests == []
    assert not (e2e.root / "r.jsonl").exists()


def test_eval_files_of_two_projects_are_a_config_error(e2e: E2E, tmp_path: Path) -> None:
    e2e.project.write(EVAL_FILE, JUDGED)
    other = ProjectDir(tmp_path / "other")
    (other.root / ".git").mkdir(parents=True)
    other.write("evals/other.yaml", JUDGED)
    result = e2e.run(
        "eval", EVAL_FILE, other.root / "evals/other.yaml", "--target", "oa", "--out", "r.jsonl"
    )
    _assert_config_error(e2e, result, "one project root")


def test_an_unset_variable_in_a_used_target_is_a_config_error(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, JUDGED)
    targets = targets_yaml(e2e.server.url).replace(
        "model: claude-test\n", "model: claude-test\n    api_key: ${{ NOT_SET_ANYWHERE }}\n"
    )
    e2e.project.write(".evalwright/targets.yaml", targets)
    e2e.server.judge_verdict = VERDICT
    # The target that uses the variable is not in this run: no error.
    fine = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "fine.jsonl")
    assert fine.code == 0, fine.err
    e2e.server.clear()

    result = e2e.run("eval", EVAL_FILE, "--target", "an", "--out", "r.jsonl")
    _assert_config_error(e2e, result, "'an'", "api_key", "NOT_SET_ANYWHERE")


def test_a_missing_api_key_is_a_config_error(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, JUDGED)
    e2e.env.pop("ANTHROPIC_API_KEY")
    result = e2e.run("eval", EVAL_FILE, "--target", "an", "--out", "r.jsonl")
    _assert_config_error(e2e, result, "'an'", "ANTHROPIC_API_KEY")


# Concurrency


def test_a_targets_workers_bounds_its_requests_in_flight(e2e: E2E) -> None:
    e2e.project.write(".evalwright/targets.yaml", targets_yaml(e2e.server.url, "\n    workers: 2"))
    e2e.project.write(EVAL_FILE, _cases([f"case-{i}" for i in range(8)]))
    e2e.server.latency_ms = 300
    started = time.monotonic()
    result = e2e.run(
        "eval", EVAL_FILE, "--target", "oa", "--target", "ge", "--workers", "8", "--out", "r.jsonl"
    )
    assert result.code == 0, result.err
    bounded = [r for r in e2e.candidates() if r.api == "openai"]
    free = [r for r in e2e.candidates() if r.api == "gemini"]
    assert (len(bounded), len(free)) == (8, 8)
    assert max_in_flight(bounded, 0.3) == 2
    assert max_in_flight(free, 0.3) > 2, "the bound is the target's own, not the run's"
    assert time.monotonic() - started >= 4 * 0.3


def test_workers_one_runs_cases_one_at_a_time(e2e: E2E) -> None:
    ids = ["one", "two", "three"]
    e2e.project.write(EVAL_FILE, _cases(ids, JUDGE))
    e2e.server.latency_ms = 100
    e2e.server.judge_verdict = VERDICT
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--workers", "1", "--out", "r.jsonl")
    assert result.code == 0, result.err
    assert len(e2e.server.requests) == 6
    assert max_in_flight(e2e.server.requests, 0.1) == 1
    assert [r["eval_id"] for r in e2e.rows("r.jsonl")] == ids


# Paths


def test_a_directory_path_finds_its_eval_files(e2e: E2E) -> None:
    e2e.project.write("evals/a.yaml", _cases(["in-a"]))
    e2e.project.write(
        "evals/nested/b.jsonl", '{"id": "in-b", "expected_outcome": "x", "input": "y"}\n'
    )
    e2e.project.write("evals/notes.yaml", "title: not an eval file\n")
    e2e.project.write("evals/.hidden/c.yaml", _cases(["hidden"]))
    e2e.server.judge_verdict = VERDICT
    result = e2e.run("eval", "evals", "--target", "oa", "--out", "r.jsonl")
    assert result.code == 0, result.err
    rows = e2e.rows("r.jsonl")
    assert sorted((r["eval_file"], r["eval_id"]) for r in rows) == [
        ("evals/a.yaml", "in-a"),
        ("evals/nested/b.jsonl", "in-b"),
    ]


def test_out_holds_one_run(e2e: E2E) -> None:
    """docs/running.md#the-results-file: one results file per run. Running again with the
    same --out must not mix two runs in it (which --resume would then keep as duplicate rows)."""
    e2e.project.write(EVAL_FILE, _cases(["one", "two"]))
    for _ in range(2):
        result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "r.jsonl")
        assert result.code == 0, result.err
    rows = e2e.rows("r.jsonl")
    assert len({r["run_id"] for r in rows}) == 1
    assert sorted(r["eval_id"] for r in rows) == ["one", "two"]


def test_a_missing_path_is_a_config_error(e2e: E2E) -> None:
    result = e2e.run("eval", "evals/none.yaml", "--target", "oa", "--out", "r.jsonl")
    _assert_config_error(e2e, result, "evals/none.yaml")


def test_the_quickstart_runs_offline(tmp_path: Path) -> None:
    # A subprocess: the README's first command, exactly as a user runs it.
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "examples" / "quickstart", checkout / "examples" / "quickstart")
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    out = tmp_path / "r.jsonl"
    result = run_process("eval", "examples/quickstart", "--out", out, cwd=checkout, env=env)
    assert result.code == 0, result.err + result.out
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(rows) == 2
    assert [r["status"] for r in rows] == ["ok", "ok"], [r["error"] for r in rows]
    assert {r["provider"] for r in rows} == {"mock"}


@pytest.mark.parametrize("value", ["0", "two"])
def test_workers_must_be_a_positive_number(e2e: E2E, value: str) -> None:
    e2e.project.write(EVAL_FILE, JUDGED)
    result = e2e.run("eval", EVAL_FILE, "--workers", value)
    assert result.code == 2
    assert "--workers" in result.err
    assert TRACEBACK not in result.err
