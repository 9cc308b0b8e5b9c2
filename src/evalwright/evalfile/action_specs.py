"""Checks of what an answer did rather than what it says (docs/eval-files.md#evaluators):
its tool calls (docs/tools.md#scoring-tool-calls), its agent's workspace
(docs/agents.md#workspace-checks), its latency and cost
(docs/eval-files.md#latency-and-cost)."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated, Literal, cast

from pydantic import AfterValidator, BeforeValidator, Field, JsonValue, model_validator

from evalwright.evalfile.evaluator_base import CheckBase, EvaluatorBase, command_line, text_values
from evalwright.files.base import EnvName, FileModel, NonEmptyStr, field_error
from evalwright.targets.tools import JsonSchema

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


class ToolCalledSpec(CheckBase):
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


class ToolSequenceSpec(CheckBase):
    """Scores 1 when the answer's calls follow ``calls`` in the way ``mode`` says
    (docs/tools.md#tool_sequence)."""

    type: Literal["tool_sequence"] = "tool_sequence"
    calls: ExpectedCalls
    mode: Order = "in_order"


class ToolCallF1Spec(CheckBase):
    """Scores the F1 of the expected calls against the answer's, each call matched at most
    once (docs/tools.md#tool_call_f1)."""

    type: Literal["tool_call_f1"] = "tool_call_f1"
    calls: ExpectedCalls


class TrajectoryMatchSpec(CheckBase):
    """Scores 1 when the answer's calls follow the assistant tool calls of the case's
    ``expected_messages`` (docs/tools.md#trajectory_match)."""

    type: Literal["trajectory_match"] = "trajectory_match"
    mode: Order = "exact"
    arguments: Literal["exact", "partial", "ignore"] = "exact"
    """How arguments are compared: equal, the expected keys only, or not at all."""


class WorkspaceCommandSpec(CheckBase):
    """Runs ``command`` in the workspace: 1 on exit status 0, or the score a last stdout line
    ``{"score": x}`` gives (docs/eval-files.md#workspace_command)."""

    type: Literal["workspace_command"] = "workspace_command"
    command: Annotated[list[str], AfterValidator(command_line)]
    timeout_seconds: Annotated[float, Field(gt=0)] = 600.0
    pass_env: list[EnvName] = Field(default_factory=list[str])


def _in_workspace(path: str) -> str:
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or "\\" in path:
        raise field_error("path", "expected a path relative to the workspace, without '..'")
    return path


WorkspacePath = Annotated[str, Field(min_length=1), AfterValidator(_in_workspace)]
"""A file's path relative to the workspace, which it cannot leave."""


class FileExistsSpec(CheckBase):
    """Scores 1 when ``path`` (relative to the workspace, never leaving it) exists."""

    type: Literal["file_exists"] = "file_exists"
    path: WorkspacePath


class FileContainsSpec(CheckBase):
    """Scores 1 when the workspace's file ``path`` holds every one of ``value``."""

    type: Literal["file_contains"] = "file_contains"
    path: WorkspacePath
    value: Annotated[list[str] | str, AfterValidator(text_values)]
    case_sensitive: bool = True


class DiffSpec(CheckBase):
    """Scores the agent's change to its workspace: 0 when it touched a file outside
    ``allowed_paths`` or inside ``forbidden_paths`` (glob lists, docs/agents.md#the-change),
    naming each; 1 otherwise."""

    type: Literal["diff"] = "diff"
    allowed_paths: list[NonEmptyStr] | None = None
    forbidden_paths: list[NonEmptyStr] = Field(default_factory=list[str])


class LatencySpec(EvaluatorBase):
    """Scores 1 when the target answered within ``max_ms`` milliseconds
    (docs/eval-files.md#latency-and-cost)."""

    type: Literal["latency"] = "latency"
    max_ms: Annotated[float, Field(gt=0, allow_inf_nan=False)]

    @model_validator(mode="before")
    @classmethod
    def _limit_named_threshold(cls, data: object) -> object:
        return _renamed(data, ("threshold",), "max_ms")


class CostSpec(EvaluatorBase):
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
