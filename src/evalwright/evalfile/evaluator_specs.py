"""Evaluator specifications as written in an eval file (docs/eval-files.md#evaluators)."""

from __future__ import annotations

import functools
import re
from pathlib import PurePosixPath
from typing import Annotated, Literal, cast

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    Tag,
    model_validator,
)

from evalwright.files.base import (
    EnvName,
    FileModel,
    NonEmptyStr,
    field_error,
    field_tag,
    still_required,
    variant,
)
from evalwright.targets.tools import JsonSchema

TOOL_CHECK_TYPES = ("tool_called", "tool_sequence", "tool_call_f1", "trajectory_match")
"""The built-in evaluators that score the answer's tool calls, its trajectory
(docs/tools.md#scoring-tool-calls)."""
WORKSPACE_CHECK_TYPES = ("workspace_command", "file_exists", "file_contains", "diff")
"""The built-in evaluators that look at the case's workspace after the agent ran
(docs/agents.md#workspace-checks)."""
LIMIT_TYPES = ("latency", "cost")
"""The built-in evaluators that bound what the answer took, not what it says
(docs/eval-files.md#latency-and-cost)."""
EVALUATOR_TYPES = (
    "llm_judge",
    "code",
    "contains",
    "regex",
    "equals",
    "is_json",
    "json_schema",
    "match",
    "includes",
    "fuzzy_match",
    *TOOL_CHECK_TYPES,
    *WORKSPACE_CHECK_TYPES,
    *LIMIT_TYPES,
)
# AgentV evaluator types we recognise but do not implement: a clear error, not "unknown".
AGENTV_EVALUATOR_TYPES = frozenset(
    {
        "code_judge",
        "rubric",
        "rubrics",
        "composite",
        "tool_trajectory",
        "field_accuracy",
        "token_usage",
        "batch_cli",
    }
)
Weight = Annotated[float, Field(ge=0, allow_inf_nan=False)]
"""An evaluator's share of the case score; 0 reports it without counting it, and a case whose
weights are all 0 scores 0, as under AgentV (docs/eval-files.md#evaluators)."""


class _Evaluator(FileModel):
    # ``type`` has a default so Python code may leave it out; a file must still write it.
    model_config = ConfigDict(json_schema_extra=still_required("type"))

    name: NonEmptyStr
    weight: Weight = 1.0
    required: bool = False
    """The case fails when this evaluator scores below its threshold, whatever the weighted
    score (docs/eval-files.md#required-evaluators)."""
    threshold: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] | None = None
    """The score this evaluator passes at; the run's pass mark when left out
    (docs/eval-files.md#pass-rules)."""


def _refuse_negate(value: bool) -> bool:
    if value:
        raise field_error(
            "negate",
            "'negate' is only for deterministic evaluators (a judge's or a script's score is "
            "not a pass/fail to flip)",
        )
    return value


NoNegate = Annotated[bool, AfterValidator(_refuse_negate), Field(exclude=True)]
"""``negate`` on a judge or a script: accepted only as ``false``, refused with a located
error otherwise (docs/tools.md#negate)."""


class _Check(_Evaluator):
    negate: bool = False
    """Score ``1 - score``: the check passes when its condition does not hold
    (docs/tools.md#negate)."""


Aggregate = Literal["mean", "median", "majority"]
"""How a judge panel's verdicts make one score (docs/judges.md#aggregates)."""


def _panel(value: list[str]) -> list[str]:
    if len(value) < 2:
        raise field_error("panel_size", "a panel needs at least two judges (use 'target' for one)")
    if len(set(value)) != len(value):
        raise field_error("duplicate", "each judge target may be named once")
    return value


class LlmJudgeSpec(_Evaluator):
    """An LLM judge: the default template, or ``prompt`` (a file reference or inline text);
    one judge (``target``) or a panel (``judges``, docs/judges.md)."""

    type: Literal["llm_judge"] = "llm_judge"
    prompt: str | None = None
    target: NonEmptyStr | None = None
    judges: (
        Annotated[
            list[NonEmptyStr],
            AfterValidator(_panel),
            Field(json_schema_extra={"minItems": 2, "uniqueItems": True}),
        ]
        | None
    ) = None
    """A panel of judge targets, asked concurrently with the same prompt."""
    aggregate: Aggregate | None = None
    """How the panel's verdicts make the score; ``mean`` when left out."""
    include_reasoning: bool = False
    """Show the judge the answer's reasoning (a ``<reasoning>`` block before it in
    ``{{candidate_answer}}``); left out by default (docs/judges.md#reasoning)."""
    include_media: bool = False
    """Send the case's media parts to the judge natively, after its prompt; by default the
    judge reads a ``<file path=... sha256=...>`` marker in their place (docs/judges.md#media)."""
    model: str | None = Field(
        default=None, deprecated="AgentV's llm_judge model is ignored; set the judge's target"
    )
    negate: NoNegate = False

    @model_validator(mode="after")
    def _check(self) -> LlmJudgeSpec:
        if self.judges is not None and self.target is not None:
            raise field_error(
                "exclusive", "give either 'target' (one judge) or 'judges' (a panel)", "judges"
            )
        if self.aggregate is not None and self.judges is None:
            raise field_error("panel", "'aggregate' needs a panel of 'judges'", "aggregate")
        return self


def _script(value: list[str] | str) -> list[str] | str:
    if isinstance(value, str):
        if not value.strip():
            raise field_error("empty", "must not be empty")
    elif not value or not value[0]:
        raise field_error("empty", "expected a non-empty argv list")
    return value


class CodeSpec(_Evaluator):
    """A script scoring the answer: JSON on stdin, one JSON object on stdout. Secrets stay
    out of its environment unless named in ``pass_env``."""

    type: Literal["code"] = "code"
    script: Annotated[list[str] | str, AfterValidator(_script)]
    payload: Literal["evalwright", "agentv"] = "evalwright"
    """``agentv``: only the fields AgentV HEAD sends its script graders, for graders (its
    Python SDK's) that refuse others (docs/eval-files.md#code)."""
    cwd: str | None = None
    timeout_seconds: Annotated[float, Field(gt=0)] = 60.0
    pass_env: list[EnvName] = Field(default_factory=list[str])
    negate: NoNegate = False


def _values(value: list[str] | str) -> list[str] | str:
    if isinstance(value, list) and not value:
        raise field_error("empty", "expected at least one value")
    return value


class ContainsSpec(_Check):
    """Scores 1 when every value occurs in the answer."""

    type: Literal["contains"] = "contains"
    value: Annotated[list[str] | str, AfterValidator(_values)]
    case_sensitive: bool = True


def _regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise field_error("regex", f"invalid regular expression: {exc}") from None
    return value


class RegexSpec(_Check):
    """Scores 1 when ``re.search(value, answer)`` finds a match."""

    type: Literal["regex"] = "regex"
    value: Annotated[str, AfterValidator(_regex)]
    case_sensitive: bool = True


class EqualsSpec(_Check):
    """Scores 1 when the answer equals ``value``, both sides tidied."""

    type: Literal["equals"] = "equals"
    value: str
    case_sensitive: bool = True


class IsJsonSpec(_Check):
    """Scores 1 when the answer parses as JSON."""

    type: Literal["is_json"] = "is_json"


class JsonSchemaSpec(_Check):
    """Scores 1 when the answer parses as JSON that ``schema`` validates
    (docs/eval-files.md#json_schema)."""

    type: Literal["json_schema"] = "json_schema"
    json_schema: JsonSchema = Field(alias="schema")
    """The JSON Schema, inline; checked against its meta-schema when the file is read."""


Answers = Annotated[list[str] | str, AfterValidator(_values)]
"""The accepted answers: one string or a non-empty list (any one of them will do)."""


class MatchSpec(_Check):
    """Scores 1 when the answer, stripped, starts with one of ``value`` (the case's reference
    answer when left out): OpenAI evals' ``Match`` (docs/eval-files.md#openai-evals-matchers)."""

    type: Literal["match"] = "match"
    value: Answers | None = None


class IncludesSpec(_Check):
    """Scores 1 when one of ``value`` (the case's reference answer when left out) occurs in the
    answer: OpenAI evals' ``Includes`` (docs/eval-files.md#openai-evals-matchers)."""

    type: Literal["includes"] = "includes"
    value: Answers | None = None
    case_sensitive: bool = True


class FuzzyMatchSpec(_Check):
    """Scores 1 when, both normalised, the answer holds one of ``value`` (the case's reference
    answer when left out) or is held in it: OpenAI evals' ``FuzzyMatch``
    (docs/eval-files.md#openai-evals-matchers)."""

    type: Literal["fuzzy_match"] = "fuzzy_match"
    value: Answers | None = None


Arguments = dict[str, JsonValue]
"""A call's arguments, as a JSON object."""


class ExpectedCall(FileModel):
    """A call an evaluator expects: its tool's name and, optionally, arguments that must match
    (docs/tools.md#scoring-tool-calls)."""

    name: NonEmptyStr
    arguments: Arguments | None = None
    """Keys the call's arguments must have, with equal values (a partial match)."""


def _names_as_calls(value: object) -> object:
    # A bare name is the call ``{name}``; anything else is left for the model to judge.
    if isinstance(value, list):
        items: list[object] = value  # pyright: ignore[reportUnknownVariableType]
        return [{"name": item} if isinstance(item, str) else item for item in items]
    return value


def _some_calls(value: list[ExpectedCall]) -> list[ExpectedCall]:
    if not value:
        raise field_error("empty", "expected at least one call")
    return value


ExpectedCalls = Annotated[
    list[ExpectedCall],
    BeforeValidator(_names_as_calls, json_schema_input_type=list[str | ExpectedCall]),
    AfterValidator(_some_calls),
]
"""Expected calls, each a tool name or ``{name, arguments}``; at least one."""
Order = Literal["exact", "in_order", "any_order"]
"""``exact``: the calls are exactly these; ``in_order``: these in this order, others may come
between; ``any_order``: each of these, in any order (docs/tools.md#tool_sequence)."""
Count = Annotated[int, Field(ge=0)]


class ToolCalledSpec(_Check):
    """Scores 1 when the answer calls tool ``name`` (with matching arguments) between ``min``
    and ``max`` times (docs/tools.md#tool_called)."""

    type: Literal["tool_called"] = "tool_called"
    tool: NonEmptyStr
    arguments: Arguments | None = None
    """Keys the arguments must have, with equal values (mappings compared the same way)."""
    arguments_schema: JsonSchema | None = None
    """A JSON Schema the arguments must satisfy."""
    min: Count | None = None
    """At least this many matching calls; 1 unless ``max`` is 0."""
    max: Count | None = None

    @model_validator(mode="after")
    def _check(self) -> ToolCalledSpec:
        if self.arguments is not None and self.arguments_schema is not None:
            message = "give either 'arguments' (a partial match) or 'arguments_schema'"
            raise field_error("exclusive", message, "arguments_schema")
        if self.max is not None and self.min is not None and self.min > self.max:
            raise field_error("range", f"'min' ({self.min}) exceeds 'max' ({self.max})", "min")
        return self

    @property
    def least(self) -> int:
        """The fewest matching calls that pass."""
        if self.min is not None:
            return self.min
        return 1 if self.max is None else min(1, self.max)


class ToolSequenceSpec(_Check):
    """Scores 1 when the answer's calls follow ``calls`` in the way ``mode`` says
    (docs/tools.md#tool_sequence)."""

    type: Literal["tool_sequence"] = "tool_sequence"
    calls: ExpectedCalls
    mode: Order = "in_order"


class ToolCallF1Spec(_Check):
    """Scores the F1 of the expected calls against the answer's, each call matched at most
    once (docs/tools.md#tool_call_f1)."""

    type: Literal["tool_call_f1"] = "tool_call_f1"
    calls: ExpectedCalls


class TrajectoryMatchSpec(_Check):
    """Scores 1 when the answer's calls follow the assistant tool calls of the case's
    ``expected_messages`` (docs/tools.md#trajectory_match)."""

    type: Literal["trajectory_match"] = "trajectory_match"
    mode: Order = "exact"
    arguments: Literal["exact", "partial", "ignore"] = "exact"
    """How arguments are compared: equal, the expected keys only, or not at all."""


class WorkspaceCommandSpec(_Check):
    """Runs ``command`` in the workspace: 1 on exit status 0, or the score a last stdout line
    ``{"score": x}`` gives (docs/eval-files.md#workspace_command)."""

    type: Literal["workspace_command"] = "workspace_command"
    command: Annotated[list[str], AfterValidator(_script)]
    timeout_seconds: Annotated[float, Field(gt=0)] = 600.0
    pass_env: list[EnvName] = Field(default_factory=list[str])


def _in_workspace(path: str) -> str:
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or "\\" in path:
        raise field_error("path", "expected a path relative to the workspace, without '..'")
    return path


WorkspacePath = Annotated[str, Field(min_length=1), AfterValidator(_in_workspace)]
"""A file's path relative to the workspace, which it cannot leave."""


class FileExistsSpec(_Check):
    """Scores 1 when ``path`` (relative to the workspace, never leaving it) exists."""

    type: Literal["file_exists"] = "file_exists"
    path: WorkspacePath


class FileContainsSpec(_Check):
    """Scores 1 when the workspace's file ``path`` holds every one of ``value``."""

    type: Literal["file_contains"] = "file_contains"
    path: WorkspacePath
    value: Annotated[list[str] | str, AfterValidator(_values)]
    case_sensitive: bool = True


class DiffSpec(_Check):
    """Scores the agent's change to its workspace: 0 when it touched a file outside
    ``allowed_paths`` or inside ``forbidden_paths`` (glob lists, docs/agents.md#the-change),
    naming each; 1 otherwise."""

    type: Literal["diff"] = "diff"
    allowed_paths: list[NonEmptyStr] | None = None
    forbidden_paths: list[NonEmptyStr] = Field(default_factory=list[str])


class LatencySpec(_Evaluator):
    """Scores 1 when the target answered within ``max_ms`` milliseconds
    (docs/eval-files.md#latency-and-cost)."""

    type: Literal["latency"] = "latency"
    max_ms: Annotated[float, Field(gt=0, allow_inf_nan=False)]

    @model_validator(mode="before")
    @classmethod
    def _limit_named_threshold(cls, data: object) -> object:
        return _renamed(data, ("threshold",), "max_ms")


class CostSpec(_Evaluator):
    """Scores 1 when the answer cost at most ``max_usd`` US dollars
    (docs/eval-files.md#latency-and-cost)."""

    type: Literal["cost"] = "cost"
    max_usd: Annotated[float, Field(ge=0, allow_inf_nan=False)]

    @model_validator(mode="before")
    @classmethod
    def _limit_named_threshold(cls, data: object) -> object:
        return _renamed(data, ("threshold", "budget"), "max_usd")


def _renamed(data: object, names: tuple[str, ...], field: str) -> object:
    # AgentV's latency ``threshold`` and cost ``budget``, and promptfoo's ``threshold``, are
    # the limit itself; a pass threshold on a 0-or-1 check would mean nothing, so such a key
    # is read as the limit (docs/eval-files.md#latency-and-cost).
    if not isinstance(data, dict):
        return data
    given = cast("dict[str, object]", dict(data))  # pyright: ignore[reportUnknownArgumentType]
    named = [name for name in names if name in given]
    if field in given or len(named) != 1:
        return given
    given[field] = given.pop(named[0])
    return given


_evaluator_tag = field_tag("type", {kind: kind for kind in EVALUATOR_TYPES})


EvaluatorSpec = Annotated[
    Annotated[LlmJudgeSpec, Tag("llm_judge")]
    | Annotated[CodeSpec, Tag("code")]
    | Annotated[ContainsSpec, Tag("contains")]
    | Annotated[RegexSpec, Tag("regex")]
    | Annotated[EqualsSpec, Tag("equals")]
    | Annotated[IsJsonSpec, Tag("is_json")]
    | Annotated[JsonSchemaSpec, Tag("json_schema")]
    | Annotated[MatchSpec, Tag("match")]
    | Annotated[IncludesSpec, Tag("includes")]
    | Annotated[FuzzyMatchSpec, Tag("fuzzy_match")]
    | Annotated[ToolCalledSpec, Tag("tool_called")]
    | Annotated[ToolSequenceSpec, Tag("tool_sequence")]
    | Annotated[ToolCallF1Spec, Tag("tool_call_f1")]
    | Annotated[TrajectoryMatchSpec, Tag("trajectory_match")]
    | Annotated[WorkspaceCommandSpec, Tag("workspace_command")]
    | Annotated[FileExistsSpec, Tag("file_exists")]
    | Annotated[FileContainsSpec, Tag("file_contains")]
    | Annotated[DiffSpec, Tag("diff")]
    | Annotated[LatencySpec, Tag("latency")]
    | Annotated[CostSpec, Tag("cost")],
    variant(
        _evaluator_tag,
        "type",
        "unsupported evaluator type",
        EVALUATOR_TYPES,
        foreign=sorted(AGENTV_EVALUATOR_TYPES),
        foreign_message="AgentV feature '{}' evaluator is not supported (see docs/agentv.md)",
    ),
]
"""One evaluator, discriminated by ``type``."""


def _evaluator_list(value: list[EvaluatorSpec]) -> list[EvaluatorSpec]:
    if not value:
        raise field_error(
            "empty", "must not be empty (leave the key out to use the default llm_judge)"
        )
    seen: set[str] = set()
    for spec in value:
        if spec.name in seen:
            raise field_error("duplicate", f"duplicate evaluator name {spec.name!r}")
        seen.add(spec.name)
    return value


EvaluatorList = Annotated[list[EvaluatorSpec], AfterValidator(_evaluator_list)]
"""A non-empty list of evaluators with unique names."""


@functools.cache
def default_judge() -> LlmJudgeSpec:
    """The evaluator used when a case configures none (built on first use: building it
    compiles the model's validator, which the start of a run should not pay for twice)."""
    return LlmJudgeSpec(name="llm_judge", type="llm_judge")
