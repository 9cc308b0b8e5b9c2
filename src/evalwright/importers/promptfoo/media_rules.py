"""What the import's targets make of media (docs/importing.md#media): whether a text line
that is an image variable is sent as the image (promptfoo's Gemini provider does so), and the
media a target's API cannot take."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from evalwright.importers.promptfoo.media import Inline, MediaText, Part, inline
from evalwright.importers.promptfoo.notes import Uncarried
from evalwright.importers.promptfoo.sources import mapping, sequence
from evalwright.importers.promptfoo.targets import Target
from evalwright.targets.kind_facts import UnknownKind
from evalwright.targets.kinds import provider_kind

ImageLines = Literal["text", "image", "mixed"]
"""How a prompt's text lines that are a variable's base64 image reach the targets: as text
(no target is Gemini), as images (every target is: promptfoo's Gemini provider sends each
such line as an image), or differently per target (``mixed``: not carried)."""


@dataclass(frozen=True, slots=True)
class MediaRules:
    """What the targets make of media: how a text line that is an image variable is sent,
    and each media kind (``image_url`` for an image URL) a target's API refuses, with why."""

    lines: ImageLines = "text"
    refused: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


def media_rules(targets: list[Target]) -> MediaRules:
    """The rules of the import's targets (docs/importing.md#media)."""
    gemini = [t.entry.get("provider") == "gemini" for t in targets]
    lines: ImageLines = "image" if gemini and all(gemini) else "mixed" if any(gemini) else "text"
    refused: dict[str, str] = {}
    for target in targets:
        for kind, why in _refused(target.entry).items():
            refused.setdefault(kind, f"target {target.name!r} cannot take it: {why}")
    return MediaRules(lines, MappingProxyType(refused))


def _refused(entry: dict[str, Any]) -> Mapping[str, str]:
    try:
        kind = provider_kind(str(entry.get("provider")))
        api = kind.speaking(entry["api"]) if "api" in entry else kind
        limits = api.chat_api.media
    except UnknownKind:
        return {}
    return limits.refused if limits is not None else {}


def check_refused(messages: list[dict[str, Any]], rules: MediaRules) -> None:
    """:class:`Uncarried` when a target's API refuses one of the messages' media."""
    for message in messages:
        for item in sequence(message["content"]) or []:
            kind = item.kind if isinstance(item, Inline) else _url_kind(item)
            if kind is not None and kind in rules.refused:
                shown = "an image URL" if kind == "image_url" else f"the {kind} part"
                raise Uncarried(f"{shown}: {rules.refused[kind]}")


def _url_kind(item: Any) -> str | None:
    return "image_url" if "url" in (mapping(item) or {}) else None


# The base64 starts promptfoo's Gemini provider reads as an image, and their media types.
_IMAGE_STARTS = {
    "/9j/": "image/jpeg",
    "iVBORw0KGgo": "image/png",
    "R0lGODlh": "image/gif",
    "UklGR": "image/webp",
}


def image_lines(
    messages: list[dict[str, Any]], variables: dict[str, Any], lines: ImageLines
) -> list[dict[str, Any]]:
    """``messages`` with each text line that is (trimmed) a variable's base64 image made that
    image, the text around it kept, as promptfoo's Gemini provider sends them, when ``lines``
    is ``image``; ``messages`` when no line is one or ``lines`` is ``text``."""
    images = {v for v in variables.values() if isinstance(v, str) and _base64_image(v)}
    if not images or lines == "text":
        return messages
    out = [{**m, "content": _split(m["content"], images)} for m in messages]
    if out == messages:
        return messages
    if lines == "mixed":
        raise Uncarried(
            "an image variable is a line of the prompt's text: promptfoo's Gemini provider "
            "sends it as an image, the others as base64 text"
        )
    for before, after in zip(messages, out, strict=True):
        if before != after and after["role"] != "user":
            raise Uncarried(f"an image line in a {after['role']} message: media go in user turns")
    return out


def _base64_image(value: str) -> bool:
    return len(value) >= 100 and value.startswith(tuple(_IMAGE_STARTS))


def _split(content: Any, images: set[str]) -> Any:
    """A message's content with its text parts split at their image lines."""
    items: list[Any] = [content] if isinstance(content, str) else content
    parts: list[Any] = []
    for item in items:
        text = item if isinstance(item, str) else _text(item)
        split = _lines(text, images) if isinstance(text, str) else None
        parts += [item] if split is None else split
    return content if parts == items else parts


def _lines(text: str, images: set[str]) -> list[Part] | None:
    """promptfoo's split of one text at its image lines; ``None`` when it has none."""
    parts: list[Part] = []
    block, found = "", False
    for line in text.split("\n"):
        if line.strip() in images:
            found = True
            if block:
                parts.append({"type": "text", "value": block})
                block = ""
            start = next(s for s in _IMAGE_STARTS if line.strip().startswith(s))
            parts.append(inline("image", line.strip(), _IMAGE_STARTS[start]))
        else:
            block = f"{block}\n{line}" if block else line
    if block:
        parts.append({"type": "text", "value": block})
    return parts if found else None


def _text(item: Any) -> str | None:
    found = mapping(item)
    return found.get("value") if found is not None and found.get("type") == "text" else None


def sent_as_text(messages: list[dict[str, Any]], variables: dict[str, Any]) -> list[str]:
    """The ``file://`` media variables whose base64 the messages send as text."""
    texts: list[str] = []
    for message in messages:
        content = message["content"]
        items: list[Any] = [content] if isinstance(content, str) else content
        texts += [t for t in (i if isinstance(i, str) else _text(i) for i in items) if t]
    found = [v for v in variables.values() if isinstance(v, MediaText)]
    return [v.reference for v in found if any(v in text for text in texts)]
