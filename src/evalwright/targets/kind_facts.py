"""What a provider kind declares (docs/targets.md): the shape of a row of the table in
:mod:`evalwright.targets.kinds`, a chat API's facts, and a kind's second wire API. Importing it
imports nothing of the project."""

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
class MediaLimits:
    """The largest media a chat API takes inline, in bytes of the file (before base64), as
    its vendor documents them (docs/delivery.md#media-limits)."""

    per_file: Mapping[str, int]
    """The largest file of each media kind (``image``, ``pdf``, ``audio``) it takes."""
    per_request: int | None
    """The most media bytes one request may carry, all files together."""
    source: str
    """Where the vendor documents them, named in the error."""
    refused: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """The media it cannot take at all (a kind, or ``image_url`` for an image given by URL),
    each with why: refused before sending, and by ``validate`` (docs/delivery.md#media)."""


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
    media: MediaLimits | None = None
    """Its documented media limits, checked before anything is sent; ``None``: unknown
    (docs/delivery.md#media-limits)."""
    """Whether it continues a conversation's last assistant turn (a prefill) rather than
    answering after it (docs/delivery.md#delivery-notes)."""

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
    own_fields: Mapping[str, str]
    """Its top-level body fields that settings map to, each with the settings key."""
    media: MediaLimits | None = None
    """Its media limits, where they differ from the kind's default API's."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "unsupported", MappingProxyType(dict(self.unsupported)))
        object.__setattr__(self, "own_fields", MappingProxyType(dict(self.own_fields)))


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
            self.chat,
            name=variant.name,
            unsupported=variant.unsupported,
            cut_off=variant.cut_off,
            own_fields=variant.own_fields,
            media=variant.media if variant.media is not None else self.chat.media,
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
