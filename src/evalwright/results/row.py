"""The result row (docs/running.md#the-results-file): one frozen model per case and target,
with every key always present, in the order the file shows them.

A row written by :mod:`evalwright.results.writer` is read back with
``ResultRow.model_validate_json``; ``evalwright schema results`` prints its JSON Schema.
Only a row that could not be written as UTF-8 JSON has ``null`` where a list or a text is
expected: each field that held text that is not valid Unicode.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import Field, JsonValue, StrictInt, StrictStr, ValidationError

from evalwright.evalfile.evaluator_specs import Aggregate
from evalwright.evalfile.messages import Role
from evalwright.prompts.chat import DeliveryNote
from evalwright.providers.wire import TraceEntry, Usage, WireRequest
from evalwright.records import RecordModel

ErrorType = Literal[
    "target_error",
    "timeout",
    "blocked",
    "response_too_large",
    "target_unreachable",
    "over_budget",
    "evaluator_error",
    "config_error",
]
CacheState = Literal["hit", "miss", "off"]
Status = Literal["ok", "error"]
Score = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
"""A score: a finite number from 0 to 1 (a row holding another is no row: ``compare``, the
report and ``judge-check`` refuse it rather than average it)."""
Usd = Annotated[float, Field(ge=0, allow_inf_nan=False)]
"""An amount in US dollars: finite, never negative."""


class ErrorInfo(RecordModel):
    """Why a row is an error: ``{type, message}``."""

    type: ErrorType
    message: str


class ScriptRequest(RecordModel):
    """What a code evaluator ran: its argv and directory."""

    argv: list[str]
    cwd: str


EvaluatorRequest = WireRequest | ScriptRequest
"""An evaluator's ``raw_request``: the judge's wire request or the script's ``{argv, cwd}``."""


def _absent(value: object) -> bool:
    return value is None


PathStep = StrictStr | StrictInt
"""A step of a path into a JSON value: an object's key or a list's index."""


class ReplyText(RecordModel):
    """A text of a stored value that holds replies of the conversation: rebuilt by joining
    ``parts``, each number standing for that turn's ``reply``
    (docs/conversations.md#how-requests-are-stored)."""

    at: tuple[PathStep, ...]
    """Where the text goes in the value (``[]``: the value itself)."""
    parts: tuple[PathStep, ...]
    """Literal texts, and the numbers of the turns whose replies go in between."""


class Named(RecordModel):
    """A judge's request in a live conversation's row, with each text that holds the
    conversation's replies rebuilt from its parts
    (docs/conversations.md#how-requests-are-stored)."""

    value: JsonValue
    """The request, each text ``replies`` rebuilds left ``null``."""
    replies: tuple[ReplyText, ...]


class Addition(RecordModel):
    """What a request adds at one place of the previous request of its kind
    (docs/conversations.md#how-requests-are-stored): entries appended to a list, or text to a
    text."""

    at: tuple[PathStep, ...]
    """The path of the list or text in the request, e.g. ``["body", "messages"]``."""
    value: JsonValue
    """The entries (a list) or the text appended there; each text ``replies`` rebuilds is
    ``null`` here."""
    replies: tuple[ReplyText, ...]
    """The texts of ``value`` that hold a turn's reply, each given by its turn number."""


JudgeOutcome = Literal["verdict", "no_verdict", "error"]
"""What one request to a judge came to: a verdict, a reply that was none, or a failed call."""


class JudgeTry(RecordModel):
    """One request to a judge (docs/judges.md#run-metrics): how many times it was sent
    (``attempts``, transport retries included) and what its reply came to."""

    attempts: int
    outcome: JudgeOutcome


class JudgeVerdict(RecordModel):
    """One panel judge's verdict (docs/judges.md#panels); an error leaves ``score`` and
    ``passed`` null and ``reasoning`` says why."""

    target: str
    status: Status
    score: Score | None
    passed: bool | None
    reasoning: str
    raw_request: WireRequest | None
    raw_named: Annotated[Named | None, Field(exclude_if=_absent)] = None
    """In a live conversation's row, the request naming the replies it holds
    (``raw_request`` is then null), else left out."""
    reply: Annotated[str | None, Field(exclude_if=_absent)] = None
    """The judge's last reply when it gave no verdict (at most 4 KB), else left out."""
    cost_usd: Annotated[Usd | None, Field(exclude_if=_absent)] = None
    """What this judge's answers cost, else left out."""
    tries: tuple[JudgeTry, ...]


class EvaluatorResult(RecordModel):
    """One evaluator's verdict on one answer (an error leaves ``score`` null)."""

    name: str
    type: str
    weight: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    status: Status
    score: Score | None
    hits: tuple[str, ...]
    misses: tuple[str, ...]
    reasoning: str
    raw_request: EvaluatorRequest | None
    raw_named: Annotated[Named | None, Field(exclude_if=_absent)] = None
    """In a live conversation's row, a judge's request naming the replies it holds
    (``raw_request`` is then null), else left out."""
    reply: Annotated[str | None, Field(exclude_if=_absent)] = None
    """A judge's last reply when it gave no verdict (at most 4 KB), else left out."""
    cost_usd: Annotated[Usd | None, Field(exclude_if=_absent)] = None
    """What a judge's answers cost (docs/running.md#cost), else left out."""
    judge_target: Annotated[str | None, Field(exclude_if=_absent)] = None
    """A single ``llm_judge``'s target (docs/judges.md#run-metrics), else left out."""
    tries: Annotated[tuple[JudgeTry, ...] | None, Field(exclude_if=_absent)] = None
    """A single ``llm_judge``'s requests, else left out."""
    aggregate: Annotated[Aggregate | None, Field(exclude_if=_absent)] = None
    """A judge panel's aggregate, else left out."""
    judges: Annotated[tuple[JudgeVerdict, ...] | None, Field(exclude_if=_absent)] = None
    """A judge panel's verdicts, one per judge in the order named, else left out."""


class ToolCallRecord(RecordModel):
    """A tool call of an assistant turn: ``{id, name, arguments}``."""

    id: str
    name: str
    arguments: dict[str, JsonValue]


class PromptMessage(RecordModel):
    """An entry of ``raw_request.chat_prompt``: ``{role, content}`` plus ``tool_calls``,
    ``tool_call_id`` and ``name`` where the message has them (docs/delivery.md#what-is-recorded)."""

    # Left out when absent. ``exclude_if`` rather than a wrap serializer: the row is
    # written once per case, and a wrap serializer cost a quarter of writing it.
    role: Role
    content: str
    tool_calls: Annotated[tuple[ToolCallRecord, ...] | None, Field(exclude_if=_absent)] = None
    tool_call_id: Annotated[str | None, Field(exclude_if=_absent)] = None
    name: Annotated[str | None, Field(exclude_if=_absent)] = None


class RawRequest(RecordModel):
    """What was built from the case, before any API mapping (docs/delivery.md#what-is-recorded)."""

    question: str
    guidelines: str
    guideline_paths: tuple[str, ...]
    input_files: tuple[str, ...]
    chat_prompt: tuple[PromptMessage, ...] | None


class SimulatorRecord(RecordModel):
    """The simulated user's call that wrote a turn's user message, or ended the conversation
    (docs/conversations.md#simulated-user): recorded as a judge's is."""

    target: str
    wire_request: WireRequest | None
    """The last try's request (the simulator sees the conversation from the user's side);
    ``null`` when ``wire_added`` gives it."""
    wire_added: Annotated[tuple[Addition, ...] | None, Field(exclude_if=_absent)] = None
    """The request as what it adds to the simulator's previous request in the row; left out
    when ``wire_request`` holds it whole."""
    reply: str
    """The last try's reply, as given."""
    done: bool | None
    """The reply's ``done`` (``null`` when the reply was not the JSON asked for)."""
    usage: Usage | None
    """Every try's token counts added up."""
    cost_usd: Usd | None
    """What every try cost, ``null`` when unknown."""
    latency_ms: float
    tries: int
    """2 when the first reply was not the JSON asked for."""
    cache: CacheState


class TurnRecord(RecordModel):
    """One turn of a live conversation: what was sent, the reply, and its own evaluators'
    verdicts (docs/conversations.md#the-row)."""

    turn: int
    """The turn's number, from 1."""
    raw_request: Annotated[RawRequest | None, Field(exclude_if=_absent)] = None
    """What was built for the turn, whole; left out when ``raw_added`` gives it, when
    nothing was built, and from rows written before turns recorded it."""
    raw_added: Annotated[tuple[Addition, ...] | None, Field(exclude_if=_absent)] = None
    """What was built for the turn, as what it adds to the previous turn's."""
    wire_request: WireRequest | None
    """What the turn sent, whole; ``null`` when ``wire_added`` gives it, or when nothing
    was sent."""
    wire_added: Annotated[tuple[Addition, ...] | None, Field(exclude_if=_absent)] = None
    """What the turn sent, as what it adds to the previous turn's request."""
    delivery_notes: tuple[DeliveryNote, ...]
    reply: str | None
    """The target's reply (``null`` for the turn that failed)."""
    finish_reason: str | None
    usage: Usage | None
    cost_usd: Usd | None
    latency_ms: float | None
    attempts: int
    cache: CacheState
    evaluator_results: tuple[EvaluatorResult, ...]
    score: Score | None
    """The weighted mean of this turn's evaluators, ``null`` without any (or on an error)."""
    simulator: Annotated[SimulatorRecord | None, Field(exclude_if=_absent)] = None
    """The simulated user's call that wrote this turn's message; left out of fixed turns
    and of a ``first_message``."""
    simulator_done: Annotated[SimulatorRecord | None, Field(exclude_if=_absent)] = None
    """The simulated user's call after this turn that ended the conversation (``done``)."""


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
    target: str
    repeat: int = 0
    """Which run of the case on the target, from 0 (docs/running.md#repeats-and-reliability;
    absent from rows written before repeats: 0)."""
    provider: str | None
    status: Status
    score: Score | None
    hits: tuple[str, ...] | None
    misses: tuple[str, ...] | None
    reasoning: str | None
    candidate_answer: str | None
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
    node: Annotated[str | None, Field(exclude_if=_absent)] = None
    """The Ray node that ran the case's agent command (docs/scale.md); left out of every row
    not run on a cluster."""
    turns: Annotated[tuple[TurnRecord, ...] | None, Field(exclude_if=_absent)] = None
    """A live conversation's turns, in order (docs/conversations.md#the-row); left out of
    every other row."""

    def full_turns(self) -> Iterator[TurnRecord]:
        """A live conversation's turns, each with its requests whole: what a turn stores as
        its additions to the previous turn's request is rebuilt (docs/conversations.md#the-row).
        One turn at a time, so a long conversation is never held whole; none for another row.

        A turn whose additions cannot be applied (a damaged row) raises ``ValueError`` naming it.
        """
        from evalwright.results.turn_requests import full_turns

        return full_turns(self.turns or ())

    def full_evaluator_results(self) -> tuple[EvaluatorResult, ...]:
        """The row's evaluator results, each judge's request whole: a live conversation's
        row names the replies a judge's request holds (docs/conversations.md#the-row)."""
        from evalwright.results.turn_requests import full_results

        return full_results(self.evaluator_results or (), self.turns or ())


ROW_KEYS = tuple(key for key in ResultRow.model_fields if key not in ("node", "turns"))
"""Every key of a row, in the order it is written (a live conversation's row adds ``turns``
last)."""


def results_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one line of a results file."""
    schema = ResultRow.model_json_schema()
    # Every row evalwright writes has every key; ``tags``, ``repeat``, ``cost_usd`` and
    # ``judge_cost_usd`` have defaults only so that rows written before them still read (for
    # --resume, compare and the report).
    given = {*schema["required"], "tags", "repeat", "cost_usd", "judge_cost_usd"}
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


def case_label(eval_id: str, repeat: int) -> str:
    """A row's case as reports name it: its id, and its repeat when it is not the first (so a
    run without repeats names its rows as before; docs/running.md#repeats-and-reliability)."""
    return f"{eval_id} (repeat {repeat})" if repeat else eval_id
