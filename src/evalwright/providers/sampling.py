"""Which sampling settings a request carries, and which of them an API cannot take
(docs/targets.md#settings, docs/delivery.md#delivery-notes).

The converters map each setting to their API's own field; a setting the API has no field for
is never dropped silently: it is a ``setting_unsupported`` note here, and a ``validate``
warning from the same table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from evalwright.jsontext import JsonObject
from evalwright.prompts import DeliveryNote
from evalwright.targets.kind_facts import ProviderKind
from evalwright.targets.kinds import foreign_fields, provider_kind
from evalwright.targets.models import ChatTarget
from evalwright.targets.sampling import ResponseFormat, SamplingSettings, merge_json
from evalwright.targets.tools import ToolChoice, ToolSpec

if TYPE_CHECKING:
    from evalwright.providers.base import ProviderRequest


def unsupported_settings(
    kind: str | ProviderKind, settings: SamplingSettings | None
) -> list[tuple[str, str]]:
    """The set settings that ``kind`` (a name, or a target's kind as its ``api`` speaks it)
    cannot send, each with the reason (every one for an agent or the mock: they take no
    sampling settings); UnknownKind for no kind."""
    if settings is None:
        return []
    if isinstance(kind, str):
        kind = provider_kind(kind)
    api = kind.chat
    given = [key for key in settings.given() if key != "extra_body" or api is None]
    if api is None:
        reason = f"a {kind.name} target takes no sampling settings"
        return [(key, reason) for key in given]
    found: list[tuple[str, str]] = []
    for key in given:
        if key in api.unsupported:
            hint = f"; {api.unsupported[key]}" if api.unsupported[key] else ""
            found.append((key, f"{api.name} has no such field{hint}"))
    return found


def foreign_extra_body(
    kind: str | ProviderKind, settings: SamplingSettings | None
) -> list[tuple[str, str]]:
    """The ``extra_body`` keys that are another chat API's fields, not ``kind``'s (a name, or
    a target's kind as its ``api`` speaks it), each with why that is likely a mistake: they
    are sent as written (docs/targets.md#settings)."""
    if isinstance(kind, str):
        kind = provider_kind(kind)
    if settings is None or not settings.extra_body or kind.chat is None:
        return []
    api = kind.chat
    others = foreign_fields(kind)
    found: list[tuple[str, str]] = []
    for key in settings.extra_body:
        if key in others:
            vendors, setting = others[key]
            owners = f"{', '.join(vendors[:-1])} and {vendors[-1]}" if vendors[1:] else vendors[0]
            why = (
                f"a field of {owners}, not of {api.name}: it is sent as written and the API "
                f"may refuse it; use settings {setting}"
            )
            found.append((key, why))
    return found


def unsupported_notes(
    kind: str | ProviderKind, settings: SamplingSettings | None
) -> list[DeliveryNote]:
    """One ``setting_unsupported`` note per setting ``kind`` cannot send."""
    return [
        DeliveryNote(rule="setting_unsupported", detail=f"settings.{key}: {why}; not sent")
        for key, why in unsupported_settings(kind, settings)
    ]


def target_settings(target: ChatTarget) -> SamplingSettings:
    """A target's own settings: ``settings:`` over its top-level ``temperature`` and
    ``max_output_tokens``."""
    legacy = SamplingSettings.model_construct(
        temperature=target.__dict__.get("temperature"),
        max_output_tokens=target.max_output_tokens,
    )
    return target.settings.over(legacy) if target.settings else legacy


_CACHED: dict[tuple[int, int | None, float | None], tuple[ChatTarget, SamplingSettings]] = {}
"""effective_settings of requests without settings of their own, per target (by identity:
the target is held here, so its id stays its own) and the request's own defaults."""


def effective_settings(target: ChatTarget, request: ProviderRequest) -> SamplingSettings:
    """What ``request`` is sent with: the case's settings over the target's, then the
    request's own defaults (a judge's) where neither sets the key."""
    if request.settings is not None:
        return _effective(target, request)
    # Most requests carry no settings of their own: targets are frozen, so every such
    # request to a target has the same settings, worked out once.
    key = (id(target), request.max_output_tokens, request.temperature)
    hit = _CACHED.get(key)
    if hit is not None and hit[0] is target:
        return hit[1]
    if len(_CACHED) >= 256:  # a long-lived process that makes many targets
        _CACHED.clear()
    settings = _effective(target, request)
    _CACHED[key] = (target, settings)
    return settings


def _effective(target: ChatTarget, request: ProviderRequest) -> SamplingSettings:
    base = target_settings(target)
    # No settings of the case's own: the target's as they are (``over`` would copy them).
    settings = base if request.settings is None else request.settings.over(base)
    update: dict[str, object] = {}
    if request.max_output_tokens is not None and settings.max_output_tokens is None:
        update["max_output_tokens"] = request.max_output_tokens
    takes = target.takes_default_temperature
    if request.temperature is not None and settings.temperature is None and takes:
        update["temperature"] = request.temperature
    return settings.model_copy(update=update) if update else settings


def with_extra_body(body: JsonObject, settings: SamplingSettings) -> JsonObject:
    """``body`` with ``extra_body`` merged in last (mappings key by key)."""
    if not settings.extra_body:
        return body
    return merge_json(body, settings.extra_body)


def stop_list(settings: SamplingSettings) -> list[str] | None:
    """``stop`` as a list (APIs that take only lists)."""
    stop = settings.stop
    return [stop] if isinstance(stop, str) else stop


def offered_choice(
    settings: SamplingSettings, tools: Sequence[ToolSpec]
) -> tuple[ToolChoice | None, list[DeliveryNote]]:
    """``tool_choice`` where the request offers tools; without tools it chooses among
    nothing, so it is not sent, with a ``setting_unsupported`` note (docs/tools.md)."""
    choice = settings.tool_choice
    if choice is None or tools:
        return choice, []
    detail = "settings.tool_choice: the request offers no tools; not sent"
    return None, [DeliveryNote(rule="setting_unsupported", detail=detail)]


def offered_parallel(
    settings: SamplingSettings, tools: Sequence[ToolSpec]
) -> tuple[bool | None, list[DeliveryNote]]:
    """``parallel_tool_calls`` where the request offers tools; without tools there is
    nothing to call, so it is not sent, with a ``setting_unsupported`` note."""
    parallel = settings.parallel_tool_calls
    if parallel is None or tools:
        return parallel, []
    detail = "settings.parallel_tool_calls: the request offers no tools; not sent"
    return None, [DeliveryNote(rule="setting_unsupported", detail=detail)]


def offered_tool_settings(
    settings: SamplingSettings, tools: Sequence[ToolSpec]
) -> tuple[ToolChoice | None, bool | None, list[DeliveryNote]]:
    """``tool_choice`` and ``parallel_tool_calls`` where the request offers tools, with the
    notes of those not sent (:func:`offered_choice`, :func:`offered_parallel`)."""
    choice, choice_notes = offered_choice(settings, tools)
    parallel, parallel_notes = offered_parallel(settings, tools)
    return choice, parallel, choice_notes + parallel_notes


def tool_declaration(tool: ToolSpec, schema_key: str, *, strict: bool = True) -> JsonObject:
    """A declared tool in the fields every chat API shares: ``name``, ``description`` where
    written, its parameters schema under ``schema_key``, and ``strict`` where written and the
    API has it (docs/tools.md#what-each-api-is-sent)."""
    out: JsonObject = {"name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    out[schema_key] = tool.parameters
    if strict and tool.strict is not None:
        out["strict"] = tool.strict
    return out


def tool_field_note(api: str, index: int, tool: ToolSpec, field: str) -> DeliveryNote:
    """The note for a field of declared tool ``index`` that ``api`` has no field for."""
    return DeliveryNote(
        rule="setting_unsupported",
        detail=f"tools[{index}].{field} ({tool.name}): {api} has no such field; not sent",
    )


VERDICT_SCHEMA_NAME = "verdict"
"""The name a judge's (or a simulated user's) schema is sent under."""


@dataclass(frozen=True, slots=True)
class OutputFormat:
    """The JSON a request asks its answer in (docs/targets.md#structured-output-of-answers)."""

    mode: Literal["json_schema", "json_object"]
    schema: JsonObject | None
    """The schema; ``None`` for plain JSON mode."""
    name: str
    strict: bool | None
    written: ResponseFormat | None
    """The setting it comes from; ``None`` for a judge's schema (no notes for those)."""


def output_format(
    target: ChatTarget, response_schema: JsonObject | None, settings: SamplingSettings
) -> OutputFormat | None:
    """A judge's (or simulated user's) ``response_schema`` in the target's
    ``structured_output`` mode where the request carries one: the settings'
    ``response_format`` is for the target's answers, never its verdicts. Else that setting."""
    if response_schema is not None:
        mode = target.structured_output
        if mode == "none":
            return None
        return OutputFormat(mode, response_schema, VERDICT_SCHEMA_NAME, True, None)
    written = settings.response_format
    if written is None:
        return None
    if written.json_schema is None:
        return OutputFormat("json_object", None, written.name, None, written)
    return OutputFormat("json_schema", written.json_schema, written.name, written.strict, written)


def format_field_notes(api: str, fmt: OutputFormat, fields: Sequence[str]) -> list[DeliveryNote]:
    """A ``setting_unsupported`` note per written ``response_format`` key ``api`` has no field
    for (``name``, ``strict``)."""
    if fmt.written is None:
        return []
    return [
        DeliveryNote(
            rule="setting_unsupported",
            detail=f"settings.response_format.{key}: {api} has no such field; not sent",
        )
        for key in fields
        if key in fmt.written.model_fields_set
    ]
