"""The provider interface: ``prepare(request)`` once, then ``send(prepared)`` per attempt.

Adapters only convert, call and map errors; retries, timeouts, concurrency and caching are
applied around every one of them alike by the orchestrator (``TargetCaller``).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

from evalwright.errors import ProviderError, ResponseTooLarge
from evalwright.files.reading import FileTooLarge, UnreadableFile, read_limited
from evalwright.prompts import BuiltPrompt, ChatMessage, DeliveryNote
from evalwright.providers.http import HttpPool
from evalwright.providers.process import ChildEnvironment
from evalwright.providers.ratelimits import Quota
from evalwright.providers.runner import LOCAL, CommandRunner
from evalwright.providers.sampling import unsupported_notes
from evalwright.providers.wire import AnswerToolCall, TraceEntry, Usage, WireRequest
from evalwright.records import ReasoningPart
from evalwright.targets.kind_facts import Mode
from evalwright.targets.models import RetrySettings, Target
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import ToolSpec

Purpose = Literal["candidate", "judge", "simulator"]


@dataclass(frozen=True, slots=True)
class ProviderRequest:
    """One call: the messages to send (docs/delivery.md#what-a-chat-api-is-sent, or a judge's
    two), and what they came from."""

    case_id: str
    messages: tuple[ChatMessage, ...]
    notes: tuple[DeliveryNote, ...] = ()
    purpose: Purpose = "candidate"
    response_schema: dict[str, Any] | None = None
    inputs: BuiltPrompt | None = None
    attempt: int = 1
    max_output_tokens: int | None = None
    """Sent when the target sets no ``max_output_tokens`` (a judge's default)."""
    temperature: float | None = None
    """Sent when the target sets no ``temperature``, where it has one (a judge's default)."""
    settings: SamplingSettings | None = None
    """The case's sampling settings (docs/eval-files.md#settings); they win over the target's."""
    tools: tuple[ToolSpec, ...] = ()
    """The tools the case offers the model (docs/tools.md), in the order declared."""
    workspace: str | None = None
    """The case's own workspace, where an agent runs (docs/agents.md#workspaces); ``None``
    leaves the directory to the target."""


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """A request converted for the wire, before anything is sent: exactly what
    ``evalwright prompt --target`` shows, and what a chat API is sent on every attempt."""

    request: ProviderRequest
    wire: WireRequest
    """What the target is sent; an agent's scratch paths are named by role until it runs."""
    notes: tuple[DeliveryNote, ...]
    """The case's delivery notes, then the adapter's own."""

    @property
    def attempt(self) -> int:
        """Which attempt this is (agents pass it on as ``{ATTEMPT}``)."""
        return self.request.attempt

    def for_attempt(self, attempt: int) -> PreparedRequest:
        """The same request stamped as attempt ``attempt``."""
        if attempt == self.request.attempt:
            return self
        return replace(self, request=replace(self.request, attempt=attempt))


@dataclass(frozen=True, slots=True)
class ProviderResponse:
    """A target's answer, with what was sent and how it went: the one response type the
    rest of evalwright sees (a cache hit too)."""

    text: str
    finish_reason: str | None
    usage: Usage | None
    latency_ms: float
    wire_request: WireRequest
    delivery_notes: tuple[DeliveryNote, ...]
    attempts: int = 1
    trace: tuple[TraceEntry, ...] = field(default=())
    cost_usd: float | None = None
    """What the answer cost at its target's price, set by the run around every call
    (``None`` when unknown; docs/running.md#cost)."""
    node: str | None = None
    """The cluster node that ran an agent's command (``--executor ray``, docs/scale.md)."""
    quota: Quota | None = None
    """What the answer's headers said of the endpoint's rate limits: the run paces its
    requests by it (docs/targets.md#rate-limits); never recorded or cached."""
    tool_calls: tuple[AnswerToolCall, ...] = ()
    """The tool calls of the answer, in the order the API gave them (docs/tools.md)."""
    reasoning: tuple[ReasoningPart, ...] = ()
    """The answer's reasoning, in the API's order, never part of ``text``
    (docs/running.md#reasoning)."""


def _unchanged(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class ProviderContext:
    """What adapters need beyond their target: the run's HTTP pool (chat APIs), where the
    project is, how to keep secrets out of the logs they write, and the environment for the
    commands they run."""

    root: Path
    pool: HttpPool
    redact: Callable[[str], str] = _unchanged
    child_env: ChildEnvironment = field(default_factory=ChildEnvironment.current)
    runner: CommandRunner = LOCAL
    """Where agent commands run (docs/scale.md)."""


def read_answer_file(path: str | os.PathLike[str], limit: int, missing: str) -> str:
    """An agent's answer written to a file, no larger than ``limit`` (the target's
    ``max_response_bytes``); ``missing`` says what the agent failed to write."""
    try:
        data = read_limited(path, limit)
    except FileTooLarge as exc:
        raise ResponseTooLarge(limit, exc.size) from None
    except UnreadableFile as exc:
        raise ProviderError(f"{missing}: {exc}") from None
    return data.decode("utf-8", errors="replace").rstrip()


class Provider(ABC):
    """A target's adapter; one instance per target, reused across requests.

    Every caller uses it the same way: :meth:`prepare` once, then :meth:`send` per attempt.
    Retries, timeouts, the concurrency bound and the cache are applied around it by the
    orchestrator, from the properties below.
    """

    kind: ClassVar[str]
    """The ``provider`` value recorded on rows and in cache keys."""

    def __init__(self, target: Target, context: ProviderContext) -> None:
        """Every adapter is built the same way; each keeps what it needs of ``context``."""
        self.target = target
        self.api = target.kind.wire
        """The ``api`` its requests are recorded with (its kind's row)."""
        del context  # the base needs none of it

    @property
    def mode(self) -> Mode:
        """The prompt mode the target's cases are built in (the table of provider kinds)."""
        return self.target.kind.mode

    @property
    def cacheable(self) -> bool:
        """Whether answers may be cached: only chat APIs' (the same request, the same
        answer); an agent or the mock is always asked."""
        return self.target.kind.family == "chat"

    @property
    def rate_limit_scope(self) -> str | None:
        """Whom the API's rate limits count: targets with the same scope share one limit
        (docs/targets.md#rate-limits); None for a target without rate limits."""
        return None

    @property
    def cache_scope(self) -> str:
        """What besides the wire request decides the answer, for the cache key (a chat API's
        full URL); empty where nothing does."""
        return ""

    @property
    def retry(self) -> RetrySettings | None:
        """The target's retry settings; ``None`` where a failed attempt is never retried."""
        return None

    @property
    def timeout(self) -> float:
        """Seconds one attempt may take."""
        return self.target.timeout

    @abstractmethod
    def prepare(self, request: ProviderRequest) -> PreparedRequest:
        """Convert a request for the wire without sending anything (pure)."""

    @abstractmethod
    async def send(self, prepared: PreparedRequest) -> ProviderResponse:
        """Send a prepared request once and map the answer; raise ProviderError on failure."""

    def answer_notes(self, wire: WireRequest, usage: Usage | None) -> tuple[DeliveryNote, ...]:
        """Notes on what an answer shows the server did with ``wire`` (none by default);
        computed for fresh and cached answers alike."""
        del wire, usage
        return ()

    async def template_notes(self, prepared: PreparedRequest) -> tuple[DeliveryNote, ...]:
        """Notes on what the model's chat template drops of ``prepared``, where the target asks
        for that check (docs/targets.md#check_template); none by default. Never raises."""
        del prepared
        return ()

    def request_notes(self, request: ProviderRequest) -> tuple[DeliveryNote, ...]:
        """The case's notes, then one ``setting_unsupported`` per sampling setting this
        target cannot take (an agent or the mock takes none)."""
        return (*request.notes, *unsupported_notes(self.kind, request.settings))

    async def aclose(self) -> None:  # noqa: B027 - most providers hold nothing to close
        """Release what the provider holds (the HTTP pool is closed by its owner)."""
