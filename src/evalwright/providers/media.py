"""Media in a chat API's body (docs/delivery.md#media): converters write placeholders where
the bytes go, so rows, the cache and ``prompt --json`` stay small; the body sent has the
bytes, put in just before it is posted."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from typing import Any

from evalwright.errors import ProviderError
from evalwright.evalfile.resolved import MediaSegment
from evalwright.files.media import Media
from evalwright.prompts import ChatMessage
from evalwright.prompts.chat import ChatPart, DeliveryNote
from evalwright.targets.kind_facts import ChatApi


def media_of(messages: Sequence[ChatMessage]) -> list[Media]:
    """Every media file the messages carry, in order."""
    return [
        part.media
        for message in messages
        for part in message.parts
        if isinstance(part, MediaSegment) and part.media is not None
    ]


def with_bytes(body: dict[str, Any], messages: Sequence[ChatMessage]) -> dict[str, Any]:
    """``body`` with each media placeholder replaced by the bytes in base64; ``body`` itself
    when the messages carry no media."""
    media = media_of(messages)
    if not media:
        return body
    real: dict[str, str] = {}
    for item in media:
        real[item.placeholder()] = item.base64()
        real[item.placeholder_url()] = item.data_url()
    return _replace(body, real)


def _replace(value: Any, real: dict[str, str]) -> Any:
    if isinstance(value, str):
        return real.get(value, value)
    if isinstance(value, dict):
        return {key: _replace(item, real) for key, item in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_replace(item, real) for item in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def unsupported(api: str, part: MediaSegment, why: str) -> ProviderError:
    """The error of a media part ``api`` cannot take: the case's row says so, and nothing is
    sent in its place (docs/delivery.md#media)."""
    what = part.url if part.media is None else part.display
    return ProviderError(f"{api} cannot take the {part.kind} part {what!r}: {why}", retryable=False)


def check_limits(
    api: ChatApi, messages: Sequence[ChatMessage], accepts: Collection[str] | None = None
) -> None:
    """Raise the case's error when a media file, or all of them together, is larger than
    ``api`` takes, or is of a kind it (or the model, ``accepts``) cannot take
    (docs/delivery.md#media-limits): nothing is sent that the API would refuse."""
    parts = [p for m in messages for p in m.parts if isinstance(p, MediaSegment)]
    problem = limits_problem(api, parts, accepts)
    if problem is not None:
        raise ProviderError(problem, retryable=False)


def refusal(api: ChatApi, part: MediaSegment, accepts: Collection[str] | None) -> str | None:
    """Why ``api``, or a model taking only the media kinds ``accepts``, cannot take
    ``part`` at all; ``None`` when it can."""
    if accepts is not None and part.kind not in accepts:
        return f"the target's accepts_media ({', '.join(accepts) or 'none'}) leaves it out"
    if api.media is None:
        return None
    return api.media.refused.get("image_url" if part.media is None else part.kind)


def omitted(
    api: ChatApi, messages: Sequence[ChatMessage], accepts: Collection[str] | None
) -> tuple[tuple[ChatMessage, ...], list[DeliveryNote]]:
    """``messages`` with each media part ``api`` (or the model) cannot take sent as its
    marker text instead, and a ``media_omitted`` note for each: the target's
    ``unsupported_media: omit`` (docs/delivery.md#media-a-target-cannot-take)."""
    out: list[ChatMessage] = []
    notes: list[DeliveryNote] = []
    for message in messages:
        parts: list[ChatPart] = []
        before = len(notes)
        for part in message.parts:
            why = refusal(api, part, accepts) if isinstance(part, MediaSegment) else None
            if why is None or not isinstance(part, MediaSegment):
                parts.append(part)
                continue
            detail = f"the {part.kind} part {_shown(part)!r} was sent as its marker text: {why}"
            notes.append(DeliveryNote(rule="media_omitted", detail=f"{api.name}: {detail}"))
            parts.append(part.marker())
        out.append(message if len(notes) == before else _with_parts(message, parts))
    return tuple(out), notes


def _with_parts(message: ChatMessage, parts: list[ChatPart]) -> ChatMessage:
    # Text-only now: ``content`` already reads as the parts do, markers in place.
    if not any(isinstance(p, MediaSegment) for p in parts):
        return replace(message, parts=())
    joined: list[ChatPart] = []
    for part in parts:
        if isinstance(part, str) and joined and isinstance(joined[-1], str):
            joined[-1] = f"{joined[-1]}\n{part}"
        else:
            joined.append(part)
    return replace(message, parts=tuple(joined))


def _shown(part: MediaSegment) -> str:
    return (part.url or "") if part.media is None else part.display


def limits_problem(
    api: ChatApi, parts: Iterable[MediaSegment], accepts: Collection[str] | None = None
) -> str | None:
    """Why ``parts`` are more than ``api`` takes (media it, or the model, cannot take at
    all, or larger than its kind's documented limits), or ``None``; ``validate`` reports it
    too, where a case's target is known."""
    parts = list(parts)
    for part in parts:
        why = refusal(api, part, accepts)
        if why is not None:
            return f"{api.name} cannot take the {part.kind} part {_shown(part)!r}: {why}"
    limits = api.media
    if limits is None:
        return None
    total = 0
    for part in parts:
        if part.media is None:
            continue
        size, most = part.media.size, limits.per_file.get(part.kind)
        total += size
        if most is not None and size > most:
            return (
                f"{api.name} takes {part.kind} files of at most {most} bytes, but "
                f"{part.display!r} is {size} bytes ({limits.source})"
            )
    if limits.per_request is not None and total > limits.per_request:
        return (
            f"{api.name} takes at most {limits.per_request} bytes of media in one request, "
            f"but the case's media are {total} bytes ({limits.source})"
        )
    return None
