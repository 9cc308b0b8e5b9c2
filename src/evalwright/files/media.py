"""Media attachments: what a file's bytes are, sniffed from their magic numbers, never from
the file's name (docs/eval-files.md#media-parts)."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Literal

MediaKind = Literal["image", "pdf", "audio"]
MEDIA_KINDS: tuple[MediaKind, ...] = ("image", "pdf", "audio")
MAX_MEDIA_BYTES = 64 * 1024 * 1024
"""The largest media file read at all; each API's own, smaller limits are its kind's facts
(docs/delivery.md#media-limits)."""

# Each media type the kinds accept, by kind.
ACCEPTED: dict[MediaKind, tuple[str, ...]] = {
    "image": ("image/png", "image/jpeg", "image/gif", "image/webp"),
    "pdf": ("application/pdf",),
    "audio": ("audio/wav", "audio/mpeg"),
}
_NAMES = {
    "image/png": "a PNG image",
    "image/jpeg": "a JPEG image",
    "image/gif": "a GIF image",
    "image/webp": "a WebP image",
    "application/pdf": "a PDF document",
    "audio/wav": "a WAV audio clip",
    "audio/mpeg": "an MP3 audio clip",
}


def sniff(data: bytes) -> str | None:
    """The media type of ``data`` from its magic numbers, or ``None`` for an unknown format."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    # An MP3 starts with an ID3 tag or an MPEG audio frame's 11 sync bits.
    if data.startswith(b"ID3") or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    return None


def describe(media_type: str | None) -> str:
    """``a PNG image`` for ``image/png``; ``an unknown format`` for ``None``."""
    return _NAMES.get(media_type or "", "an unknown format")


def expected(kind: MediaKind) -> str:
    """The formats a kind accepts, for an error: ``PNG, JPEG, GIF or WebP``."""
    names = [_NAMES[t].split(" ", 2)[1] for t in ACCEPTED[kind]]
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


def check_kind(kind: MediaKind, data: bytes) -> str:
    """The sniffed media type of ``data``; ``ValueError`` saying what was found and what
    was expected when it is not one ``kind`` accepts."""
    found = sniff(data)
    if found not in ACCEPTED[kind]:
        raise ValueError(
            f"type: {kind} expects {expected(kind)}, but the file is {describe(found)}"
        )
    return found


@dataclass(frozen=True, slots=True)
class Media:
    """A media file's bytes with what rows record of it: type, size and SHA-256."""

    media_type: str
    data: bytes = field(repr=False)
    size: int = field(init=False)
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", len(self.data))
        object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())

    def base64(self) -> str:
        """The bytes in base64, as the APIs take them inline."""
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        """``data:MIME;base64,...``."""
        return f"data:{self.media_type};base64,{self.base64()}"

    def placeholder_url(self) -> str:
        """The data URL as rows hold it: ``data:MIME;base64,<sha256:HEX, N bytes>``."""
        return f"data:{self.media_type};base64,{self.placeholder()}"

    def placeholder(self) -> str:
        """What rows hold instead of the base64 bytes: ``<sha256:HEX, N bytes>``
        (docs/delivery.md#media)."""
        return f"<sha256:{self.sha256}, {self.size} bytes>"
