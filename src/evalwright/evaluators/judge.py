"""Asking an ``llm_judge``'s judge: the filled template and the judge system prompt go to a
chat target; the reply must be a verdict. One more try after a bad reply, then a failure."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evalwright import jsontext
from evalwright.errors import ProviderError
from evalwright.evalfile.messages import ToolCall
from evalwright.evalfile.template import Template, parse_template
from evalwright.evaluators.base import EvalContext, Verdict, parse_verdict
from evalwright.evaluators.texts import DEFAULT_TEMPLATE, JUDGE_SYSTEM_PROMPT, VERDICT_SCHEMA
from evalwright.jsontext import JsonValue
from evalwright.prompts import ChatMessage
from evalwright.prompts.render import tool_call_line
from evalwright.providers.base import ProviderRequest, ProviderResponse
from evalwright.providers.wire import AnswerToolCall, WireRequest
from evalwright.records import ReasoningPart
from evalwright.redact import clip
from evalwright.results.parts import JudgeTry
from evalwright.targets.kinds import chat_apis

DEFAULT = parse_template(DEFAULT_TEMPLATE, "default")
JUDGE_MAX_OUTPUT_TOKENS = 1024
"""The judge's output limit unless its target sets ``max_output_tokens``."""
JUDGE_TEMPERATURE = 0.0
"""The judge's temperature unless its target sets one."""
MAX_KEPT_REPLY = 4096
CUT_OFF_REASONS = frozenset(reason for api in chat_apis() for reason in api.cut_off)
"""Every chat API's finish values for a reply stopped at the output limit (their rows')."""
_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def answer_block(text: str, calls: Sequence[AnswerToolCall]) -> str:
    """The answer as the judge reads it: its text, then one ``<tool_call id name>ARGUMENTS
    </tool_call>`` line per call, as an assistant turn's block reads in a transcript
    (docs/tools.md#where-the-calls-come-from). Arguments that are no JSON object are shown
    as the API returned them, as a JSON string."""
    if not calls:
        return text
    lines = [text] if text else []
    for call in calls:
        arguments = call.arguments if call.arguments is not None else call.raw_arguments
        # Built unchecked: a call's id or name need not be what an eval file may author.
        shown = ToolCall.model_construct(id=call.id, name=call.name, arguments=arguments)
        lines.append(tool_call_line(shown))
    return "\n".join(lines)


def reasoning_block(parts: Sequence[ReasoningPart]) -> str:
    """``<reasoning>`` with the parts' texts (a redacted part as ``[redacted]``) between blank
    lines, then ``</reasoning>``: what a judge with ``include_reasoning`` reads before the
    answer (docs/judges.md#reasoning)."""
    texts = [part.text if part.data is None else "[redacted]" for part in parts]
    return "<reasoning>\n" + "\n\n".join(texts) + "\n</reasoning>"


def judge_prompt(
    template: Template | None, ctx: EvalContext, *, include_reasoning: bool = False
) -> str:
    """The filled template: ``{{question}}`` is exactly the row's ``raw_request.question``;
    the answer's reasoning goes before it only with ``include_reasoning``."""
    template = template or DEFAULT
    answer = (
        ctx.trajectory
        if ctx.trajectory is not None
        else answer_block(ctx.candidate_answer, ctx.tool_calls)
    )
    if include_reasoning and ctx.reasoning:
        answer = f"{reasoning_block(ctx.reasoning)}\n{answer}"
    values = {
        "question": ctx.question,
        "expected_outcome": ctx.expected_outcome,
        "reference_answer": ctx.reference_answer,
        "candidate_answer": answer,
        "guidelines": ctx.guidelines,
    }
    # The authored messages (every attached file read again) only for a template that
    # shows them: the default does not, and building them was most of a judge request.
    used = template.variables
    if "input_messages" in used:
        values["input_messages"] = _compact(ctx.input_messages)
    if "expected_messages" in used:
        values["expected_messages"] = _compact(ctx.expected_messages)
    if "diff" in used:  # the agent's change to its workspace (docs/agents.md#the-change)
        values["diff"] = ctx.change.diff if ctx.change is not None else ""
    return template.render(values)


def judge_request(
    template: Template | None,
    ctx: EvalContext,
    *,
    include_reasoning: bool = False,
    include_media: bool = False,
) -> ProviderRequest:
    """``[system: the judge prompt, user: the filled template]``, asking for a verdict; with
    ``include_media`` the case's media follow the template natively (docs/judges.md#media)."""
    prompt = judge_prompt(template, ctx, include_reasoning=include_reasoning)
    parts = (prompt, *ctx.media) if include_media and ctx.media else ()
    return ProviderRequest(
        case_id=ctx.case_id,
        purpose="judge",
        response_schema=VERDICT_SCHEMA,
        max_output_tokens=JUDGE_MAX_OUTPUT_TOKENS,
        temperature=JUDGE_TEMPERATURE,
        messages=(
            ChatMessage(role="system", content=JUDGE_SYSTEM_PROMPT),
            ChatMessage(role="user", content=prompt, parts=parts),
        ),
    )


def reply_json(text: str) -> JsonValue:
    """The JSON a model answered with (a fenced JSON block is accepted); raise ValueError
    when the reply is not JSON."""
    body = text.strip()
    fenced = _FENCE.fullmatch(body)
    if fenced:
        body = fenced.group(1)
    try:
        return jsontext.loads(body)
    except ValueError:
        raise ValueError(f"not JSON: {clip(text.strip(), 120)!r}") from None


def read_verdict(text: str) -> Verdict:
    """A verdict from a judge's reply (a fenced JSON block is accepted); raise ValueError."""
    return parse_verdict(reply_json(text))


def _acceptable(response: ProviderResponse) -> bool:
    try:
        read_verdict(response.text)
    except ValueError:
        return False
    return True


def kept_reply(text: str) -> str:
    """A failed reply as the evaluator result keeps it: whole up to 4096 characters."""
    return clip(text, MAX_KEPT_REPLY, marker="\n[{cut} more characters]")


def _cut_off(response: ProviderResponse) -> str | None:
    """Why a reply stopped at the output limit, or None when it was not cut off."""
    if response.finish_reason not in CUT_OFF_REASONS:
        return None
    tokens = response.usage.output_tokens if response.usage else None
    at = f"{tokens} tokens" if tokens is not None else "its output token limit"
    return f"the judge's reply was cut off at {at}: raise its max_output_tokens"


@dataclass(frozen=True, slots=True)
class JudgeAnswer:
    """What one judge target made of one request: a verdict, or ``problem`` saying why
    there is none (with its last ``reply`` when it answered with something else)."""

    target: str
    verdict: Verdict | None
    problem: str
    raw: WireRequest | None
    reply: str | None
    cost_usd: float | None
    """What its answers cost together, ``None`` when any cost is unknown (docs/running.md#cost)."""
    tries: tuple[JudgeTry, ...]


async def ask_judge(target: str, request: ProviderRequest, ctx: EvalContext) -> JudgeAnswer:
    """Ask the judge, retrying once on a reply that is not a verdict; a reply cut off at the
    output limit is not retried, since the same request would be cut off again. Never raises
    for a judge that fails: the answer says why."""
    if ctx.judge is None:
        return JudgeAnswer(target, None, "no judge target is configured", None, None, None, ())
    raw: WireRequest | None = None
    costs: list[float | None] = []
    tries: list[JudgeTry] = []
    problem, reply = "", ""

    def answer(verdict: Verdict | None, why: str, kept: str | None = None) -> JudgeAnswer:
        return JudgeAnswer(target, verdict, why, raw, kept, _total(costs), tuple(tries))

    for attempt in (1, 2):
        try:
            response = await ctx.judge(target, request, use_cache=attempt == 1, accept=_acceptable)
        except ProviderError as exc:
            tries.append(JudgeTry(attempts=exc.attempts, outcome="error"))
            return answer(None, f"judge target '{target}' failed: {exc}")
        raw, reply = response.wire_request, response.text
        costs.append(response.cost_usd)
        try:
            verdict = read_verdict(reply)
        except ValueError as exc:
            problem = str(exc)
            tries.append(JudgeTry(attempts=response.attempts, outcome="no_verdict"))
        else:
            tries.append(JudgeTry(attempts=response.attempts, outcome="verdict"))
            return answer(verdict, "")
        cut_off = _cut_off(response)
        if cut_off is not None:
            return answer(None, cut_off, kept_reply(reply))
    return answer(
        None, f"the judge gave no valid verdict in two tries: {problem}", kept_reply(reply)
    )


def _total(costs: list[float | None]) -> float | None:
    """The sum of the answers' costs; ``None`` with none, or when one is unknown."""
    if not costs or any(cost is None for cost in costs):
        return None
    return sum(cost for cost in costs if cost is not None)
