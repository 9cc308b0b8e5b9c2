"""A case's verdict from its evaluators (docs/eval-files.md#pass-rules): ``all`` passes when
every counted evaluator met its own threshold, ``mean`` when the weighted score reached the
pass mark; a required evaluator fails the case under either, a weight of 0 decides nothing,
and a case whose weights are all 0 fails."""

from __future__ import annotations

import asyncio

import pytest

from evalwright.evalfile.models import PassRule
from evalwright.evaluators import EvalContext, case_verdict, evaluate
from evalwright.evaluators.base import EvaluatorResult
from tests.conftest import ProjectDir


def _verdict(
    project: ProjectDir, evaluators: str, rule: PassRule, pass_mark: float = 0.5
) -> tuple[float | None, bool | None, list[EvaluatorResult], tuple[str, ...]]:
    """Judge the answer ``hi there`` with ``evaluators`` (YAML list items, one per line)."""
    lines = "".join(f"        - {line}\n" for line in evaluators.splitlines())
    project.write(
        "e.yaml",
        "evalcases:\n  - id: a\n    expected_outcome: Says hi.\n    input: hi\n"
        f"    execution:\n      evaluators:\n{lines}",
    )
    case = project.load("e.yaml").cases[0]
    context = EvalContext(
        case_id="a",
        question="hi",
        expected_outcome="Says hi.",
        reference_answer="",
        candidate_answer="hi there",
        guidelines="",
        guideline_paths=[],
        input_files=[],
        pass_mark=pass_mark,
    )
    results = asyncio.run(evaluate(case.evaluators, context))
    verdict = case_verdict(case.evaluators, results, rule, pass_mark)
    return verdict.score, verdict.passed, results, verdict.failures


HIT = "{name: hit, type: contains, value: hi}"
MISS = "{name: miss, type: contains, value: bye}"


@pytest.mark.parametrize(("rule", "passed"), [("all", False), ("mean", True)])
def test_one_failed_check_of_two(project: ProjectDir, rule: PassRule, passed: bool) -> None:
    score, verdict, results, failures = _verdict(project, f"{HIT}\n{MISS}", rule)
    assert (score, verdict) == (0.5, passed)
    assert [(r.threshold, r.passed) for r in results] == [(0.5, True), (0.5, False)]
    expected = ("evaluator 'miss' scored 0, below the pass mark 0.5",) if rule == "all" else ()
    assert failures == expected


def test_a_weight_of_zero_decides_nothing_unless_required(project: ProjectDir) -> None:
    weightless = MISS.replace("}", ", weight: 0}")
    assert _verdict(project, f"{HIT}\n{weightless}", "all")[:2] == (1.0, True)
    required = MISS.replace("}", ", weight: 0, required: true}")
    score, passed, _, failures = _verdict(project, f"{HIT}\n{required}", "all")
    assert (score, passed) == (0.0, False)
    assert failures == ("required evaluator 'miss' scored 0, below the pass mark 0.5",)


@pytest.mark.parametrize("rule", ["all", "mean"])
def test_all_weights_zero_fails(project: ProjectDir, rule: PassRule) -> None:
    weightless = HIT.replace("}", ", weight: 0}")
    assert _verdict(project, weightless, rule)[:2] == (0.0, False)


def test_an_evaluators_threshold_is_its_own(project: ProjectDir) -> None:
    lenient = MISS.replace("}", ", threshold: 0}")
    score, passed, results, _ = _verdict(project, f"{HIT}\n{lenient}", "all")
    assert (score, passed) == (0.5, True)
    assert (results[1].threshold, results[1].passed) == (0.0, True)
    strict = HIT.replace("}", ", threshold: 1, required: true}")
    assert _verdict(project, strict, "mean", pass_mark=0.2)[1] is True
    required_miss = MISS.replace("}", ", threshold: 0.3, required: true}")
    *_, failures = _verdict(project, f"{HIT}\n{required_miss}", "mean")
    assert failures == ("required evaluator 'miss' scored 0, below its threshold 0.3",)
