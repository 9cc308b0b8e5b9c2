"""The ``llm_judge`` evaluator: the filled template and the judge system prompt go to a chat
target; the reply must be a verdict. One more try after a bad reply, then an error."""

from __future__ import annotations

import json
import re
from typing import Any

from evalwright import jsontext
from evalwright.errors import ProviderError
from evalwright.evalfile.evaluator_specs import LlmJudgeSpec
from evalwright.evalfile.template import Template, parse_template
from evalwright.evaluators.base import EvalContext, EvaluatorFailure, Verdict, parse_verdict
from evalwright.evaluators.texts import DEFAULT_TEMPLATE, JUDGE_SYSTEM_PROMPT, VERDICT_SCHEMA
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest, ProviderResponse
from evalwright.providers.wire import WireRequest

DEFAULT = parse_template(DEFAULT_TEMPLATE, "default")
JUDGE_MAX_OUTPUT_TOKENS = 1024
"""The judge's output limit unless its target sets ``max_output_tokens``."""
JUDGE_TEMPERATURE = 0.0
"""The judge's temperature unless its target sets one."""
MAX_KEPT_REPLY = 4096
CUT_OFF_REASONS = frozenset({"length", "max_tokens", "MAX_TOKENS"})
"""Finish values of OpenAI, Anthropic and Gemini for a reply stopped at the output limit."""
_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def judge_prompt(template: Template | None, ctx: EvalContext) -> str:
    """The filled template: ``{{question}}`` is exactly the row's ``raw_request.question``."""
    template = template or DEFAULT
    values = {
        "question": ctx.question,
        "expected_outcome": ctx.expected_outcome,
        "reference_answer": ctx.reference_answer,
        "candidate_answer": ctx.candidate_answer,
        "guidelines": ctx.guidelines,
    }
    # The authored messages (every attached file read again) only for a template that
    # shows them: the default does not, and building them was most of a judge request.
    used = template.variables
    if "input_messages" in used:
        values["input_messages"] = _compact(ctx.input_messages)
    if "expected_messages" in used:
        values["expected_messages"] = _compact(ctx.expected_messages)
    return template.render(values)


def judge_request(template: Template | None, ctx: EvalContext) -> ProviderRequest:
    """``[system: the judge prompt, user: the filled template]``, asking for a verdict."""
    return ProviderRequest(
        case_id=ctx.case_id,
        purpose="judge",
        response_schema=VERDICT_SCHEMA,
        max_output_tokens=JUDGE_MAX_OUTPUT_TOKENS,
        temperature=JUDGE_TEMPERATURE,
        messages=(
            ChatMessage(role="system", content=JUDGE_SYSTEM_PROMPT),
            ChatMessage(role="user", content=judge_prompt(template, ctx)),
        ),
    )


def read_verdict(text: str) -> Verdict:
    """A verdict from a judge's reply (a fenced JSON block is accepted); raise ValueError."""
    body = text.strip()
    fenced = _FENCE.fullmatch(body)
    if fenced:
        body = fenced.group(1)
    try:
        data = jsontext.loads(body)
    except ValueError:
        raise ValueError(f"not JSON: {text.strip()[:120]!r}") from None
    return parse_verdict(data)


def _acceptable(response: ProviderResponse) -> bool:
    try:
        read_verdict(response.text)
    except ValueError:
        return False
    return True


def kept_reply(text: str) -> str:
    """A failed reply as the evaluator result keeps it: whole up to 4096 characters."""
    if len(text) <= MAX_KEPT_REPLY:
        return text
    return f"{text[:MAX_KEPT_REPLY]}\n[{len(text) - MAX_KEPT_REPLY} more characters]"


def _cut_off(response: ProviderResponse) -> str | None:
    """Why a reply stopped at the output limit, or None when it was not cut off."""
    if response.finish_reason not in CUT_OFF_REASONS:
        return None
    tokens = response.usage.output_tokens if response.usage else None
    at = f"{tokens} tokens" if tokens is not None else "its output token limit"
    return f"the judge's reply was cut off at {at}: raise its max_output_tokens"


async def run_judge(
    spec: LlmJudgeSpec, template: Template | None, ctx: EvalContext
) -> tuple[Verdict, WireRequest, float | None]:
    """Ask the judge, retrying once on a reply that is not a verdict; a reply cut off at the
    output limit is not retried, since the same request would be cut off again.

    Also returns what the judge's answers cost together (``None`` when any cost is unknown;
    docs/running.md#cost); a failure carries it too."""
    target = spec.target or ctx.judge_target
    if ctx.judge is None or target is None:
        raise EvaluatorFailure("no judge target is configured")
    request = judge_request(template, ctx)
    problem, reply = "", ""
    raw: WireRequest | None = None
    costs: list[float | None] = []
    for attempt in (1, 2):
        try:
            response = await ctx.judge(target, request, use_cache=attempt == 1, accept=_acceptable)
        except ProviderError as exc:
            message = f"judge target '{target}' failed: {exc}"
            raise EvaluatorFailure(message, raw, cost_usd=_total(costs)) from None
        raw, reply = response.wire_request, response.text
        costs.append(response.cost_usd)
        try:
            return read_verdict(reply), raw, _total(costs)
        except ValueError as exc:
            problem = str(exc)
        cut_off = _cut_off(response)
        if cut_off is not None:
            raise EvaluatorFailure(cut_off, raw, kept_reply(reply), _total(costs))
    message = f"the judge gave no valid verdict in two tries: {problem}"
    raise EvaluatorFailure(message, raw, kept_reply(reply), _total(costs))


def _total(costs: list[float | None]) -> float | None:
    """The sum of the answers' costs; ``None`` with none, or when one is unknown."""
    if not costs or any(cost is None for cost in costs):
        return None
    return sum(cost for cost in costs if cost is not None)
