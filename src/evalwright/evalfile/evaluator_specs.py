"""Evaluator specifications as written in an eval file (docs/eval-files.md#evaluators)."""

from __future__ import annotations

import functools
import re
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    Field,
    Tag,
    model_validator,
)

from evalwright.evalfile.action_specs import (
    CostSpec,
    DiffSpec,
    FileContainsSpec,
    FileExistsSpec,
    LatencySpec,
    ToolCalledSpec,
    ToolCallF1Spec,
    ToolSequenceSpec,
    TrajectoryMatchSpec,
    WorkspaceCommandSpec,
)
from evalwright.evalfile.evaluator_base import (
    CheckBase,
    EvaluatorBase,
    NoNegate,
    command_line,
    text_values,
)
from evalwright.files.base import (
    EnvName,
    NonEmptyStr,
    field_error,
    field_tag,
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
Aggregate = Literal["mean", "median", "majority"]
"""How a judge panel's verdicts make one score (docs/judges.md#aggregates)."""


def _panel(value: list[str]) -> list[str]:
    if len(value) < 2:
        raise field_error("panel_size", "a panel needs at least two judges (use 'target' for one)")
    if len(set(value)) != len(value):
        raise field_error("duplicate", "each judge target may be named once")
    return value


class LlmJudgeSpec(EvaluatorBase):
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


class CodeSpec(EvaluatorBase):
    """A script scoring the answer: JSON on stdin, one JSON object on stdout. Secrets stay
    out of its environment unless named in ``pass_env``."""

    type: Literal["code"] = "code"
    script: Annotated[list[str] | str, AfterValidator(command_line)]
    payload: Literal["evalwright", "agentv"] = "evalwright"
    """``agentv``: only the fields AgentV HEAD sends its script graders, for graders (its
    Python SDK's) that refuse others (docs/eval-files.md#code)."""
    cwd: str | None = None
    timeout_seconds: Annotated[float, Field(gt=0)] = 60.0
    pass_env: list[EnvName] = Field(default_factory=list[str])
    negate: NoNegate = False


class ContainsSpec(CheckBase):
    """Scores 1 when every value occurs in the answer."""

    type: Literal["contains"] = "contains"
    value: Annotated[list[str] | str, AfterValidator(text_values)]
    case_sensitive: bool = True


def _regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise field_error("regex", f"invalid regular expression: {exc}") from None
    return value


class RegexSpec(CheckBase):
    """Scores 1 when ``re.search(value, answer)`` finds a match."""

    type: Literal["regex"] = "regex"
    value: Annotated[str, AfterValidator(_regex)]
    case_sensitive: bool = True


class EqualsSpec(CheckBase):
    """Scores 1 when the answer equals ``value``, both sides tidied."""

    type: Literal["equals"] = "equals"
    value: str
    case_sensitive: bool = True


class IsJsonSpec(CheckBase):
    """Scores 1 when the answer parses as JSON."""

    type: Literal["is_json"] = "is_json"


class JsonSchemaSpec(CheckBase):
    """Scores 1 when the answer parses as JSON that ``schema`` validates
    (docs/eval-files.md#json_schema)."""

    type: Literal["json_schema"] = "json_schema"
    json_schema: JsonSchema = Field(alias="schema")
    """The JSON Schema, inline; checked against its meta-schema when the file is read."""


Answers = Annotated[list[str] | str, AfterValidator(text_values)]
"""The accepted answers: one string or a non-empty list (any one of them will do)."""


class MatchSpec(CheckBase):
    """Scores 1 when the answer, stripped, starts with one of ``value`` (the case's reference
    answer when left out): OpenAI evals' ``Match`` (docs/eval-files.md#openai-evals-matchers)."""

    type: Literal["match"] = "match"
    value: Answers | None = None


class IncludesSpec(CheckBase):
    """Scores 1 when one of ``value`` (the case's reference answer when left out) occurs in the
    answer: OpenAI evals' ``Includes`` (docs/eval-files.md#openai-evals-matchers)."""

    type: Literal["includes"] = "includes"
    value: Answers | None = None
    case_sensitive: bool = True


class FuzzyMatchSpec(CheckBase):
    """Scores 1 when, both normalised, the answer holds one of ``value`` (the case's reference
    answer when left out) or is held in it: OpenAI evals' ``FuzzyMatch``
    (docs/eval-files.md#openai-evals-matchers)."""

    type: Literal["fuzzy_match"] = "fuzzy_match"
    value: Answers | None = None


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
