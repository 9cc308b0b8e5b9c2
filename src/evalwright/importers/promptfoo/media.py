"""promptfoo's media as evalwright media parts (docs/importing.md#media): a chat message's
image, PDF and audio parts in each API's form, and ``file://`` media variables, which
promptfoo turns into base64 text."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalwright.errors import ConfigError
from evalwright.files.media import ACCEPTED, MediaKind, describe, sniff
from evalwright.files.project import display_path
from evalwright.importers.promptfoo.notes import Uncarried
from evalwright.importers.promptfoo.sources import mapping

MEDIA_DIR = "media"
"""Where the media an import carries are written, beside the eval file."""


@dataclass(frozen=True, slots=True)
class Inline:
    """Media bytes a prompt carries inline: written to ``evals/media/`` with the eval file."""

    kind: MediaKind
    data: bytes


class MediaText(str):
    """A ``file://`` image, audio or video variable: its base64, which is what promptfoo puts
    in the template, and the reference the case's metadata shows instead of it."""

    reference: str

    def __new__(cls, text: str, reference: str) -> MediaText:
        made = super().__new__(cls, text)
        made.reference = reference
        return made


Part = dict[str, str] | Inline


def part(given: dict[str, Any]) -> Part:
    """The evalwright part for one promptfoo message part: text, or an image, PDF or audio
    part in OpenAI's, the Responses API's, Anthropic's, Gemini's, Bedrock Converse's or
    Adaline's form; :class:`Uncarried` for any other."""
    kind = given.get("type")
    if "modality" in given:
        return _adaline(given)
    if kind in ("text", "input_text") or (kind is None and "text" in given):
        return {"type": "text", "value": str(given.get("text", ""))}
    if kind == "image_url":
        found = given.get("image_url")
        return _url((mapping(found) or {}).get("url") if not isinstance(found, str) else found)
    if kind == "input_image":
        return _url(given.get("image_url"))
    if kind in ("image", "document") and "source" in given:
        return _source(given, "image" if kind == "image" else "pdf")
    if kind == "input_audio":
        audio = mapping(given.get("input_audio")) or {}
        return inline("audio", audio.get("data"), _short(audio.get("format")))
    if kind is None and ("inline_data" in given or "inlineData" in given):
        data = mapping(given.get("inline_data", given.get("inlineData"))) or {}
        mime = data.get("mime_type", data.get("mimeType"))
        return inline(_kind_of(mime), data.get("data"), mime)
    if kind is None and "image" in given:  # Bedrock Converse (Nova)
        image = mapping(given["image"]) or {}
        source = mapping(image.get("source")) or {}
        return inline("image", source.get("bytes"), _short(image.get("format")))
    raise Uncarried(f"message part {_brief(given)}: not a text or media form the import reads")


# The keys each form of part carries; any other is noted (``cache_control``).
_KEYS = {
    "modality": {"modality", "value", "detail"},
    "image_url": {"type", "image_url"},
    "input_image": {"type", "image_url", "detail"},
    "image": {"type", "source"},
    "document": {"type", "source"},
    "input_audio": {"type", "input_audio"},
}


def unread_keys(given: dict[str, Any]) -> list[str]:
    """The keys of a message part that are not carried: beyond its text or media, and a
    ``detail`` other than ``auto`` (evalwright sends each image at the API's default)."""
    form = "modality" if "modality" in given else str(given.get("type", ""))
    read = _KEYS.get(form, {"type", "text", "image", "inline_data", "inlineData"})
    unread = sorted(set(given) - read)
    found = mapping(given.get("image_url")) or {}
    detail = given.get("detail", found.get("detail", "auto"))
    unread += sorted(set(found) - {"url", "detail"})
    return unread + (["detail"] if detail != "auto" else [])


def _adaline(given: dict[str, Any]) -> Part:
    """Adaline Gateway's ``{modality, value}`` parts."""
    value = given.get("value")
    if given["modality"] == "text" and isinstance(value, str):
        return {"type": "text", "value": value}
    source = mapping(value) or {}
    if given["modality"] == "image" and source.get("type") == "url":
        return _url(source.get("url"))
    if given["modality"] == "image" and source.get("type") == "base64":
        return inline("image", source.get("base64"), _short(source.get("media_type")))
    raise Uncarried(f"message part {_brief(given)}: not an Adaline text or image part")


def _source(given: dict[str, Any], kind: MediaKind) -> Part:
    """Anthropic's ``{type: image | document, source: {type: base64 | url, ...}}``."""
    source = mapping(given["source"]) or {}
    if source.get("type") == "url" and kind == "image":
        return _url(source.get("url"))
    if source.get("type") == "base64":
        return inline(kind, source.get("data"), source.get("media_type"))
    raise Uncarried(f"message part {_brief(given)}: only base64 sources and image URLs")


def _url(url: Any) -> Part:
    """An image given by URL: a ``data:`` URL is its bytes; an http(s) URL is carried as one
    (the API fetches it); bare base64, which promptfoo sends as it is, is its bytes."""
    if not isinstance(url, str):
        raise Uncarried(f"image URL {url!r}: expected text")
    if url.startswith(("https://", "http://")):
        return {"type": "image", "url": url}
    found = re.fullmatch(r"data:([\w.+-]+/[\w.+-]+)?;base64,(.*)", url, re.DOTALL)
    if found is not None:
        return inline("image", found.group(2), found.group(1))
    if url.startswith("data:") or re.match(r"[A-Za-z][\w+.-]*:", url):
        raise Uncarried(f"image URL {url[:60]!r}: only http(s) and base64 data: URLs")
    return inline("image", url, None)


def inline(kind: MediaKind, data: Any, declared: Any) -> Inline:
    """Base64 ``data`` of ``kind`` as bytes, checked: a format evalwright takes for the kind,
    and the one the part declares (``declared``: a media type or a format name)."""
    if not isinstance(data, str):
        raise Uncarried(f"{kind} data {data!r}: expected base64 text")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise Uncarried(f"{kind} data {data[:40]!r}...: not base64") from None
    found = sniff(raw)
    if found not in ACCEPTED[kind]:
        raise Uncarried(f"the {kind} is {describe(found)}: evalwright takes {_takes(kind)}")
    if isinstance(declared, str) and _short(declared) not in (_short(found), ""):
        said = f"the {kind} is said to be {declared!r}"
        raise Uncarried(f"{said} but its bytes are {describe(found)}")
    return Inline(kind, raw)


def _takes(kind: MediaKind) -> str:
    return ", ".join(describe(t).split(" ", 2)[1] for t in ACCEPTED[kind])


def _short(name: Any) -> str:
    """A media type or a format name as a short format name: ``jpeg`` for ``image/jpg``."""
    text = str(name or "").lower().rpartition("/")[2]
    return {"jpg": "jpeg", "x-wav": "wav", "wave": "wav", "mp3": "mpeg"}.get(text, text)


def _kind_of(mime: Any) -> MediaKind:
    text = str(mime or "")
    for kind, types in ACCEPTED.items():
        if text in types or text.startswith(f"{kind}/"):
            return kind
    raise Uncarried(f"inline data of type {mime!r}: evalwright takes images, PDFs and audio")


def _brief(given: dict[str, Any]) -> str:
    shown = repr(given)
    return shown if len(shown) <= 120 else shown[:117] + "..."


_EXTENSIONS = {
    "image/jpeg": "jpg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
    "application/pdf": "pdf",
    "audio/wav": "wav",
    "audio/mpeg": "mp3",
}


def media_file(item: Inline) -> str:
    """The path, relative to the eval file, a carried media file is written at: named by
    its bytes, so each file is written once however many cases send it."""
    digest = hashlib.sha256(item.data).hexdigest()[:16]
    return f"{MEDIA_DIR}/{digest}.{_EXTENSIONS[sniff(item.data) or '']}"


def save_media(cases: list[dict[str, Any]], evals: Path) -> list[Path]:
    """Each :class:`Inline` part of ``cases`` written under ``evals/media/`` and replaced by
    its media part; the files written."""
    written: dict[str, Path] = {}
    for case in cases:
        messages = [*case.get("input_messages", []), *case.get("turns", [])]
        for message in messages:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for index, item in enumerate(content):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
                if isinstance(item, Inline):
                    relative = media_file(item)
                    if relative not in written:
                        written[relative] = _write(evals / relative, item.data)
                    content[index] = {"type": item.kind, "value": relative}
    return list(written.values())


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_bytes() == data:
        return path  # written by an earlier import into the same directory
    if path.exists() or path.is_symlink():
        raise ConfigError(f"{display_path(path)} already exists: the import overwrites nothing")
    with path.open("xb") as handle:
        handle.write(data)
    return path
