"""Which class serves which provider; each module is imported only when a target uses it."""

from __future__ import annotations

import importlib
from typing import Any

from evalwright.evalfile.targets import Target
from evalwright.providers.base import Provider, ProviderContext
from evalwright.providers.http import HttpPool

_CLASSES = {
    "openai": "evalwright.providers.openai.adapter:OpenAIProvider",
    "azure": "evalwright.providers.azure.adapter:AzureProvider",
    "anthropic": "evalwright.providers.anthropic.adapter:AnthropicProvider",
    "gemini": "evalwright.providers.gemini.adapter:GeminiProvider",
    "mock": "evalwright.providers.mock.adapter:MockProvider",
    "cli": "evalwright.providers.cli.adapter:CliProvider",
    "codex": "evalwright.providers.codex.adapter:CodexProvider",
    "vscode": "evalwright.providers.vscode.adapter:VSCodeProvider",
    "vscode-insiders": "evalwright.providers.vscode.adapter:VSCodeProvider",
}
CHAT_KINDS = frozenset({"openai", "azure", "anthropic", "gemini"})
AGENT_KINDS = frozenset({"cli", "codex", "vscode", "vscode-insiders"})


def provider_class(kind: str) -> type[Provider]:
    """The adapter class for a provider kind (importing its module now)."""
    module_name, _, class_name = _CLASSES[kind].partition(":")
    cls: type[Provider] = getattr(importlib.import_module(module_name), class_name)
    return cls


def create_provider(target: Target, pool: HttpPool, context: ProviderContext) -> Provider:
    """A provider for a resolved target: chat APIs share the run's pool, agents get the
    project context."""
    cls: Any = provider_class(target.provider)
    if target.provider in CHAT_KINDS:
        provider: Provider = cls(target, pool)
    elif target.provider in AGENT_KINDS:
        provider = cls(target, context)
    else:
        provider = cls(target)
    return provider
