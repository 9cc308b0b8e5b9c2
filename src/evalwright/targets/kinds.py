"""The one table of provider kinds: each kind's row declares the facts about it that are
neither its adapter's nor its target model's (docs/targets.md,
docs/delivery.md#lm-mode-and-agent-mode).

Everything else is derived from the rows: the kinds a targets file accepts, the API key
variables, the price database's provider ids, the API names of notes and warnings, the
settings an API cannot take, the ``api`` values of recorded requests. A name that is no
kind raises :class:`UnknownKind`; a chat kind without its API's facts cannot be written.
Importing this module imports nothing else of the project (the shape of a row is in
:mod:`evalwright.targets.kind_facts`): validation, pricing and the results
schema read it before (or without) importing any adapter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from evalwright.targets.kind_facts import (
    ApiVariant,
    ChatApi,
    Family,
    MediaLimits,
    ProviderKind,
    UnknownKind,
)

_ADAPTERS = "evalwright.providers"
_OPENAI_CUT_OFF = frozenset({"length"})
_NO_THINKING_BUDGET = {"thinking_budget_tokens": "use reasoning_effort"}
_OPENAI_CHAT_UNSUPPORTED = {**_NO_THINKING_BUDGET, "reasoning_summary": "use api: responses"}
_CHAT_COMPLETIONS_FIELDS = {
    "response_format": "response_format",
    "reasoning_effort": "reasoning_effort",
    "max_completion_tokens": "max_output_tokens",
    "parallel_tool_calls": "parallel_tool_calls",
}
_RESPONSES_FIELDS = {
    "text": "response_format",
    "reasoning": "reasoning_effort, reasoning_summary",
    "max_output_tokens": "max_output_tokens",
    "parallel_tool_calls": "parallel_tool_calls",
}
_RESPONSES_UNSUPPORTED = {
    "seed": "",
    "stop": "",
    "presence_penalty": "",
    "frequency_penalty": "",
    **_NO_THINKING_BUDGET,
}
"""The settings the Responses API has no field for (its ``CreateResponse`` schema)."""


def _responses(adapter: str, vendor_api: str, wire: str) -> dict[str, ApiVariant]:
    """The ``api: responses`` variant of an OpenAI-wire kind (docs/targets.md#the-responses-api):
    an answer cut at the limit is ``incomplete`` for ``max_output_tokens``."""
    variant = ApiVariant(
        f"{_ADAPTERS}.{adapter}",
        wire,
        f"{vendor_api} Responses",
        _RESPONSES_UNSUPPORTED,
        frozenset({"max_output_tokens"}),
        _RESPONSES_FIELDS,
        _RESPONSES_MEDIA,
    )
    return {"responses": variant}


def _chat(
    name: str,
    adapter: str,
    wire: str,
    api: ChatApi,
    variants: Mapping[str, ApiVariant] | None = None,
) -> ProviderKind:
    return ProviderKind(
        name,
        f"{_ADAPTERS}.{adapter}",
        "chat",
        "lm",
        wire,
        api,
        live_turns=True,
        variants=variants or {},
    )


_MB = 1024 * 1024
# OpenAI: 50 MB of images per request; a PDF up to 50 MB (its images and file inputs guides).
_OPENAI_MEDIA = MediaLimits(
    per_file={"image": 50 * _MB, "pdf": 50 * _MB, "audio": 50 * _MB},
    per_request=50 * _MB,
    source="OpenAI's images and file inputs guides",
)
# The Responses API takes what Chat Completions takes, within the same limits, but audio.
_RESPONSES_MEDIA = replace(
    _OPENAI_MEDIA,
    per_file={k: v for k, v in _OPENAI_MEDIA.per_file.items() if k != "audio"},
    refused={"audio": "its input takes no audio"},
)
_TABLE = (
    _chat(
        "openai",
        "openai.adapter:OpenAIProvider",
        "openai.chat.completions",
        ChatApi(
            vendor="OpenAI",
            name="OpenAI Chat Completions",
            key_variables=("OPENAI_API_KEY",),
            price_provider="openai",
            official_host="api.openai.com",
            unsupported=_OPENAI_CHAT_UNSUPPORTED,
            cut_off=_OPENAI_CUT_OFF,
            own_fields=_CHAT_COMPLETIONS_FIELDS,
            media=_OPENAI_MEDIA,
        ),
        _responses("openai.adapter:OpenAIResponsesProvider", "OpenAI", "openai.responses"),
    ),
    _chat(
        "azure",
        "azure.adapter:AzureProvider",
        "azure.chat.completions",
        ChatApi(
            vendor="Azure OpenAI",
            name="Azure OpenAI Chat Completions",
            key_variables=("AZURE_OPENAI_API_KEY",),
            price_provider="azure",
            official_host=None,  # every endpoint is a deployment of Azure's own
            unsupported=_OPENAI_CHAT_UNSUPPORTED,
            cut_off=_OPENAI_CUT_OFF,
            own_fields=_CHAT_COMPLETIONS_FIELDS,
            media=_OPENAI_MEDIA,
        ),
        _responses("azure.adapter:AzureResponsesProvider", "Azure OpenAI", "azure.responses"),
    ),
    _chat(
        "anthropic",
        "anthropic.adapter:AnthropicProvider",
        "anthropic.messages",
        ChatApi(
            vendor="Anthropic",
            name="Anthropic Messages",
            key_variables=("ANTHROPIC_API_KEY",),
            price_provider="anthropic",
            official_host="api.anthropic.com",
            unsupported={
                "seed": "",
                "presence_penalty": "",
                "frequency_penalty": "",
                "reasoning_effort": "use thinking_budget_tokens",
                "reasoning_summary": "its thinking blocks are recorded whenever "
                "thinking_budget_tokens turns thinking on",
            },
            cut_off=frozenset({"max_tokens"}),
            own_fields={
                "thinking": "thinking_budget_tokens",
                "output_config": "response_format",
                "stop_sequences": "stop",
            },
            cache_apart=True,
            prefill=True,
            # 5 MB per image (checked by the API on the base64 text: 3.75 MB of file), a
            # request of 32 MB (PDF support guide).
            media=MediaLimits(
                per_file={"image": 5 * _MB * 3 // 4, "pdf": 32 * _MB * 3 // 4},
                per_request=32 * _MB * 3 // 4,
                source="Anthropic's vision and PDF support guides",
                refused={"audio": "the Messages API takes no audio input"},
            ),
        ),
    ),
    _chat(
        "gemini",
        "gemini.adapter:GeminiProvider",
        "gemini.generateContent",
        ChatApi(
            vendor="Gemini",
            name="Gemini generateContent",
            key_variables=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            price_provider="google",
            official_host="generativelanguage.googleapis.com",
            unsupported={"parallel_tool_calls": ""},
            cut_off=frozenset({"MAX_TOKENS"}),
            own_fields={"generationConfig": "temperature, max_output_tokens, response_format"},
            # Inline data: a PDF up to 50 MB (its file input methods guide).
            media=MediaLimits(
                per_file={"image": 50 * _MB, "pdf": 50 * _MB, "audio": 50 * _MB},
                per_request=None,
                source="Gemini's file input methods guide",
                refused={"image_url": "its fileData takes only files uploaded to Google"},
            ),
        ),
    ),
    _chat(
        "mistral",
        "mistral:MistralProvider",
        "mistral.chat.completions",
        ChatApi(
            vendor="Mistral",
            name="Mistral Chat Completions",
            key_variables=("MISTRAL_API_KEY",),
            price_provider="mistral",
            official_host="api.mistral.ai",
            unsupported={**_NO_THINKING_BUDGET, "reasoning_summary": ""},
            # model_length: the model's context was full before the limit was reached.
            cut_off=frozenset({"length", "model_length"}),
            own_fields={
                "response_format": "response_format",
                "reasoning_effort": "reasoning_effort",
                "random_seed": "seed",
                "parallel_tool_calls": "parallel_tool_calls",
            },
            prefill=True,
        ),
    ),
    ProviderKind("mock", f"{_ADAPTERS}.mock.adapter:MockProvider", "mock", "lm", "mock"),
    # A command line gets the LM-mode question as {PROMPT}, files as {FILES}; it is run
    # again with the conversation so far for each live turn.
    ProviderKind(
        "cli",
        f"{_ADAPTERS}.cli.adapter:CliProvider",
        "agent",
        "lm",
        "cli",
        live_turns=True,
        cluster=True,
    ),
    ProviderKind(
        "codex", f"{_ADAPTERS}.codex.adapter:CodexProvider", "agent", "agent", "codex", cluster=True
    ),
    # Claude Code and Gemini CLI run on this machine under --executor ray too: their state
    # (HOME, settings) is not yet sent to a node (docs/agents.md#claude_code-claude-code).
    ProviderKind(
        "claude_code",
        f"{_ADAPTERS}.claude_code.adapter:ClaudeCodeProvider",
        "agent",
        "agent",
        "claude_code",
    ),
    ProviderKind(
        "gemini_cli",
        f"{_ADAPTERS}.gemini_cli.adapter:GeminiCliProvider",
        "agent",
        "agent",
        "gemini_cli",
    ),
    ProviderKind(
        "vscode", f"{_ADAPTERS}.vscode.adapter:VSCodeProvider", "agent", "agent", "vscode"
    ),
    ProviderKind(
        "vscode-insiders", f"{_ADAPTERS}.vscode.adapter:VSCodeProvider", "agent", "agent", "vscode"
    ),
)
PROVIDER_KINDS: dict[str, ProviderKind] = {kind.name: kind for kind in _TABLE}
"""Every provider kind by name, in the order error messages list them."""


def provider_kind(name: str) -> ProviderKind:
    """The kind called ``name``; UnknownKind naming the known ones when there is none."""
    try:
        return PROVIDER_KINDS[name]
    except KeyError:
        known = ", ".join(PROVIDER_KINDS)
        raise UnknownKind(f"unknown provider kind {name!r} (known: {known})") from None


def kinds_of(family: Family) -> tuple[str, ...]:
    """The names of the kinds of one family, in table order."""
    return tuple(kind.name for kind in _TABLE if kind.family == family)


def wire_apis(family: Family) -> tuple[str, ...]:
    """The ``api`` values of the requests recorded for one family's kinds (each API of a
    kind), each once."""
    apis = (each for kind in _TABLE if kind.family == family for each in kind.every_api())
    return tuple(dict.fromkeys(each.wire for each in apis))


def chat_apis() -> tuple[ChatApi, ...]:
    """Every chat API's facts, each API of each kind, in table order."""
    kinds = (each for kind in _TABLE for each in kind.every_api())
    return tuple(kind.chat for kind in kinds if kind.chat is not None)


def live_turns_refusal(name: str) -> str | None:
    """Why targets of kind ``name`` cannot hold a live conversation (``turns:``), or
    ``None`` when they can: chat APIs and ``cli`` do (docs/conversations.md#targets)."""
    kind = provider_kind(name)
    if kind.live_turns:
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
    if provider_kind(name).family == "chat":
        return None
    return f"a {name} target cannot play a simulated user: use a chat target ({chat_kinds()})"


def tools_refusal(name: str) -> str | None:
    """Why targets of kind ``name`` cannot be offered a case's tools, or ``None`` when they
    can: chat APIs are sent them, the mock records them (docs/tools.md#declaring-tools)."""
    if provider_kind(name).family in ("chat", "mock"):
        return None
    return (
        f"a {name} agent works with its own tools: the tools a case declares (tools:) reach "
        f"chat targets only ({chat_kinds()})"
    )


def foreign_fields(kind: ProviderKind) -> dict[str, tuple[tuple[str, ...], str]]:
    """The body fields of other chat APIs that ``kind``'s API (as its targets' ``api``
    speaks it) does not have, each with the APIs that have it and the settings key that
    maps to it."""
    own = kind.chat_api.own_fields
    found: dict[str, tuple[tuple[str, ...], str]] = {}
    for api in chat_apis():
        for key, setting in api.own_fields.items():
            if key not in own:
                names = found.get(key, ((), setting))[0]
                found[key] = (tuple(dict.fromkeys((*names, api.name))), setting)
    return found


def prefill_vendors() -> tuple[str, ...]:
    """The vendors whose APIs continue a conversation's last assistant turn, in table order."""
    apis = (kind.chat for kind in _TABLE if kind.chat is not None)
    return tuple(dict.fromkeys(api.vendor for api in apis if api.prefill))


def chat_kinds() -> str:
    """The chat kinds as messages list them: ``openai, azure, ...``."""
    return ", ".join(kinds_of("chat"))
