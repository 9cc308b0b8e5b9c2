"""The one table of provider kinds: which adapter serves a kind, its family, and the prompt
mode its targets get (docs/targets.md, docs/delivery.md#lm-mode-and-agent-mode)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evalwright.prompts.render import Mode

Family = Literal["chat", "agent", "mock"]


@dataclass(frozen=True, slots=True)
class ProviderKind:
    """One ``provider:`` value of a target."""

    name: str
    adapter: str
    """``module:Class`` of the adapter, imported only when a target uses it."""
    family: Family
    """``chat`` APIs are cached and may judge; ``agent`` targets are coding agents."""
    mode: Mode
    """The prompt mode of the kind's targets: agents that read files get ``agent``."""


_ADAPTERS = "evalwright.providers"
_TABLE = (
    ProviderKind("openai", f"{_ADAPTERS}.openai.adapter:OpenAIProvider", "chat", "lm"),
    ProviderKind("azure", f"{_ADAPTERS}.azure.adapter:AzureProvider", "chat", "lm"),
    ProviderKind("anthropic", f"{_ADAPTERS}.anthropic.adapter:AnthropicProvider", "chat", "lm"),
    ProviderKind("gemini", f"{_ADAPTERS}.gemini.adapter:GeminiProvider", "chat", "lm"),
    ProviderKind("mock", f"{_ADAPTERS}.mock.adapter:MockProvider", "mock", "lm"),
    # A command line gets the LM-mode question as {PROMPT}, files as {FILES}.
    ProviderKind("cli", f"{_ADAPTERS}.cli.adapter:CliProvider", "agent", "lm"),
    ProviderKind("codex", f"{_ADAPTERS}.codex.adapter:CodexProvider", "agent", "agent"),
    ProviderKind("vscode", f"{_ADAPTERS}.vscode.adapter:VSCodeProvider", "agent", "agent"),
    ProviderKind("vscode-insiders", f"{_ADAPTERS}.vscode.adapter:VSCodeProvider", "agent", "agent"),
)
PROVIDER_KINDS: dict[str, ProviderKind] = {kind.name: kind for kind in _TABLE}
"""Every provider kind by name, in the order error messages list them."""


def provider_kind(name: str) -> ProviderKind:
    """The kind called ``name`` (a validated target's ``provider``)."""
    return PROVIDER_KINDS[name]


def kinds_of(family: Family) -> tuple[str, ...]:
    """The names of the kinds of one family, in table order."""
    return tuple(kind.name for kind in _TABLE if kind.family == family)


def live_turns_refusal(name: str) -> str | None:
    """Why targets of kind ``name`` cannot hold a live conversation (``turns:``), or
    ``None`` when they can: chat APIs and ``cli`` do (docs/conversations.md#targets)."""
    kind = PROVIDER_KINDS[name]
    if kind.family == "chat" or name == "cli":
        return None
    if kind.family == "mock":
        return (
            "the offline mock answers every turn alike and cannot hold a live conversation "
            "(turns:); use a chat target or a cli target"
        )
    return (
        f"a {name} agent session cannot be continued turn by turn, so it cannot hold a live "
        "conversation (turns:); use a chat target or a cli target"
    )


def simulator_refusal(name: str) -> str | None:
    """Why targets of kind ``name`` cannot play a simulated user, or ``None`` when they can:
    only chat APIs answer the JSON it is asked for (docs/conversations.md#simulated-user)."""
    if PROVIDER_KINDS[name].family == "chat":
        return None
    chats = ", ".join(kinds_of("chat"))
    return f"a {name} target cannot play a simulated user: use a chat target ({chats})"
