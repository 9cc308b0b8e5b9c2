"""The ``llm_judge`` evaluator's result: one judge's verdict, or a panel's verdicts made one
score by its aggregate (docs/judges.md)."""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Iterable

from evalwright.evalfile.evaluator_specs import Aggregate, LlmJudgeSpec
from evalwright.evalfile.template import Template
from evalwright.evaluators.base import EvalContext
from evalwright.evaluators.judge import JudgeAnswer, ask_judge, judge_request
from evalwright.providers.wire import WireRequest
from evalwright.results.parts import EvaluatorResult, JudgeTry, JudgeVerdict

DEFAULT_AGGREGATE: Aggregate = "mean"


async def judge_result(
    spec: LlmJudgeSpec, template: Template | None, ctx: EvalContext
) -> EvaluatorResult:
    """Ask the evaluator's judge, or every judge of its panel concurrently with the same
    request, and score the answer."""
    if spec.judges:
        return await _panel_result(spec, template, ctx)
    target = spec.target or ctx.judge_target
    if ctx.judge is None or target is None:
        return _result(spec, None, "no judge target is configured")
    request = judge_request(
        template,
        ctx,
        include_reasoning=spec.include_reasoning,
        include_media=spec.include_media,
    )
    answer = await ask_judge(target, request, ctx)
    verdict = answer.verdict
    return _result(
        spec,
        None if verdict is None else verdict.score,
        answer.problem if verdict is None else verdict.reasoning,
        hits=() if verdict is None else tuple(verdict.hits),
        misses=() if verdict is None else tuple(verdict.misses),
        raw_request=answer.raw,
        reply=answer.reply,
        cost_usd=answer.cost_usd,
        judge_target=target,
        tries=answer.tries,
    )


async def _panel_result(
    spec: LlmJudgeSpec, template: Template | None, ctx: EvalContext
) -> EvaluatorResult:
    request = judge_request(
        template,
        ctx,
        include_reasoning=spec.include_reasoning,
        include_media=spec.include_media,
    )
    judges = spec.judges or []
    answers = await asyncio.gather(*(ask_judge(target, request, ctx) for target in judges))
    verdicts = tuple(_member(answer, ctx.pass_mark) for answer in answers)
    aggregate = spec.aggregate or DEFAULT_AGGREGATE
    scores = [v.score for v in verdicts if v.score is not None]
    cost = _total([a.cost_usd for a in answers])
    if not scores:
        failures = "; ".join(f"{v.target}: {v.reasoning}" for v in verdicts)
        why = f"no judge of the panel gave a verdict ({failures})"
        return _result(spec, None, why, cost_usd=cost, aggregate=aggregate, judges=verdicts)
    score, summary = aggregate_scores(aggregate, scores, ctx.pass_mark)
    shown = ", ".join(f"{v.target} {_shown(v.score)}" for v in verdicts)
    lines = [f"{summary} ({shown})"]
    lines += [f"{v.target}: {v.reasoning}" for v in verdicts if v.reasoning]
    return _result(
        spec,
        score,
        "\n".join(lines),
        hits=_union(a.verdict.hits for a in answers if a.verdict),
        misses=_union(a.verdict.misses for a in answers if a.verdict),
        cost_usd=cost,
        aggregate=aggregate,
        judges=verdicts,
    )


def aggregate_scores(
    aggregate: Aggregate, scores: list[float], pass_mark: float
) -> tuple[float, str]:
    """The panel's score from the scores of the judges that answered, and how it was made.

    ``majority`` scores 1 when more than half of them reached the pass mark, else 0: a tie
    fails (docs/judges.md#aggregates)."""
    count = len(scores)
    if aggregate == "median":
        score = statistics.median(scores)
        return score, f"median of {count} judges: {score:g}"
    if aggregate == "majority":
        passing = sum(score >= pass_mark for score in scores)
        score = 1.0 if 2 * passing > count else 0.0
        verdict = "pass" if score else "fail"
        return score, f"majority of {count} judges: {passing}/{count} passed, {verdict}"
    score = statistics.fmean(scores)
    return score, f"mean of {count} judges: {score:g}"


def _member(answer: JudgeAnswer, pass_mark: float) -> JudgeVerdict:
    verdict = answer.verdict
    return JudgeVerdict(
        target=answer.target,
        status="error" if verdict is None else "ok",
        score=None if verdict is None else verdict.score,
        passed=None if verdict is None else verdict.score >= pass_mark,
        reasoning=answer.problem if verdict is None else verdict.reasoning,
        raw_request=answer.raw,
        reply=answer.reply,
        cost_usd=answer.cost_usd,
        tries=answer.tries,
    )


def _result(
    spec: LlmJudgeSpec,
    score: float | None,
    reasoning: str,
    *,
    hits: tuple[str, ...] = (),
    misses: tuple[str, ...] = (),
    raw_request: WireRequest | None = None,
    reply: str | None = None,
    cost_usd: float | None = None,
    judge_target: str | None = None,
    tries: tuple[JudgeTry, ...] | None = None,
    aggregate: Aggregate | None = None,
    judges: tuple[JudgeVerdict, ...] | None = None,
) -> EvaluatorResult:
    """An ``llm_judge`` result: ``ok`` with a score, an ``error`` without one."""
    return EvaluatorResult(
        name=spec.name,
        type=spec.type,
        weight=spec.weight,
        status="error" if score is None else "ok",
        score=score,
        hits=hits,
        misses=misses,
        reasoning=reasoning,
        raw_request=raw_request,
        reply=reply,
        cost_usd=cost_usd,
        judge_target=judge_target,
        tries=tries,
        aggregate=aggregate,
        judges=judges,
    )


def _shown(score: float | None) -> str:
    return "failed" if score is None else f"{score:g}"


def _union(groups: Iterable[list[str]]) -> tuple[str, ...]:
    """Each text once, in the order first given."""
    return tuple(dict.fromkeys(text for group in groups for text in group))


def _total(costs: list[float | None]) -> float | None:
    """The sum of the costs; ``None`` with none, or when one is unknown."""
    if not costs or any(cost is None for cost in costs):
        return None
    return sum(cost for cost in costs if cost is not None)
