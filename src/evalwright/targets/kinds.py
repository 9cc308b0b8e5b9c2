"""The one table of provider kinds: each kind's row declares the facts about it that are
neither its adapter's nor its target model's (docs/targets.md,
docs/delivery.md#lm-mode-and-agent-mode).

Everything else is derived from the rows: the kinds a targets file accepts, the API key
variables, the price database's provider ids, the API names of notes and warnings, the
settings an API cannot take, the ``api`` values of recorded requests. A name that is no
kind raises :class:`UnknownKind`; a chat kind without its API's facts cannot be written.
Importing this module imports nothing of the project: validation, pricing and the results
schema read it before (or without) importing any adapter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

Mode = Literal["lm", "agent"]
"""How a kind's targets are prompted: ``lm`` for chat APIs, ``agent`` for agents that read
files themselves (docs/delivery.md#lm-mode-and-agent-mode)."""
Family = Literal["chat", "agent", "mock"]


class UnknownKind(KeyError):
    """A provider kind that is not in the table (or a fact it does not have)."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class ChatApi:
    """What a chat API kind declares besides its adapter (docs/targets.md#chat-api-targets)."""

    vendor: str
    """Who serves it, as messages name them (``Anthropic``)."""
    name: str
    """The API as delivery notes and ``validate`` warnings name it."""
    key_variables: tuple[str, ...]
    """The environment variables its API key is read from, the first one set winning."""
    price_provider: str
    """Its provider id in the ``genai-prices`` database (docs/running.md#cost)."""
    official_host: str | None
    """The vendor's own API host: a ``base_url`` elsewhere is not priced unless ``price:``
    says so. ``None``: the target model decides (``on_vendor_api``, Azure's)."""
    unsupported: Mapping[str, str]
    """The sampling settings its API has no field for, each with a hint (or ``""``)."""
    cut_off: frozenset[str]
    """Its finish values for an answer stopped at the output limit."""
    own_fields: Mapping[str, str] = field(default_factory=dict[str, str])
    """Top-level body fields of its API that a settings key maps to, each with that key: in
    another API's ``extra_body`` they are a ``validate`` warning (docs/targets.md#settings)."""
    cache_apart: bool = False
    """Whether it reports prompt-cache reads and writes besides its input tokens rather than
    inside them (Anthropic's): they are billed on top."""
    prefill: bool = False
    """Whether it continues a conversation's last assistant turn (a prefill) rather than
    answering after it (docs/delivery.md#the-eleven-delivery-notes)."""

    def __post_init__(self) -> None:
        # Rows share their tables of unsupported settings: none may change them.
        object.__setattr__(self, "unsupported", MappingProxyType(dict(self.unsupported)))
        object.__setattr__(self, "own_fields", MappingProxyType(dict(self.own_fields)))


@dataclass(frozen=True, slots=True)
class ApiVariant:
    """A chat kind's second wire API, chosen by its targets' ``api`` key (OpenAI's and
    Azure's ``api: responses``, docs/targets.md#the-responses-api): only what differs from
    the kind's default API; the vendor, key, prices and host stay the kind's."""

    adapter: str
    """``module:Class`` of its adapter."""
    wire: str
    """The ``api`` of the requests recorded in it."""
    name: str
    """The API as delivery notes and ``validate`` warnings name it."""
    unsupported: Mapping[str, str]
    """The sampling settings it has no field for, each with a hint (or ``""``)."""
    cut_off: frozenset[str]
    """Its finish values for an answer stopped at the output limit."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "unsupported", MappingProxyType(dict(self.unsupported)))


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
    wire: str
    """The ``api`` of the requests its targets are recorded with (docs/delivery.md)."""
    chat: ChatApi | None = None
    """A chat API's facts: every chat kind has them, no other kind does."""
    live_turns: bool = False
    """Whether its targets hold a live conversation (``turns:``); every chat API does."""
    cluster: bool = False
    """Whether its commands may run on a cluster node (``--executor ray``, docs/scale.md)."""
    variants: Mapping[str, ApiVariant] = field(default_factory=lambda: MappingProxyType({}))
    """Its other wire APIs by the targets' ``api`` value; the row itself is the default."""
    _spoken: Mapping[str, ProviderKind] = field(
        init=False, repr=False, compare=False, default_factory=lambda: MappingProxyType({})
    )

    def __post_init__(self) -> None:
        if (self.family == "chat") != (self.chat is not None):
            raise TypeError(f"provider kind {self.name!r}: chat facts go with the chat family")
        if self.variants and self.chat is None:
            raise TypeError(f"provider kind {self.name!r}: only a chat API has variants")
        object.__setattr__(self, "variants", MappingProxyType(dict(self.variants)))
        # Built once: a target's kind is asked for on every request.
        spoken = {api: self._as(variant) for api, variant in self.variants.items()}
        object.__setattr__(self, "_spoken", MappingProxyType(spoken))

    def speaking(self, api: str | None) -> ProviderKind:
        """The kind as its targets of ``api`` see it: the variant's adapter, wire name, API
        name, unsupported settings and cut-off values over the row's (the row itself for
        ``None`` or an ``api`` it has no variant of)."""
        return self._spoken.get(api, self) if api is not None else self

    def _as(self, variant: ApiVariant) -> ProviderKind:
        assert self.chat is not None  # checked above: only chat rows have variants
        chat = replace(
            self.chat, name=variant.name, unsupported=variant.unsupported, cut_off=variant.cut_off
        )
        return replace(self, adapter=variant.adapter, wire=variant.wire, chat=chat, variants={})

    def every_api(self) -> tuple[ProviderKind, ...]:
        """The kind as each of its APIs: the row, then each variant."""
        return (self, *(self.speaking(api) for api in self.variants))

    @property
    def chat_api(self) -> ChatApi:
        """The chat API's facts; UnknownKind for a kind that is no chat API."""
        if self.chat is None:
            raise UnknownKind(f"provider kind {self.name!r} is not a chat API")
        return self.chat


_ADAPTERS = "evalwright.providers"
_OPENAI_CUT_OFF = frozenset({"length"})
_NO_THINKING_BUDGET = {"thinking_budget_tokens": "use reasoning_effort"}
_CHAT_COMPLETIONS_FIELDS = {
    "response_format": "response_format",
    "reasoning_effort": "reasoning_effort",
    "max_completion_tokens": "max_output_tokens",
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
            unsupported=_NO_THINKING_BUDGET,
            cut_off=_OPENAI_CUT_OFF,
            own_fields=_CHAT_COMPLETIONS_FIELDS,
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
            unsupported=_NO_THINKING_BUDGET,
            cut_off=_OPENAI_CUT_OFF,
            own_fields=_CHAT_COMPLETIONS_FIELDS,
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
            },
            cut_off=frozenset({"max_tokens"}),
            own_fields={
                "thinking": "thinking_budget_tokens",
                "output_config": "response_format",
                "stop_sequences": "stop",
            },
            cache_apart=True,
            prefill=True,
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
            unsupported={},
            cut_off=frozenset({"MAX_TOKENS"}),
            own_fields={"generationConfig": "temperature, max_output_tokens, response_format"},
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
            unsupported=_NO_THINKING_BUDGET,
            # model_length: the model's context was full before the limit was reached.
            cut_off=frozenset({"length", "model_length"}),
            own_fields={
                "response_format": "response_format",
                "reasoning_effort": "reasoning_effort",
                "random_seed": "seed",
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


def foreign_fields(name: str) -> dict[str, tuple[tuple[str, ...], str]]:
    """The body fields of other chat APIs that kind ``name``'s API does not have, each with
    the vendors whose APIs have it and the settings key that maps to it."""
    own = provider_kind(name).chat_api.own_fields
    found: dict[str, tuple[tuple[str, ...], str]] = {}
    for kind in _TABLE:
        api = kind.chat
        if api is None:
            continue
        for key, setting in api.own_fields.items():
            if key not in own:
                vendors = found.get(key, ((), setting))[0]
                found[key] = (tuple(dict.fromkeys((*vendors, api.vendor))), setting)
    return found


def prefill_vendors() -> tuple[str, ...]:
    """The vendors whose APIs continue a conversation's last assistant turn, in table order."""
    apis = (kind.chat for kind in _TABLE if kind.chat is not None)
    return tuple(dict.fromkeys(api.vendor for api in apis if api.prefill))


def chat_kinds() -> str:
    """The chat kinds as messages list them: ``openai, azure, ...``."""
    return ", ".join(kinds_of("chat"))
