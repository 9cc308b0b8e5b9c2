"""Evaluator specifications as written in an eval file (docs/eval-files.md#evaluators)."""

from __future__ import annotations

import functools
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field, Tag, model_validator

from evalwright.files.base import (
    EnvName,
    FileModel,
    NonEmptyStr,
    field_error,
    field_tag,
    still_required,
    variant,
)

EVALUATOR_TYPES = ("llm_judge", "code", "contains", "regex", "equals", "is_json")
# AgentV evaluator types we recognise but do not implement: a clear error, not "unknown".
AGENTV_EVALUATOR_TYPES = frozenset(
    {
        "code_judge",
        "rubric",
        "rubrics",
        "composite",
        "tool_trajectory",
        "field_accuracy",
        "latency",
        "cost",
        "token_usage",
        "batch_cli",
    }
)
Weight = Annotated[float, Field(gt=0, allow_inf_nan=False)]


class _Evaluator(FileModel):
    # ``type`` has a default so Python code may leave it out; a file must still write it.
    model_config = ConfigDict(json_schema_extra=still_required("type"))

    name: NonEmptyStr
    weight: Weight = 1.0
    required: bool = False
    """The case fails when this evaluator scores below the pass mark, whatever the weighted
    score (docs/eval-files.md#required-evaluators)."""


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
    model: str | None = Field(
        default=None, deprecated="AgentV's llm_judge model is ignored; set the judge's target"
    )

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
    cwd: str | None = None
    timeout_seconds: Annotated[float, Field(gt=0)] = 60.0
    pass_env: list[EnvName] = Field(default_factory=list[str])


def _values(value: list[str] | str) -> list[str] | str:
    if isinstance(value, list) and not value:
        raise field_error("empty", "expected at least one value")
    return value


class ContainsSpec(_Evaluator):
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


class RegexSpec(_Evaluator):
    """Scores 1 when ``re.search(value, answer)`` finds a match."""

    type: Literal["regex"] = "regex"
    value: Annotated[str, AfterValidator(_regex)]
    case_sensitive: bool = True


class EqualsSpec(_Evaluator):
    """Scores 1 when the answer equals ``value``, both sides tidied."""

    type: Literal["equals"] = "equals"
    value: str
    case_sensitive: bool = True


class IsJsonSpec(_Evaluator):
    """Scores 1 when the answer parses as JSON."""

    type: Literal["is_json"] = "is_json"


_evaluator_tag = field_tag("type", {kind: kind for kind in EVALUATOR_TYPES})


EvaluatorSpec = Annotated[
    Annotated[LlmJudgeSpec, Tag("llm_judge")]
    | Annotated[CodeSpec, Tag("code")]
    | Annotated[ContainsSpec, Tag("contains")]
    | Annotated[RegexSpec, Tag("regex")]
    | Annotated[EqualsSpec, Tag("equals")]
    | Annotated[IsJsonSpec, Tag("is_json")],
    variant(
        _evaluator_tag,
        "type",
        "unsupported evaluator type",
        EVALUATOR_TYPES,
        foreign=sorted(AGENTV_EVALUATOR_TYPES),
        foreign_message="AgentV feature '{}' evaluator is not supported",
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
