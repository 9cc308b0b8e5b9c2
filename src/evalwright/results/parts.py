"""The parts a result row is made of (docs/running.md#the-results-file): errors, evaluator
results and judge verdicts, turn records, the requests an evaluator sent, and the additions
by which a live conversation's turn names what its previous turn already holds."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue, StrictInt, StrictStr

from evalwright.evalfile.evaluator_specs import Aggregate
from evalwright.evalfile.messages import Role
from evalwright.prompts.chat import DeliveryNote
from evalwright.providers.wire import AnswerToolCall, Usage, WireRequest
from evalwright.records import ReasoningPart, RecordModel

ErrorType = Literal[
    "target_error",
    "timeout",
    "blocked",
    "response_too_large",
    "target_unreachable",
    "over_budget",
    "tool_error",
    "workspace_error",
    "max_steps",
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


def absent(value: object) -> bool:
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
    raw_named: Annotated[Named | None, Field(exclude_if=absent)] = None
    """In a live conversation's row, the request naming the replies it holds
    (``raw_request`` is then null), else left out."""
    reply: Annotated[str | None, Field(exclude_if=absent)] = None
    """The judge's last reply when it gave no verdict (at most 4 KB), else left out."""
    cost_usd: Annotated[Usd | None, Field(exclude_if=absent)] = None
    """What this judge's answers cost, else left out."""
    tries: tuple[JudgeTry, ...]


class CommandOutput(RecordModel):
    """What a ``workspace_command`` check's command did: its exit status (null after a
    timeout) and the ends of its stdout and stderr, each at most 16 KiB, redacted
    (docs/eval-files.md#workspace_command)."""

    exit_code: int | None
    timed_out: bool
    stdout: str
    stderr: str


class ChangedFile(RecordModel):
    """A file the agent changed in its workspace: lines added and removed, null for a
    binary file (docs/agents.md#the-change)."""

    path: str
    added: int | None
    removed: int | None


class WorkspaceRecord(RecordModel):
    """A case's workspace (docs/agents.md#workspaces): where it is, whether it was kept (a
    failed case's is), and the agent's change to it: each file, and the unified diff
    (redacted, at most 64 KiB; null when the agent never ran)."""

    path: str
    kept: bool
    files: tuple[ChangedFile, ...] | None
    diff: str | None


class SandboxRecord(RecordModel):
    """The sandbox a case's agent command and workspace checks ran in
    (docs/agents.md#sandboxes): ``none`` or ``bwrap``, and whether it let them reach the
    network (``allow``) or not (``none``)."""

    type: Literal["none", "bwrap"]
    network: Literal["none", "allow"]


class EvaluatorResult(RecordModel):
    """One evaluator's verdict on one answer (an error leaves ``score`` null)."""

    name: str
    type: str
    weight: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    status: Status
    score: Score | None
    threshold: Score | None = None
    """The score this evaluator passes at: its own ``threshold``, else the run's pass mark
    (docs/eval-files.md#pass-rules); null in rows written before thresholds."""
    passed: bool | None = None
    """Whether ``score`` reached ``threshold``; null on an error (and in older rows)."""
    hits: tuple[str, ...]
    misses: tuple[str, ...]
    reasoning: str
    raw_request: EvaluatorRequest | None
    raw_named: Annotated[Named | None, Field(exclude_if=absent)] = None
    """In a live conversation's row, a judge's request naming the replies it holds
    (``raw_request`` is then null), else left out."""
    reply: Annotated[str | None, Field(exclude_if=absent)] = None
    """A judge's last reply when it gave no verdict (at most 4 KB), else left out."""
    cost_usd: Annotated[Usd | None, Field(exclude_if=absent)] = None
    """What a judge's answers cost (docs/running.md#cost), else left out."""
    judge_target: Annotated[str | None, Field(exclude_if=absent)] = None
    """A single ``llm_judge``'s target (docs/judges.md#run-metrics), else left out."""
    tries: Annotated[tuple[JudgeTry, ...] | None, Field(exclude_if=absent)] = None
    """A single ``llm_judge``'s requests, else left out."""
    aggregate: Annotated[Aggregate | None, Field(exclude_if=absent)] = None
    """A judge panel's aggregate, else left out."""
    judges: Annotated[tuple[JudgeVerdict, ...] | None, Field(exclude_if=absent)] = None
    """A judge panel's verdicts, one per judge in the order named, else left out."""
    output: Annotated[CommandOutput | None, Field(exclude_if=absent)] = None
    """A ``workspace_command`` check's command output, else left out."""


class ToolCallRecord(RecordModel):
    """A tool call of an assistant turn: ``{id, name, arguments}``."""

    id: str
    name: str
    arguments: dict[str, JsonValue]


class MediaRecord(RecordModel):
    """A media part of a prompt message, without its bytes: ``{type, path, media_type,
    size, sha256}``, or ``{type, url}`` for an image the API fetches (docs/delivery.md#media)."""

    type: Literal["image", "pdf", "audio"]
    path: Annotated[str | None, Field(exclude_if=absent)] = None
    url: Annotated[str | None, Field(exclude_if=absent)] = None
    media_type: Annotated[str | None, Field(exclude_if=absent)] = None
    size: Annotated[int | None, Field(exclude_if=absent)] = None
    sha256: Annotated[str | None, Field(exclude_if=absent)] = None


class PromptMessage(RecordModel):
    """An entry of ``raw_request.chat_prompt``: ``{role, content}`` plus ``tool_calls``,
    ``tool_call_id`` and ``name`` where the message has them (docs/delivery.md#what-is-recorded)."""

    # Left out when absent. ``exclude_if`` rather than a wrap serializer: the row is
    # written once per case, and a wrap serializer cost a quarter of writing it.
    role: Role
    content: str
    tool_calls: Annotated[tuple[ToolCallRecord, ...] | None, Field(exclude_if=absent)] = None
    tool_call_id: Annotated[str | None, Field(exclude_if=absent)] = None
    name: Annotated[str | None, Field(exclude_if=absent)] = None
    media: Annotated[tuple[MediaRecord, ...] | None, Field(exclude_if=absent)] = None


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
    wire_added: Annotated[tuple[Addition, ...] | None, Field(exclude_if=absent)] = None
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


class ToolResult(RecordModel):
    """The answer the tool loop gave one call (docs/tools.md#the-row): which call, what was
    sent back, and whether it reports a failure."""

    tool_call_id: str
    name: str
    content: str
    """The text sent back to the model."""
    is_error: bool
    """Whether it reports the tool's failure (an unknown tool, a failed command, ...)."""
    source: Literal["result", "results", "command", "mcp", "none"]
    """What answered: a fixed result, a scripted one, a command, an MCP server, or nothing
    (the call could not be answered)."""
    latency_ms: float


class StepRecord(RecordModel):
    """One request of a tool loop (docs/tools.md#the-row): what it sent, what the model
    answered, and the results its calls got."""

    step: int
    """The step's number, from 1."""
    wire_request: WireRequest | None
    """What the step sent, whole; ``null`` when ``wire_added`` gives it."""
    wire_added: Annotated[tuple[Addition, ...] | None, Field(exclude_if=absent)] = None
    """What the step sent, as what it adds to the previous step's request."""
    delivery_notes: tuple[DeliveryNote, ...]
    reply: str
    tool_calls: Annotated[tuple[AnswerToolCall, ...] | None, Field(exclude_if=absent)] = None
    reasoning: Annotated[tuple[ReasoningPart, ...] | None, Field(exclude_if=absent)] = None
    """The reply's reasoning, never part of ``reply`` (docs/running.md#reasoning); left out
    of a step whose reply has none."""
    tool_results: Annotated[tuple[ToolResult, ...] | None, Field(exclude_if=absent)] = None
    """The answers to the step's calls, in the calls' order; left out when none ran."""
    finish_reason: str | None
    usage: Usage | None
    cost_usd: Usd | None
    latency_ms: float
    attempts: int
    cache: CacheState


class TurnRecord(RecordModel):
    """One turn of a live conversation: what was sent, the reply, and its own evaluators'
    verdicts (docs/conversations.md#the-row)."""

    turn: int
    """The turn's number, from 1."""
    raw_request: Annotated[RawRequest | None, Field(exclude_if=absent)] = None
    """What was built for the turn, whole; left out when ``raw_added`` gives it, when
    nothing was built, and from rows written before turns recorded it."""
    raw_added: Annotated[tuple[Addition, ...] | None, Field(exclude_if=absent)] = None
    """What was built for the turn, as what it adds to the previous turn's."""
    wire_request: WireRequest | None
    """What the turn sent, whole; ``null`` when ``wire_added`` gives it, or when nothing
    was sent."""
    wire_added: Annotated[tuple[Addition, ...] | None, Field(exclude_if=absent)] = None
    """What the turn sent, as what it adds to the previous turn's request."""
    delivery_notes: tuple[DeliveryNote, ...]
    reply: str | None
    """The target's reply (``null`` for the turn that failed)."""
    tool_calls: Annotated[tuple[AnswerToolCall, ...] | None, Field(exclude_if=absent)] = None
    """The reply's tool calls in the API's order (docs/tools.md#tool-calls-in-the-answer);
    left out of a turn whose reply has none."""
    reasoning: Annotated[tuple[ReasoningPart, ...] | None, Field(exclude_if=absent)] = None
    """The reply's reasoning, never part of ``reply`` (docs/running.md#reasoning); left out
    of a turn whose reply has none."""
    finish_reason: str | None
    usage: Usage | None
    cost_usd: Usd | None
    latency_ms: float | None
    attempts: int
    cache: CacheState
    evaluator_results: tuple[EvaluatorResult, ...]
    score: Score | None
    """The weighted mean of this turn's evaluators, ``null`` without any (or on an error)."""
    simulator: Annotated[SimulatorRecord | None, Field(exclude_if=absent)] = None
    """The simulated user's call that wrote this turn's message; left out of fixed turns
    and of a ``first_message``."""
    simulator_done: Annotated[SimulatorRecord | None, Field(exclude_if=absent)] = None
    """The simulated user's call after this turn that ended the conversation (``done``)."""
    steps: Annotated[tuple[StepRecord, ...] | None, Field(exclude_if=absent)] = None
    """The tool loop's requests for this turn's reply, when it ran one (docs/tools.md#the-row);
    the turn's own request fields then hold its first."""
