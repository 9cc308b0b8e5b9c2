"""Evaluators: built-in checks, scripts and LLM judges score a candidate answer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from evalwright.evalfile.action_specs import CostSpec, LatencySpec
from evalwright.evalfile.evaluator_specs import CodeSpec, EvaluatorSpec, LlmJudgeSpec
from evalwright.evalfile.models import PassRule
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
    "CaseVerdict",
    "EvalContext",
    "EvaluatorResult",
    "JudgeCaller",
    "case_score",
    "case_verdict",
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
    result = await _result_of(evaluator, ctx)
    return _with_threshold(result, evaluator.spec, ctx.pass_mark)


def _with_threshold(
    result: EvaluatorResult, spec: EvaluatorSpec, pass_mark: float
) -> EvaluatorResult:
    """The result with the score it passes at (its own ``threshold``, else the pass mark)
    and whether it reached it (docs/eval-files.md#pass-rules)."""
    threshold = pass_mark if spec.threshold is None else spec.threshold
    passed = None if result.score is None else result.score >= threshold
    return result.model_copy(update={"threshold": threshold, "passed": passed})


async def _result_of(evaluator: Evaluator, ctx: EvalContext) -> EvaluatorResult:
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


def _below(result: EvaluatorResult, own: bool) -> str:
    """How far an evaluator fell short: of the pass mark, or of its ``own`` threshold."""
    which = "its threshold" if own else "the pass mark"
    return f"scored {result.score:g}, below {which} {result.threshold:g}"


def required_failures(
    evaluators: tuple[Evaluator, ...], results: list[EvaluatorResult]
) -> list[str]:
    """Why the case fails whatever its weighted score: each ``required`` evaluator that
    scored below its threshold (docs/eval-files.md#required-evaluators). One that errored
    already makes the row an error. ``results`` are ``evaluators``' own, in their order."""
    return [
        f"required evaluator '{r.name}' {_below(r, e.spec.threshold is not None)}"
        for e, r in zip(evaluators, results, strict=True)
        if r.passed is False and e.spec.required
    ]


def _rule_failures(evaluators: tuple[Evaluator, ...], results: list[EvaluatorResult]) -> list[str]:
    """Under ``pass: all``, each counted (weight above 0), not required evaluator below its
    threshold (a required one is already named by :func:`required_failures`)."""
    return [
        f"evaluator '{r.name}' {_below(r, e.spec.threshold is not None)}"
        for e, r in zip(evaluators, results, strict=True)
        if r.passed is False and r.weight > 0 and not e.spec.required
    ]


@dataclass(frozen=True, slots=True)
class CaseVerdict:
    """A case's score and verdict from its evaluators' results (docs/eval-files.md#pass-rules)."""

    score: float | None
    """The weighted mean; 0 when a required evaluator failed; ``None`` when one errored."""
    passed: bool | None
    """Whether the case passed under its rule; ``None`` when an evaluator errored."""
    problem: str | None
    """The first evaluator's error, which makes the row an error."""
    failures: tuple[str, ...] = ()
    """Why the case failed, one line per evaluator that failed it (the row's first misses)."""


def case_verdict(
    evaluators: tuple[Evaluator, ...],
    results: list[EvaluatorResult],
    rule: PassRule,
    pass_mark: float,
) -> CaseVerdict:
    """Score and judge a case: ``all`` passes when every counted evaluator met its threshold,
    ``mean`` when the weighted score reached ``pass_mark``; a failed required evaluator fails
    it under either (and makes its score 0). A case whose weights are all 0 is judged by its
    score, 0, under either rule."""
    score, problem = case_score(results)
    if score is None:
        return CaseVerdict(None, None, problem)
    required = required_failures(evaluators, results)
    failing = _rule_failures(evaluators, results) if rule == "all" else []
    counted = [r for r in results if r.weight > 0]
    if required:
        return CaseVerdict(0.0, False, None, (*required, *failing))
    if rule == "all" and counted:
        return CaseVerdict(score, not failing, None, tuple(failing))
    return CaseVerdict(score, score >= pass_mark, None)
