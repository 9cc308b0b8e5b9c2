"""The result row (docs/running.md#the-results-file): one frozen model per case and target,
with every key always present, in the order the file shows them.

A row written by :mod:`evalwright.results.writer` is read back with
``ResultRow.model_validate_json``; ``evalwright schema results`` prints its JSON Schema.
Only a row that could not be written as UTF-8 JSON has ``null`` where a list or a text is
expected: each field that held text that is not valid Unicode.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from pydantic import Field, JsonValue, ValidationError

from evalwright.evalfile.models import PassRule
from evalwright.prompts.chat import DeliveryNote
from evalwright.providers.wire import AnswerToolCall, TraceEntry, Usage, WireRequest
from evalwright.records import ReasoningPart, RecordModel
from evalwright.results import turn_requests
from evalwright.results.parts import (
    CacheState,
    ErrorInfo,
    EvaluatorResult,
    RawRequest,
    SandboxRecord,
    Score,
    Status,
    StepRecord,
    TurnRecord,
    Usd,
    WorkspaceRecord,
    absent,
)


class ResultRow(RecordModel):
    """One case on one target (docs/running.md#the-results-file)."""

    run_id: str
    timestamp: str
    eval_file: str
    eval_id: str
    dataset: str
    conversation_id: str | None
    metadata: dict[str, JsonValue] | None
    tags: tuple[str, ...] = ()
    """The case's tags, its file's included (absent from rows written before tags: none)."""
    vars: Annotated[dict[str, JsonValue] | None, Field(exclude_if=absent)] = None
    """The record a template case was filled from (docs/eval-files.md#variables); left out
    of every other row."""
    target: str
    repeat: int = 0
    """Which run of the case on the target, from 0 (docs/running.md#repeats-and-reliability;
    absent from rows written before repeats: 0)."""
    variant: Annotated[str | None, Field(exclude_if=absent)] = None
    """The prompt variant the case ran with (docs/eval-files.md#prompt-variants); left out of
    a row of a file without ``prompts:``."""
    provider: str | None
    status: Status
    score: Score | None
    passed: bool | None = None
    """Whether the case passed under its pass rule (docs/eval-files.md#pass-rules), null on an
    error row; absent from rows written before pass rules (then: score at the pass mark).
    Read it through :func:`evalwright.results.verdict.row_passed`."""
    pass_rule: PassRule | None = None
    """The rule that decided ``passed``: ``all`` or ``mean``; absent from older rows."""
    pass_rate: Annotated[float | None, Field(exclude_if=absent)] = None
    """The share of the case's repeats that must pass (docs/running.md#gates-over-repeats);
    left out of a row whose case has no ``pass_rate`` (then every repeat must pass)."""
    hits: tuple[str, ...] | None
    misses: tuple[str, ...] | None
    reasoning: str | None
    candidate_answer: str | None
    tool_calls: Annotated[tuple[AnswerToolCall, ...] | None, Field(exclude_if=absent)] = None
    """The answer's tool calls in the API's order (docs/tools.md#tool-calls-in-the-answer);
    left out of a row whose answer has none."""
    answer_reasoning: Annotated[tuple[ReasoningPart, ...] | None, Field(exclude_if=absent)] = None
    """The answer's reasoning (Anthropic thinking, Gemini thought summaries), never part of
    ``candidate_answer`` (docs/running.md#reasoning); a tool loop's is its last step's. Left out
    of a row whose answer has none. (``reasoning`` is the evaluators' own.)"""
    steps: Annotated[tuple[StepRecord, ...] | None, Field(exclude_if=absent)] = None
    """Every request of the tool loop, when the case ran one (docs/tools.md#the-row): the row's
    ``wire_request`` is then null, ``candidate_answer`` the last step's reply and
    ``tool_calls`` every step's calls; left out of a row without a tool loop."""
    finish_reason: str | None
    expected_outcome: str | None
    reference_answer: str | None
    raw_request: RawRequest | None
    wire_request: WireRequest | None
    delivery_notes: tuple[DeliveryNote, ...] | None
    trace: tuple[TraceEntry, ...] | None
    evaluator_results: tuple[EvaluatorResult, ...] | None
    usage: Usage | None
    cost_usd: Usd | None = None
    """The target call's cost in USD, null when unknown (docs/running.md#cost); absent from
    rows written before costs."""
    judge_cost_usd: Usd | None = None
    """The row's judge calls' cost in USD, null without a judge call or when one's price is
    unknown."""
    latency_ms: float | None
    attempts: int
    cache: CacheState
    error: ErrorInfo | None
    node: Annotated[str | None, Field(exclude_if=absent)] = None
    """The Ray node that ran the case's agent command (docs/scale.md); left out of every row
    not run on a cluster."""
    turns: Annotated[tuple[TurnRecord, ...] | None, Field(exclude_if=absent)] = None
    """A live conversation's turns, in order (docs/conversations.md#the-row); left out of
    every other row."""
    workspace: Annotated[WorkspaceRecord | None, Field(exclude_if=absent)] = None
    """The case's workspace and the agent's change to it (docs/agents.md#workspaces); left
    out of a row whose case had none."""
    sandbox: Annotated[SandboxRecord | None, Field(exclude_if=absent)] = None
    """The sandbox its agent ran in (docs/agents.md#sandboxes); left out of a row whose
    target names none."""

    def full_turns(self) -> Iterator[TurnRecord]:
        """A live conversation's turns, each with its requests whole: what a turn stores as
        its additions to the previous turn's request is rebuilt (docs/conversations.md#the-row).
        One turn at a time, so a long conversation is never held whole; none for another row.

        A turn whose additions cannot be applied (a damaged row) raises ``ValueError`` naming it.
        """
        return turn_requests.full_turns(self.turns or ())

    def full_steps(self) -> tuple[StepRecord, ...]:
        """A tool loop's steps, each with its request whole (docs/tools.md#the-row): the
        first is the row's ``wire_request``, each later one rebuilt from what it adds to the
        one before. None for another row; a damaged row raises ``ValueError``."""
        if not self.steps or self.wire_request is None:
            return self.steps or ()
        return turn_requests.full_steps(self.wire_request, self.steps)

    def full_evaluator_results(self) -> tuple[EvaluatorResult, ...]:
        """The row's evaluator results, each judge's request whole: a live conversation's
        row names the replies a judge's request holds (docs/conversations.md#the-row)."""
        return turn_requests.full_results(self.evaluator_results or (), self.turns or ())


OPTIONAL_KEYS = (
    "vars",
    "variant",
    "pass_rate",
    "tool_calls",
    "answer_reasoning",
    "steps",
    "node",
    "turns",
    "workspace",
    "sandbox",
)
"""The keys written only where a row has them: a template case's record, its prompt variant,
its case's pass rate, an answer's tool calls and reasoning, a tool loop's steps, a cluster's
node, a live conversation's turns, a case's workspace and its agent's sandbox."""
ROW_KEYS = tuple(key for key in ResultRow.model_fields if key not in OPTIONAL_KEYS)
"""Every key of a row, in the order it is written (but :data:`OPTIONAL_KEYS`)."""


def results_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one line of a results file."""
    schema = ResultRow.model_json_schema()
    # Every row evalwright writes has every key; ``tags``, ``repeat``, ``passed``,
    # ``pass_rule``, ``cost_usd`` and ``judge_cost_usd`` have defaults only so that rows
    # written before them still read (for --resume, compare and the report).
    late = ("tags", "repeat", "passed", "pass_rule", "cost_usd", "judge_cost_usd")
    given = {*schema["required"], *late}
    schema["required"] = [key for key in ROW_KEYS if key in given]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
        "title": "evalwright result row (one line of a results file)",
    }


def row_problem(exc: ValidationError) -> str:
    """What is wrong with a line that is not a row, in a few words: its first problem."""
    first = exc.errors(include_url=False)[0]
    if first["type"] == "json_invalid":
        return "invalid JSON"
    if not first["loc"]:
        return "not a JSON object"
    where = ".".join(str(part) for part in first["loc"])
    more = exc.error_count() - 1
    return f"{where}: {first['msg']}" + (f"; {more} more problem(s)" if more else "")


def target_label(target: str, variant: str | None) -> str:
    """A row's target as summaries, comparisons and reports name it: ``TARGET [VARIANT]`` for
    a row of a prompt variant, so each (target, variant) is a column of its own; else the
    target alone (docs/eval-files.md#prompt-variants)."""
    return target if variant is None else f"{target} [{variant}]"


def case_label(eval_id: str, repeat: int) -> str:
    """A row's case as reports name it: its id, and its repeat when it is not the first (so a
    run without repeats names its rows as before; docs/running.md#repeats-and-reliability)."""
    return f"{eval_id} (repeat {repeat})" if repeat else eval_id
