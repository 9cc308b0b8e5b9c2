"""Helpers for provider tests: the chat targets, and scenario cases as requests."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from evalwright.evalfile import LoadedCase
from evalwright.orchestrator.requests import candidate_request, case_prompt
from evalwright.providers.base import (
    PreparedRequest,
    Provider,
    ProviderContext,
    ProviderRequest,
    ProviderResponse,
)
from evalwright.providers.chat import ChatProvider
from evalwright.providers.http import HttpPool
from evalwright.providers.registry import create_provider
from evalwright.targets.models import (
    AnthropicTarget,
    AzureTarget,
    ChatTarget,
    GeminiTarget,
    MistralTarget,
    OpenAITarget,
)
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import ToolChoice, ToolChoiceName, ToolSpec

APIS = ("openai", "azure", "anthropic", "gemini")
"""The APIs of the worked examples' tables (test_wire.py); mistral's are in test_mistral.py."""


def chat_target(api: str, /, base_url: str = "http://127.0.0.1:9", **extra: Any) -> ChatTarget:
    """A chat target of ``api`` pointed at ``base_url`` (our fake server in tests)."""
    common: dict[str, Any] = {"name": f"{api}-target", "api_key": "test-key-123456", **extra}
    if api == "openai":
        return OpenAITarget(
            provider="openai", model="gpt-test", base_url=base_url + "/v1", **common
        )
    if api == "azure":
        return AzureTarget(provider="azure", endpoint=base_url, deployment="dep-test", **common)
    if api == "anthropic":
        return AnthropicTarget(
            provider="anthropic", model="claude-test", base_url=base_url, **common
        )
    if api == "mistral":
        return MistralTarget(model="mistral-test", base_url=base_url + "/v1", **common)
    return GeminiTarget(provider="gemini", model="gemini-test", base_url=base_url, **common)


def chat_provider(
    api: str,
    /,
    pool: HttpPool | None = None,
    base_url: str = "http://127.0.0.1:9",
    **extra: Any,
) -> ChatProvider:
    """The real adapter for ``api``."""
    target = chat_target(api, base_url, **extra)
    provider = create_provider(target, ProviderContext(Path.cwd(), pool or HttpPool()))
    assert isinstance(provider, ChatProvider)
    return provider


def case_request(provider: ChatProvider, case: LoadedCase) -> ProviderRequest:
    """The candidate request of ``case`` for a chat provider's target."""
    return candidate_request(case, case_prompt(case, provider.chat))


async def ask(provider: Provider, request: ProviderRequest) -> ProviderResponse:
    """Send ``request`` once, the way the orchestrator does: prepare, then send."""
    return await provider.send(provider.prepare(request))


def prepare(api: str, case: LoadedCase, /, **extra: Any) -> PreparedRequest:
    """What ``api`` would send for ``case`` (no network)."""
    provider = chat_provider(api, **extra)
    return provider.prepare(case_request(provider, case))


def body(api: str, case: LoadedCase, /, **extra: Any) -> dict[str, Any]:
    """The request body ``api`` would send for ``case``."""
    return prepare(api, case, **extra).wire.model_dump(mode="json")["body"]


def rules(prepared: PreparedRequest) -> list[str]:
    """The rules of the delivery notes, in order."""
    return [note.rule for note in prepared.notes]


AIRLINE_TOOLS = (
    ToolSpec(
        name="get_reservation",
        description="Look up a reservation by its code.",
        parameters={
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^[A-Z0-9]{6}$"}},
            "required": ["code"],
            "additionalProperties": False,
        },
        strict=True,
    ),
    ToolSpec(
        name="search_flights",
        description="Direct flights between two airports on a date.",
        parameters={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "origin": {"$ref": "#/$defs/airport"},
                "destination": {"$ref": "#/$defs/airport"},
                "date": {"type": "string", "format": "date"},
                "cabin": {"enum": ["economy", "business"], "default": "economy"},
            },
            "required": ["origin", "destination", "date"],
            "$defs": {"airport": {"type": "string", "minLength": 3, "maxLength": 3}},
        },
    ),
    ToolSpec(
        name="cancel-reservation",
        parameters={
            "type": "object",
            "properties": {"code": {"type": "string"}, "reason": {"const": "change of plan"}},
            "required": ["code"],
        },
        strict=False,
    ),
    ToolSpec(name="transfer_to_human"),
)
"""A small airline domain (tau-bench's kind): strict and loose schemas, JSON Schema keywords
an OpenAPI subset lacks (``$ref``, ``$defs``, ``const``, ``additionalProperties``), a tool
without a description and one with the default parameters."""

TOOL_CHOICES: tuple[ToolChoice, ...] = (
    "auto",
    "none",
    "required",
    ToolChoiceName(name="search_flights"),
)


def with_tools(
    request: ProviderRequest,
    tools: tuple[ToolSpec, ...] = AIRLINE_TOOLS,
    choice: ToolChoice | None = None,
) -> ProviderRequest:
    """``request`` offering ``tools``, with ``choice`` as its ``tool_choice`` (if any)."""
    settings = request.settings or SamplingSettings()
    if choice is not None:
        settings = settings.model_copy(update={"tool_choice": choice})
    return replace(request, tools=tools, settings=settings)


def offering_each_choice(requests: list[ProviderRequest]) -> list[ProviderRequest]:
    """``requests`` offering the airline tools, with each ``tool_choice`` in turn and none,
    and ``parallel_tool_calls`` unset, false and true in turn."""
    choices: list[ToolChoice | None] = [*TOOL_CHOICES, None]
    parallel: list[bool | None] = [None, False, True]
    offered: list[ProviderRequest] = []
    for i, request in enumerate(requests):
        each = with_tools(request, choice=choices[i % len(choices)])
        assert each.settings is not None
        update = {"parallel_tool_calls": parallel[i % len(parallel)]}
        offered.append(replace(each, settings=each.settings.model_copy(update=update)))
    return offered
