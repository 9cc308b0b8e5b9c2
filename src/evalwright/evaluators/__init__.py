"""Evaluators: built-in checks, scripts and LLM judges score a candidate answer."""

from __future__ import annotations

import asyncio

from evalwright.evalfile.evaluator_specs import CodeSpec, CostSpec, LatencySpec, LlmJudgeSpec
from evalwright.evalfile.resolved import Evaluator
from evalwright.evaluators.base import (
    EvalContext,
    EvaluatorFailure,
    EvaluatorResult,
    JudgeCaller,
    Verdict,
)
from evalwright.evaluators.builtin import check, limit
from evalwright.evaluators.code import run_script
from evalwright.evaluators.panel import judge_result
from evalwright.evaluators.tools import Call
from evalwright.evaluators.workspace import WorkspaceCheckSpec, workspace_check
from evalwright.results.parts import CommandOutput, EvaluatorRequest

__all__ = [
    "EvalContext",
    "EvaluatorResult",
    "JudgeCaller",
    "case_score",
    "evaluate",
    "required_failures",
]


async def evaluate(evaluators: tuple[Evaluator, ...], ctx: EvalContext) -> list[EvaluatorResult]:
    """Run every evaluator of a case; one failing never stops the others.

    Judges and scripts run concurrently; built-in checks run inline (a task each would cost
    more than the check).
    """
    slow = [e for e in evaluators if isinstance(e.spec, LlmJudgeSpec | CodeSpec)]
    if len(slow) > 1:
        done = dict(
            zip(map(id, slow), await asyncio.gather(*(_run(e, ctx) for e in slow)), strict=True)
        )
        return [done[id(e)] if id(e) in done else await _run(e, ctx) for e in evaluators]
    return [await _run(evaluator, ctx) for evaluator in evaluators]


async def _run(evaluator: Evaluator, ctx: EvalContext) -> EvaluatorResult:
    spec = evaluator.spec
    if isinstance(spec, LlmJudgeSpec):
        return await judge_result(spec, evaluator.template, ctx)
    raw: EvaluatorRequest | None = None
    output: CommandOutput | None = None
    try:
        if isinstance(spec, CodeSpec):
            verdict, raw = await run_script(spec, evaluator.cwd or ".", ctx)
        elif isinstance(spec, WorkspaceCheckSpec):
            verdict, raw, output = await workspace_check(spec, ctx)
        elif isinstance(spec, LatencySpec | CostSpec):
            verdict = limit(spec, ctx.latency_ms, ctx.cost_usd)
        else:
            calls = [Call(c.name, c.arguments) for c in ctx.tool_calls]
            verdict = check(
                spec,
                ctx.candidate_answer,
                calls,
                lambda: ctx.expected_messages,
                ctx.reference_answer,
            )
    except EvaluatorFailure as exc:
        return EvaluatorResult(
            name=spec.name,
            type=spec.type,
            weight=spec.weight,
            status="error",
            score=None,
            hits=(),
            misses=(),
            reasoning=str(exc),
            raw_request=exc.raw_request,
            reply=exc.reply,
            cost_usd=exc.cost_usd,
        )
    return _result(evaluator, verdict, raw, output)


def _result(
    evaluator: Evaluator,
    verdict: Verdict,
    raw: EvaluatorRequest | None,
    output: CommandOutput | None = None,
) -> EvaluatorResult:
    spec = evaluator.spec
    return EvaluatorResult(
        name=spec.name,
        type=spec.type,
        weight=spec.weight,
        status="ok",
        score=verdict.score,
        hits=tuple(verdict.hits),
        misses=tuple(verdict.misses),
        reasoning=verdict.reasoning,
        raw_request=raw,
        output=output,
    )


def case_score(results: list[EvaluatorResult]) -> tuple[float | None, str | None]:
    """The weighted mean of the scores, or ``None`` and the first evaluator's error."""
    for result in results:
        if result.status == "error":
            return None, f"evaluator '{result.name}': {result.reasoning}"
    total = sum(r.weight for r in results)
    score = sum(r.weight * (r.score or 0.0) for r in results) / total if total else 0.0
    return score, None


def required_failures(
    evaluators: tuple[Evaluator, ...], results: list[EvaluatorResult], pass_mark: float
) -> list[str]:
    """Why the case fails whatever its weighted score: each ``required`` evaluator that
    scored below the pass mark (docs/eval-files.md#required-evaluators). One that errored
    already makes the row an error."""
    required = {e.spec.name for e in evaluators if e.spec.required}
    return [
        f"required evaluator '{r.name}' scored {r.score:g}, below the pass mark {pass_mark:g}"
        for r in results
        if r.name in required and r.score is not None and r.score < pass_mark
    ]
