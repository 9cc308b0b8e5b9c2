"""Which class serves which provider; each module is imported only when a target uses it."""

from __future__ import annotations

import importlib
from typing import Any

from evalwright.evalfile.targets import Target
from evalwright.providers.base import Provider
from evalwright.providers.http import HttpPool

_CLASSES = {
    "openai": "evalwright.providers.openai.adapter:OpenAIProvider",
    "azure": "evalwright.providers.azure.adapter:AzureProvider",
    "anthropic": "evalwright.providers.anthropic.adapter:AnthropicProvider",
    "gemini": "evalwright.providers.gemini.adapter:GeminiProvider",
    "mock": "evalwright.providers.mock.adapter:MockProvider",
}
CHAT_KINDS = frozenset({"openai", "azure", "anthropic", "gemini"})


def provider_class(kind: str) -> type[Provider]:
    """The adapter class for a provider kind (importing its module now)."""
    module_name, _, class_name = _CLASSES[kind].partition(":")
    cls: type[Provider] = getattr(importlib.import_module(module_name), class_name)
    return cls


def create_provider(target: Target, pool: HttpPool) -> Provider:
    """A provider for a resolved target; chat APIs share the run's HTTP pool."""
    cls: Any = provider_class(target.provider)
    if target.provider in CHAT_KINDS:
        provider: Provider = cls(target, pool)
    else:
        provider = cls(target)
    return provider
