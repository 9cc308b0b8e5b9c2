"""Eval cases after loading: every file resolved and read, ready for prompt building.

These are internal, immutable and cheap: one is built per case once, at load.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from pydantic import JsonValue

from evalwright.evalfile.evaluator_specs import EvaluatorSpec
from evalwright.evalfile.messages import Role, ToolCall
from evalwright.evalfile.models import EvalCase, PassRule, SimulatedUser
from evalwright.evalfile.references import FileResolver
from evalwright.evalfile.template import Template
from evalwright.files.media import Media, MediaKind
from evalwright.files.project import Project
from evalwright.records import ReasoningPart
from evalwright.targets.tools import McpTools, ToolSpec
from evalwright.targets.workspace import ResolvedWorkspace


@dataclass(frozen=True, slots=True)
class TextSegment:
    """Tidied, non-empty text."""

    text: str


@dataclass(frozen=True, slots=True)
class FileSegment:
    """A non-guideline file: shown inline (LM mode) or named for the agent to read."""

    display: str
    path: str
    content: str


@dataclass(frozen=True, slots=True)
class GuidelineSegment:
    """A guideline file: its content goes to the guidelines; the turn shows a marker."""

    display: str
    path: str
    content: str


@dataclass(frozen=True, slots=True)
class MediaSegment:
    """A media part (docs/eval-files.md#media-parts): a file's sniffed bytes (``media``), or
    the URL of an image the API fetches itself (``url``, ``media`` then ``None``)."""

    kind: MediaKind
    display: str
    path: str | None = None
    media: Media | None = None
    url: str | None = None

    def marker(self) -> str:
        """The text that stands for it where the media is not sent natively:
        ``<file path="DISPLAY" sha256="HEX">`` (``<image url="URL">`` for a URL)."""
        if self.media is None:
            return f'<image url="{self.url}">'
        return f'<file path="{self.display}" sha256="{self.media.sha256}">'


Segment = TextSegment | FileSegment | GuidelineSegment | MediaSegment


@dataclass(frozen=True, slots=True)
class CaseMessage:
    """One message as segments, with its structured tool fields."""

    role: Role
    segments: tuple[Segment, ...]
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    """A tool result that reports the tool's failure (docs/tools.md#failures)."""
    reasoning: tuple[ReasoningPart, ...] = ()
    """The reasoning of an answer the model gave in this run, set only by the tool loop: an
    API that needs it sent back (Anthropic's thinking) gets it unchanged
    (docs/tools.md#the-tool-loop)."""
    visible: bool = field(init=False)
    """Whether it has a text or file segment, or (assistant) a tool call."""

    def __post_init__(self) -> None:
        # AnsweredCase for many times per case while building prompts, so worked out once.
        visible = bool(self.tool_calls) or any(
            not isinstance(s, GuidelineSegment) for s in self.segments
        )
        object.__setattr__(self, "visible", visible)


@dataclass(frozen=True, slots=True)
class Evaluator:
    """An evaluator spec with what loading resolved: a judge's template, a script's cwd."""

    spec: EvaluatorSpec
    template: Template | None = None
    cwd: str | None = None


class CaseLocation(Protocol):
    """Where a case sits in its file."""

    def line(self) -> int:
        """The line the case starts on."""
        ...


@dataclass(frozen=True, slots=True)
class LoadedTurn:
    """One user turn of a live conversation, with the evaluators of its reply
    (docs/conversations.md)."""

    message: CaseMessage
    evaluators: tuple[Evaluator, ...] = ()


@dataclass(frozen=True, slots=True)
class LoadedCase:
    """One loaded eval case."""

    id: str
    expected_outcome: str
    input_messages: tuple[CaseMessage, ...]
    expected_messages: tuple[CaseMessage, ...]
    evaluators: tuple[Evaluator, ...]
    target: str | None
    conversation_id: str | None
    metadata: dict[str, JsonValue] | None
    tags: tuple[str, ...]
    """The case's tags and its file's (docs/eval-files.md#tags)."""
    where: CaseLocation = field(repr=False, compare=False)
    repeat: int | None = field(default=None, kw_only=True)
    """The case's own ``repeat:`` (docs/running.md#repeats-and-reliability)."""
    pass_rule: PassRule | None = field(default=None, kw_only=True)
    """``execution.pass``, the case's or its file's; ``None`` leaves it to the run
    (docs/eval-files.md#pass-rules)."""
    pass_rate: float | None = field(default=None, kw_only=True)
    """``execution.pass_rate``, the case's or its file's; ``None`` leaves it to the run
    (docs/running.md#gates-over-repeats)."""
    turns: tuple[LoadedTurn, ...] = field(default=(), kw_only=True)
    """The user turns of a live conversation, empty for a single answer
    (docs/conversations.md)."""
    simulated_user: SimulatedUser | None = field(default=None, kw_only=True)
    """The chat target playing the user of a live conversation
    (docs/conversations.md#simulated-user)."""
    tools: tuple[ToolSpec, ...] = field(default=(), kw_only=True)
    """The tools offered to the model: the file's and the case's own
    (docs/tools.md#declaring-tools)."""
    tool_servers: tuple[McpTools, ...] = field(default=(), kw_only=True)
    """The MCP servers whose tools join them when the run starts (docs/tools.md#mcp-servers)."""
    vars: dict[str, JsonValue] | None = field(default=None, kw_only=True)
    """The record a template case was filled from (docs/eval-files.md#variables)."""
    system_prompt: str | None = field(default=None, kw_only=True)
    """``""`` when the file says ``system_prompt: none``: no default system prompt, whatever
    the target's (docs/eval-files.md#system_prompt-none); ``None`` leaves it to the target."""
    workspace: ResolvedWorkspace | None = field(default=None, kw_only=True)
    """The directory an agent answers the case in, the case's or its file's
    (docs/agents.md#workspaces); ``None`` leaves it to the target."""
    spec: EvalCase = field(repr=False)

    @property
    def line(self) -> int:
        """The line the case starts on in its file; worked out when first asked for, since
        a large YAML file's positions are composed only when needed (docs/eval-files.md)."""
        return self.where.line()


@dataclass(frozen=True, slots=True)
class PromptVariant:
    """One of a file's ``prompts:``: a name and the messages put before each case's own
    (docs/eval-files.md#prompt-variants)."""

    name: str
    messages: tuple[CaseMessage, ...]

    def apply(self, case: LoadedCase) -> LoadedCase:
        """``case`` as this variant sends it: the variant's messages first, then the case's."""
        return replace(case, input_messages=(*self.messages, *case.input_messages))


@dataclass(frozen=True, slots=True)
class SuiteInfo:
    """An eval file's identity and settings, known before its cases are read."""

    path: Path
    display_path: str
    project: Project
    dataset: str
    description: str | None
    resolver: FileResolver = field(repr=False)
    variants: tuple[PromptVariant, ...] = field(default=(), kw_only=True)
    """The file's prompt variants; each case runs once per variant (none: once, as written)."""
    relative_path: str = field(init=False)
    """The eval file's path relative to the project root, with ``/`` separators."""

    def __post_init__(self) -> None:
        relative = self.path.relative_to(self.project.root).as_posix()
        object.__setattr__(self, "relative_path", relative)


@dataclass(frozen=True, slots=True)
class LoadedSuite(SuiteInfo):
    """One fully loaded eval file."""

    cases: tuple[LoadedCase, ...] = ()
