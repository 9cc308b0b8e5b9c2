"""The provider interface: one async ``generate(request) -> response`` per target.

Adapters only convert, call and map errors; retries, timeouts, concurrency and caching are
applied around them by the orchestrator.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from evalwright.errors import ProviderError, ResponseTooLarge
from evalwright.evalfile.reading import FileTooLarge, UnreadableFile, read_limited
from evalwright.evalfile.targets import Target
from evalwright.prompts import ChatMessage, DeliveryNote, PromptInputs
from evalwright.prompts.render import Mode
from evalwright.providers.process import ChildEnvironment

Purpose = Literal["candidate", "judge"]


@dataclass(frozen=True, slots=True)
class WireRequest:
    """What a chat API was sent: the body exactly as sent, and the path without a host."""

    api: str
    model: str
    url_path: str | None
    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The row's ``wire_request`` (docs/delivery.md#what-is-recorded)."""
        return {"api": self.api, "model": self.model, "url_path": self.url_path, "body": self.body}


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts as the API reported them."""

    input_tokens: int | None
    output_tokens: int | None

    def to_json(self) -> dict[str, int | None]:
        """``{input_tokens, output_tokens}``."""
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


@dataclass(frozen=True, slots=True)
class ProviderRequest:
    """One call: the messages to send (docs/delivery.md#what-a-chat-api-is-sent, or a judge's
    two), and what they came from."""

    case_id: str
    messages: tuple[ChatMessage, ...]
    notes: tuple[DeliveryNote, ...] = ()
    purpose: Purpose = "candidate"
    response_schema: dict[str, Any] | None = None
    inputs: PromptInputs | None = None
    attempt: int = 1


@dataclass(frozen=True, slots=True)
class Prepared:
    """A request converted for the wire, before anything is sent."""

    wire_request: dict[str, Any]
    notes: tuple[DeliveryNote, ...]


@dataclass(frozen=True, slots=True)
class ProviderResponse:
    """A target's answer, with what was sent and how it went."""

    text: str
    finish_reason: str | None
    usage: Usage | None
    latency_ms: float
    wire_request: dict[str, Any]
    delivery_notes: tuple[DeliveryNote, ...]
    attempts: int = 1
    trace: tuple[dict[str, Any], ...] = field(default=())


def _unchanged(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class ProviderContext:
    """What agent adapters need beyond their target: where the project is, how to keep
    secrets out of the logs they write, and the environment for the commands they run."""

    root: Path
    redact: Callable[[str], str] = _unchanged
    child_env: ChildEnvironment = field(default_factory=ChildEnvironment.current)


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
    """A target's adapter; one instance per target, reused across requests."""

    kind: ClassVar[str]
    mode: ClassVar[Mode] = "lm"

    def __init__(self, target: Target) -> None:
        self.target = target

    @abstractmethod
    def prepare(self, request: ProviderRequest) -> Prepared:
        """Convert a request for the wire without sending it (``prompt --target``)."""

    @abstractmethod
    async def generate(self, request: ProviderRequest) -> ProviderResponse:
        """Send one request and map the reply; raise ProviderError on failure."""

    async def aclose(self) -> None:  # noqa: B027 - most providers hold nothing to close
        """Release what the provider holds (the HTTP pool is closed by its owner)."""
