"""Eval files and eval cases as written by users (docs/eval-files.md).

AgentV 0.13 forms are fields too, marked deprecated (editors strike them through); the
loader warns "legacy key X: use Y" for each one it meets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Literal

from pydantic import Discriminator, Field, JsonValue, Tag, model_validator

from evalwright.evalfile.dataset_spec import DatasetSpec
from evalwright.evalfile.evaluator_specs import EvaluatorList
from evalwright.evalfile.messages import Content, Message
from evalwright.files.base import FileModel, NonEmptyStr, Pattern, field_error
from evalwright.files.config import Repeat
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import McpTools, ToolSpec
from evalwright.targets.workspace import Workspace

CaseId = Annotated[str, Pattern(r"[A-Za-z0-9._-]+", "case id")]
Tags = list[NonEmptyStr]
"""``tags:`` on a case or a file: names ``--tag`` and ``--skip-tag`` select by
(docs/eval-files.md#tags)."""


PassRule = Literal["all", "mean"]
"""How a case's evaluators make its verdict (docs/eval-files.md#pass-rules): ``all``, every
counted evaluator meets its own threshold; ``mean``, the weighted score reaches the pass mark."""
PassRate = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
"""``pass_rate:``: the share of a case's repeats that must pass for the case to pass
(docs/running.md#gates-over-repeats)."""


class Execution(FileModel):
    """Where a file's or case's answers come from and how they are judged."""

    target: NonEmptyStr | None = None
    evaluators: EvaluatorList | None = None
    pass_rule: PassRule | None = Field(default=None, alias="pass")
    """``pass:``, the case's pass rule; the case's wins over its file's, which wins over
    ``--pass-rule`` (docs/eval-files.md#pass-rules)."""
    pass_rate: PassRate | None = None
    """The share of the case's repeats that must pass; the case's wins over its file's,
    which wins over ``--pass-rate`` (docs/running.md#gates-over-repeats)."""


class ToolsFile(FileModel):
    """``{file: PATH}`` in a ``tools:`` list: the tools a YAML or JSON file declares, in its
    order (docs/tools.md#declaring-tools)."""

    file: NonEmptyStr


def _tool_tag(value: object) -> str | None:
    if isinstance(value, ToolsFile | ToolSpec | McpTools):
        return {ToolsFile: "file", ToolSpec: "tool", McpTools: "server"}[type(value)]
    if isinstance(value, dict):
        return "file" if "file" in value else "server" if "mcp" in value else "tool"
    return None


ToolItem = Annotated[
    Annotated[ToolSpec, Tag("tool")]
    | Annotated[ToolsFile, Tag("file")]
    | Annotated[McpTools, Tag("server")],
    Discriminator(
        _tool_tag,
        custom_error_type="tool_type",
        custom_error_message=(
            "expected a tool (a mapping with 'name'), {file: PATH} or {mcp: SERVER}"
        ),
    ),
]
"""One entry of ``tools:``: a tool, a file of tools, or an MCP server's tools."""


def _legacy(use: str) -> str:
    return f"AgentV form: use {use}"


class Turn(FileModel):
    """One user turn of a live conversation (docs/conversations.md): its content, as an
    input message's, and evaluators of this turn's reply."""

    content: Content
    evaluators: EvaluatorList | None = None


def _turn_tag(value: object) -> str | None:
    if isinstance(value, str):
        return "str"
    if isinstance(value, dict | Turn):
        return "turn"
    return None


TurnItem = Annotated[
    Annotated[str, Tag("str")] | Annotated[Turn, Tag("turn")],
    Discriminator(
        _turn_tag,
        custom_error_type="turn_type",
        custom_error_message="expected a string or a mapping with 'content'",
    ),
]
"""A user turn: a bare string, or a :class:`Turn`."""
MAX_SIMULATED_TURNS = 100
"""The most candidate turns a simulated user may run (``max_turns``)."""


class SimulatedUser(FileModel):
    """A chat target that plays the user of a live conversation until its goal is reached
    or ``max_turns`` candidate turns have run (docs/conversations.md#simulated-user)."""

    target: NonEmptyStr
    """The chat target that plays the user."""
    persona: NonEmptyStr
    goal: NonEmptyStr
    max_turns: Annotated[int, Field(ge=1, le=MAX_SIMULATED_TURNS)]
    first_message: NonEmptyStr | None = None
    """The first user message as written; without it the simulator writes it."""


class EvalCase(FileModel):
    """One eval case: a conversation plus what a good answer achieves."""

    id: CaseId
    expected_outcome: str | None = None
    input_messages: Annotated[list[Message], Field(min_length=1)] | None = None
    input: str | None = None
    expected_messages: list[Message] | None = None
    expected_output: str | None = None
    conversation_id: str | None = None
    tags: Tags | None = None
    execution: Execution | None = None
    metadata: dict[str, JsonValue] | None = None
    settings: SamplingSettings | None = None
    """Sampling settings for this case; they win over the target's, key by key."""
    tools: list[ToolItem] | None = None
    """Tools offered to the model: added to the file's, a tool of the same name replacing
    the file's one (docs/tools.md#declaring-tools)."""
    tools_replace: bool | None = None
    """``true``: the case's ``tools:`` replace the file's instead of adding to them."""
    max_steps: Annotated[int, Field(ge=1, le=1000)] = 10
    """How many requests the tool loop may make for one answer (docs/tools.md#the-tool-loop)."""
    repeat: Repeat | None = None
    """How many times the case runs on each target; wins over ``--repeat`` and the config."""
    turns: Annotated[list[TurnItem], Field(min_length=1)] | None = None
    """The user turns of a live conversation: the target answers each in turn
    (docs/conversations.md)."""
    simulated_user: SimulatedUser | None = None
    """A chat target playing the user instead of fixed ``turns``
    (docs/conversations.md#simulated-user)."""
    dataset: NonEmptyStr | DatasetSpec | None = None
    """A template case: one case per record of this dataset
    (docs/eval-files.md#datasets-and-variables); the cases built from it no longer hold it."""
    vars: Annotated[list[dict[str, JsonValue]], Field(min_length=1)] | None = None
    """A template case: one case per inline record (docs/eval-files.md#variables)."""
    workspace: Workspace | None = None
    """The directory an agent answers this case in; wins over the file's and the target's
    (docs/agents.md#workspaces)."""
    outcome: str | None = Field(default=None, deprecated=_legacy("expected_outcome"))
    evaluators: EvaluatorList | None = Field(
        default=None, deprecated=_legacy("execution.evaluators")
    )
    evaluator: Literal["llm_judge"] | None = Field(
        default=None, deprecated=_legacy("execution.evaluators")
    )
    note: str | None = Field(default=None, deprecated="AgentV's note is ignored")

    @classmethod
    def absent_keys(cls, data: Mapping[str, object]) -> list[tuple[str, str]]:
        """``expected_outcome``, and the input unless the case is live, when ``data`` has
        neither key of the pair."""
        pairs = [("expected_outcome", "outcome")]
        if "turns" not in data and "simulated_user" not in data:
            pairs.append(("input_messages", "input"))
        return [
            (key, f"missing required key '{key}'")
            for key, other in pairs
            if key not in data and other not in data
        ]

    @model_validator(mode="after")
    def _check(self) -> EvalCase:
        _one_of(self, "expected_outcome", "outcome", required=True)
        live = self.turns is not None or self.simulated_user is not None
        _one_of(self, "input_messages", "input", required=not live)
        _one_of(self, "turns", "simulated_user", required=False)
        if live and self.input is not None:
            which = "turns" if self.turns is not None else "simulated_user"
            raise field_error("conflict", f"give '{which}' or 'input', not both", "input")
        _one_of(self, "expected_messages", "expected_output", required=False)
        if self.execution and self.execution.evaluators is not None:
            _one_of(self, "execution", "evaluators", required=False)
            _one_of(self, "execution", "evaluator", required=False)
        _one_of(self, "evaluators", "evaluator", required=False)
        return self


def merged_tags(*groups: Sequence[str] | None) -> tuple[str, ...]:
    """The union of tag lists, each tag once, in the order first given."""
    return tuple(dict.fromkeys(tag for group in groups if group for tag in group))


def raw_field(spec: FileModel, key: str) -> object:
    """A field's value, read without the warning pydantic gives for deprecated (AgentV) keys."""
    return spec.__dict__[key]


def _one_of(spec: FileModel, key: str, other: str, *, required: bool) -> None:
    has_key = raw_field(spec, key) is not None
    has_other = raw_field(spec, other) is not None
    if has_key and has_other:
        raise field_error("conflict", f"give '{key}' or '{other}', not both", other)
    if required and not (has_key or has_other):
        raise field_error("required", f"missing required key '{key}'", key)


VariantName = Annotated[str, Pattern(r"[A-Za-z0-9._-]+", "prompt variant name")]


class VariantMessages(FileModel):
    """A prompt variant as messages put before each case's own
    (docs/eval-files.md#prompt-variants)."""

    messages: Annotated[list[Message], Field(min_length=1)]


PromptSpec = NonEmptyStr | VariantMessages
"""One of ``prompts:``: a system prompt's text, or ``{messages: [...]}``."""
PromptsMap = Annotated[dict[VariantName, PromptSpec], Field(min_length=1)]
"""``prompts:``: at least one named variant."""


class _FileHeader(FileModel):
    schema_: Literal["evalwright-eval-v1", "agentv-eval-v2"] | None = Field(
        default=None, alias="$schema"
    )
    description: str | None = None
    dataset: NonEmptyStr | None = None
    target: NonEmptyStr | None = None
    tags: Tags | None = None
    """Tags every case of the file has, besides its own."""
    execution: Execution | None = None
    tools: list[ToolItem] | None = None
    """Tools every case of the file offers the model (docs/tools.md#declaring-tools)."""
    prompts: PromptsMap | None = None
    """Named prompt variants: each case runs once per variant
    (docs/eval-files.md#prompt-variants)."""
    system_prompt: Literal["none"] | None = None
    """``none``: no default system prompt for the file's cases
    (docs/eval-files.md#system_prompt-none)."""
    workspace: Workspace | None = None
    """The directory an agent answers each case in, unless the case names its own
    (docs/agents.md#workspaces)."""
    evaluator: Literal["llm_judge"] | None = Field(
        default=None, deprecated=_legacy("execution.evaluators")
    )

    @model_validator(mode="after")
    def _check(self) -> _FileHeader:
        if self.execution and self.execution.evaluators is not None:
            _one_of(self, "execution", "evaluator", required=False)
        return self


class JsonlHeader(_FileHeader):
    """The optional first line of a JSONL eval file: file-level settings, no ``id``."""


class EvalFileSpec(_FileHeader):
    """A YAML eval file."""

    evalcases: Annotated[list[EvalCase], Field(min_length=1)]
