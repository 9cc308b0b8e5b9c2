"""Sniffing a media file's format from its magic numbers (files/media.py)."""

from __future__ import annotations

import pytest

from evalwright.files.media import Media, check_kind, sniff
from tests.conftest import DATA


@pytest.mark.parametrize(
    ("head", "media_type"),
    [
        ((DATA / "media/pixel.png").read_bytes(), "image/png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "image/jpeg"),
        (b"GIF89a\x01\x00\x01\x00", "image/gif"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "image/webp"),
        ((DATA / "media/hello.pdf").read_bytes(), "application/pdf"),
        ((DATA / "media/silence.wav").read_bytes(), "audio/wav"),
        (b"ID3\x04\x00\x00\x00\x00\x00\x00", "audio/mpeg"),
        (b"\xff\xfb\x90\x64\x00", "audio/mpeg"),
        (b"hello, world", None),
        (b"", None),
    ],
)
def test_the_format_comes_from_the_bytes(head: bytes, media_type: str | None) -> None:
    assert sniff(head) == media_type


def test_a_name_never_decides_and_a_wrong_kind_says_what_was_found() -> None:
    pdf = (DATA / "media/hello.pdf").read_bytes()
    with pytest.raises(ValueError, match="expects PNG, JPEG, GIF or WebP, but the file is a PDF"):
        check_kind("image", pdf)
    assert check_kind("pdf", pdf) == "application/pdf"


def test_the_placeholder_names_the_hash_and_size_never_the_bytes() -> None:
    media = Media("image/png", b"\x89PNG\r\n\x1a\nxyz")
    assert media.placeholder() == f"<sha256:{media.sha256}, 11 bytes>"
    assert media.placeholder_url() == f"data:image/png;base64,<sha256:{media.sha256}, 11 bytes>"
    assert media.data_url().startswith("data:image/png;base64,iVBORw0KGgp4eXo")
