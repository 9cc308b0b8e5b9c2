"""What every evaluator specification has (docs/eval-files.md#evaluators): shared by the
answer checks (:mod:`evalwright.evalfile.evaluator_specs`) and the checks of what an answer
did (:mod:`evalwright.evalfile.action_specs`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, ConfigDict, Field

from evalwright.files.base import FileModel, NonEmptyStr, field_error, still_required

Weight = Annotated[float, Field(ge=0, allow_inf_nan=False)]
"""An evaluator's share of the case score; 0 reports it without counting it, and a case whose
weights are all 0 scores 0, as under AgentV (docs/eval-files.md#evaluators)."""


class EvaluatorBase(FileModel):
    """What every evaluator has: a name, a weight, whether it is required, a threshold."""

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


class CheckBase(EvaluatorBase):
    """A deterministic check, which may be negated."""

    negate: bool = False
    """Score ``1 - score``: the check passes when its condition does not hold
    (docs/tools.md#negate)."""


def text_values(value: list[str] | str) -> list[str] | str:
    """One text or a list of at least one."""
    if isinstance(value, list) and not value:
        raise field_error("empty", "expected at least one value")
    return value


def command_line(value: list[str] | str) -> list[str] | str:
    """A command: a non-empty text (a shell line) or a non-empty argv list."""
    if isinstance(value, str):
        if not value.strip():
            raise field_error("empty", "must not be empty")
    elif not value or not value[0]:
        raise field_error("empty", "expected a non-empty argv list")
    return value
