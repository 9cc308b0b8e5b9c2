"""The tool loop (docs/tools.md#the-tool-loop): when a case's tools can answer calls, each
answer with tool calls is followed by the calls' results and the next request, until the
model answers without a call or ``max_steps`` requests were made.

Each step's request is the previous one's conversation plus the model's answer (its text and
calls, the arguments exactly as the API returned them) and one tool result per call, paired
by id: the converters send it as every API expects tool-call history
(docs/delivery.md#how-each-chat-api-receives-the-conversation)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalwright.errors import ProviderError
from evalwright.evalfile.resolved import CaseMessage, LoadedCase, TextSegment
from evalwright.orchestrator.requests import candidate_request, case_prompt
from evalwright.prompts import BuiltPrompt, DeliveryNote
from evalwright.prompts.render import ReturnedCall, question
from evalwright.providers.base import ProviderResponse
from evalwright.providers.wire import AnswerToolCall
from evalwright.results.parts import CacheState, ToolResult
from evalwright.results.row import ResultRow
from evalwright.results.rows import error_info, total_usage
from evalwright.tools.answer import open_toolbox

if TYPE_CHECKING:
    from evalwright.orchestrator.case import CaseRunner
    from evalwright.orchestrator.plan import WorkItem


@dataclass(frozen=True, slots=True)
class Step:
    """One request of the loop: the answer, whether the cache gave it, and its calls' results
    (none for the last step) with the notes answering them made."""

    response: ProviderResponse
    cache: CacheState
    results: tuple[ToolResult, ...] = ()
    notes: tuple[DeliveryNote, ...] = ()


@dataclass(frozen=True, slots=True)
class Stepped:
    """A case's answer, however many steps it took. ``steps`` is empty when no loop ran (one
    request, its calls unanswered); ``failure`` ends a loop early, ``exhausted`` says the
    last step still called tools at ``max_steps``."""

    inputs: BuiltPrompt | None
    steps: tuple[Step, ...]
    response: ProviderResponse | None
    """The whole answer as one response (see :func:`merged`); None when the first failed."""
    cache: CacheState
    failure: ProviderError | None = None
    exhausted: bool = False
    trajectory: str | None = None
    """The loop's answers and results in the ``@[Role]:`` form the judge reads."""
    messages: tuple[CaseMessage, ...] = ()
    """What the loop added to the conversation: each answer, then its calls' results."""


async def answer(
    runner: CaseRunner,
    item: WorkItem,
    case: LoadedCase,
    inputs: BuiltPrompt,
    workspace: str | None = None,
) -> Stepped:
    """Ask the target for ``case``'s answer (``inputs``: what was built of it; ``workspace``:
    the case's own, docs/agents.md#workspaces), running the tool loop when its tools can
    answer calls. A later step's failure is returned, with the steps before it, never
    raised."""
    target = runner.plan.registry.target(item.target)
    about = {
        "EVALWRIGHT_EVAL_ID": case.id,
        "EVALWRIGHT_TARGET": item.target,
        "EVALWRIGHT_REPEAT": str(item.repeat),
    }
    registry = runner.plan.registry
    toolbox, offered = await open_toolbox(
        case.tools, case.tool_servers, runner.tool_servers, registry.child_env, about
    )
    steps: list[Step] = []
    added: list[CaseMessage] = []
    at, built = case, inputs
    while True:
        request = dataclasses.replace(
            candidate_request(at, built), tools=offered, workspace=workspace
        )
        try:
            response, cache = await runner.caller.call(item.target, request, repeat=item.repeat)
        except ProviderError as exc:
            if not steps:
                raise
            return _ended(inputs, steps, added, failure=exc)
        if not toolbox.runs:
            return Stepped(inputs, (), response, cache)
        if not response.tool_calls:
            steps.append(Step(response, cache))
            added.append(_reply(response))
            return _ended(inputs, steps, added)
        if len(steps) + 1 >= case.spec.max_steps:
            steps.append(Step(response, cache))
            added.append(_reply(response))
            return _ended(inputs, steps, added, exhausted=True)
        results, notes = await toolbox.answer(response.tool_calls)
        steps.append(Step(response, cache, results, notes))
        new = (_reply(response), *(_result(r) for r in results))
        added.extend(new)
        at = dataclasses.replace(at, input_messages=(*at.input_messages, *new))
        built = case_prompt(at, target)


def _reply(response: ProviderResponse) -> CaseMessage:
    """The model's answer as the assistant turn the next request carries: its text exactly,
    its calls with their arguments as the API wrote them, and its reasoning (Anthropic sends
    thinking back unchanged: docs/tools.md#the-tool-loop)."""
    calls = tuple(_returned(call) for call in response.tool_calls)
    return CaseMessage(
        "assistant",
        (TextSegment(response.text),),
        tool_calls=calls,
        reasoning=response.reasoning,
    )


def _returned(call: AnswerToolCall) -> ReturnedCall:
    raw = call.raw_arguments
    text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
    # Built unchecked: the model's id and name need not be what an eval file may author.
    return ReturnedCall.model_construct(
        id=call.id,
        name=call.name,
        arguments=call.arguments or {},
        raw_arguments=text,
        signature=call.signature,
    )


def _result(result: ToolResult) -> CaseMessage:
    return CaseMessage(
        "tool",
        (TextSegment(result.content),),
        tool_call_id=result.tool_call_id,
        name=result.name,
        is_error=result.is_error,
    )


def _ended(
    inputs: BuiltPrompt,
    steps: list[Step],
    added: list[CaseMessage],
    *,
    failure: ProviderError | None = None,
    exhausted: bool = False,
) -> Stepped:
    return Stepped(
        inputs,
        tuple(steps),
        merged(steps),
        combined_cache([s.cache for s in steps]),
        failure,
        exhausted,
        question(added, "lm"),
        tuple(added),
    )


def merged(steps: list[Step]) -> ProviderResponse:
    """The loop's answer as one response: the first step's request and notes (each later
    step's new notes after them), the last step's text and finish reason, every step's tool
    calls, and the steps' usage, cost, latency and attempts added up."""
    first, last = steps[0].response, steps[-1].response
    notes = list(dict.fromkeys(n for s in steps for n in (*s.response.delivery_notes, *s.notes)))
    costs = [s.response.cost_usd for s in steps]
    return dataclasses.replace(
        last,
        wire_request=first.wire_request,
        delivery_notes=tuple(notes),
        usage=total_usage([s.response.usage for s in steps]),
        cost_usd=None if None in costs else sum(c for c in costs if c is not None),
        latency_ms=sum(s.response.latency_ms for s in steps),
        attempts=sum(s.response.attempts for s in steps),
        tool_calls=tuple(call for s in steps for call in s.response.tool_calls),
        quota=None,
    )


def combined_cache(states: Sequence[CacheState]) -> CacheState:
    """``hit`` when every request was replayed, ``off`` without a cache, else ``miss``: a
    tool loop's steps, or a live conversation's turns."""
    if set(states) == {"hit"}:
        return "hit"
    return "off" if "off" in states else "miss"


def cut_short(row: ResultRow, max_steps: int, turn: int | None = None) -> ResultRow:
    """``row`` as an error row saying the tool loop was cut at ``max_steps`` (its evaluators'
    results kept, its score null: docs/tools.md#the-tool-loop)."""
    where = f"turn {turn}: " if turn is not None else ""
    message = (
        f"{where}the model still called tools after {max_steps} requests (max_steps); its "
        "last calls were not answered"
    )
    error = error_info("max_steps", message)
    return row.model_copy(update={"status": "error", "score": None, "passed": None, "error": error})
