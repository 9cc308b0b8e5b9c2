"""Evaluator weights (docs/eval-files.md#evaluators): a weight of 0 is allowed, its evaluator is
reported but not counted, and a case whose weights are all 0 scores 0, as under AgentV."""

from __future__ import annotations

import asyncio

from evalwright.evaluators import EvalContext, case_score, evaluate
from tests.conftest import ProjectDir


def _scored(project: ProjectDir, weights: tuple[str, str]) -> tuple[list[float], float | None]:
    project.write(
        "e.yaml",
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: Says hi.\n"
        "    input_messages: [{role: user, content: hi}]\n"
        "    execution:\n"
        "      evaluators:\n"
        f"        - {{name: hit, type: contains, value: hi, weight: {weights[0]}}}\n"
        f"        - {{name: miss, type: contains, value: bye, weight: {weights[1]}}}\n",
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
    )
    results = asyncio.run(evaluate(case.evaluators, context))
    score, problem = case_score(results)
    assert problem is None
    return [r.weight for r in results], score


def test_a_weight_of_zero_loads_and_does_not_count(project: ProjectDir) -> None:
    assert _scored(project, ("1", "0")) == ([1.0, 0.0], 1.0)


def test_all_weights_zero_scores_zero(project: ProjectDir) -> None:
    assert _scored(project, ("0", "0")) == ([0.0, 0.0], 0.0)
