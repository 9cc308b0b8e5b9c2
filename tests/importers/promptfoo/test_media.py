"""promptfoo's media (image, PDF and audio parts, ``file://`` media variables) as evalwright
media parts (docs/importing.md#media)."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from evalwright import import_promptfoo, preview, validate
from tests.importers.promptfoo.conftest import Importer

# Media evalwright takes are known by their first bytes; the rest is any filler.
JPEG = b"\xff\xd8\xff\xe0" + bytes(range(96))
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(20)
BMP = b"BM" + bytes(40)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _chat(*parts: dict[str, Any], role: str = "user") -> str:
    return json.dumps([{"role": role, "content": list(parts)}])


def _user(doc: dict[str, Any], case: int = 0) -> list[Any]:
    return doc["evalcases"][case]["input_messages"][-1]["content"]


def _media(result: Any, value: str) -> bytes:
    assert result.eval_file is not None
    return (result.eval_file.parent / value).read_bytes()


def test_each_apis_image_parts_become_media_parts(imported: Importer) -> None:
    url = "https://example.com/cat.png"
    parts = [
        {"type": "text", "text": "Which is {{animal}}?"},
        {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{_b64(JPEG)}"}},
        {"type": "image_url", "image_url": {"url": url}},
        {"type": "input_image", "image_url": f"data:image/png;base64,{_b64(PNG)}"},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": _b64(PNG)},
        },
        {"type": "image", "source": {"type": "url", "url": url}},
        {"image": {"format": "jpg", "source": {"bytes": _b64(JPEG)}}},
        {"modality": "image", "detail": "auto", "value": {"type": "url", "url": url}},
        {"type": "input_audio", "input_audio": {"data": _b64(WAV), "format": "wav"}},
    ]
    result, doc, _ = imported(
        "prompts: [file://chat.json]\nproviders: [openai:gpt-4o]\n"
        "tests:\n  - vars: {animal: a cat}\n",
        chat__json=_chat(*parts),
    )
    content = _user(doc)
    files = [part["value"] for part in content if "value" in part and part["type"] != "text"]
    assert [part["type"] for part in content] == [
        "text", "image", "image", "image", "image", "image", "image", "image", "audio",
    ]  # fmt: skip
    assert content[0] == {"type": "text", "value": "Which is a cat?"}
    assert [part.get("url") for part in content if "url" in part] == [url, url, url]
    assert [_media(result, f) for f in files] == [JPEG, PNG, PNG, JPEG, WAV]
    assert files[1] == files[2]  # one file for the same bytes
    assert result.carried == 1
    assert result.notes == ()


def test_an_image_variable_is_sent_as_the_image_promptfoo_reads_as_base64(
    imported: Importer, tmp_path: Path
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "cat.jpg").write_bytes(JPEG)
    url = {"url": "data:image/jpeg;base64,{{photo}}"}
    parts = [{"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": url}]
    result, doc, targets = imported(
        "prompts: [file://chat.json]\nproviders: [openai:gpt-4o]\n"
        "tests:\n  - vars: {photo: file://cat.jpg}\n",
        chat__json=_chat(*parts),
    )
    image = _user(doc)[1]
    assert _media(result, image["value"]) == JPEG
    # the case's metadata names the file, not its base64
    assert doc["evalcases"][0]["metadata"]["promptfoo"]["vars"] == {"photo": "file://cat.jpg"}
    assert result.eval_file is not None
    assert result.targets_file is not None
    assert [str(d) for d in validate([result.eval_file, result.targets_file])] == []
    (sent,) = preview(result.eval_file, targets["targets"][0]["name"])
    body: Any = sent.get("wire_request", {})["body"]
    digest = hashlib.sha256(JPEG).hexdigest()
    want = f"data:image/jpeg;base64,<sha256:{digest}, {len(JPEG)} bytes>"
    assert body["messages"][0]["content"][1] == {"type": "image_url", "image_url": {"url": want}}


def test_image_lines_of_a_text_prompt_are_images_for_gemini_only(
    imported: Importer, tmp_path: Path
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "cat.jpg").write_bytes(JPEG)
    result, doc, _ = imported(
        'prompts: ["{{photo}}\\n  Describe it.\\n"]\nproviders: [google:gemini-2.5-flash]\n'
        "tests:\n  - vars: {photo: file://cat.jpg}\n"
    )
    content = _user(doc)
    assert content[1] == {"type": "text", "value": "  Describe it.\n"}
    assert _media(result, content[0]["value"]) == JPEG
    assert result.notes == ()


def test_image_lines_for_other_and_mixed_providers(imported: Importer, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "cat.jpg").write_bytes(JPEG)
    tests = "tests:\n  - vars: {photo: file://cat.jpg}\n"
    result, doc, _ = imported(f"prompts: ['{{{{photo}}}} Describe it.']\n{tests}")
    assert _user(doc) == f"{_b64(JPEG)} Describe it."
    assert any("its base64 is in the prompt's text" in str(note) for note in result.notes)
    mixed = tmp_path / "src" / "mixed.yaml"
    mixed.write_text(
        'prompts: ["{{photo}}\\nDescribe it."]\n'
        f"providers: [openai:gpt-4o, google:gemini-2.5-flash]\n{tests}",
        encoding="utf-8",
    )
    both = import_promptfoo(mixed, tmp_path / "mixed")
    assert (both.carried, both.uncarried) == (0, 1)
    assert any("Gemini provider sends it as an image" in str(n) for n in both.notes)


@pytest.mark.parametrize(
    ("part", "why"),
    [
        (
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": _b64(JPEG)},
            },
            "said to be 'image/png' but its bytes are a JPEG image",
        ),
        (
            {"type": "image_url", "image_url": {"url": f"data:image/bmp;base64,{_b64(BMP)}"}},
            "the image is an unknown format: evalwright takes PNG, JPEG, GIF, WebP",
        ),
        ({"type": "image_url", "image_url": {"url": "gs://bucket/cat.png"}}, "only http(s)"),
        (
            {"type": "video_url", "video_url": {"url": "x"}},
            "not a text or media form the import reads",
        ),
        ({"type": "image_url", "image_url": {"url": "data:image/png;base64,@@"}}, "not base64"),
    ],
)
def test_media_that_cannot_be_sent_alike_is_not_carried(
    imported: Importer, part: dict[str, Any], why: str
) -> None:
    result, doc, _ = imported(
        "prompts: [file://chat.json, 'plain']\nproviders: [openai:gpt-4o]\n",
        chat__json=_chat({"type": "text", "text": "Look"}, part),
    )
    assert (result.carried, result.uncarried) == (1, 1)
    assert any(why in str(note) for note in result.notes), result.notes
    assert doc["evalcases"][0]["input_messages"] == [{"role": "user", "content": "plain"}]


def test_media_outside_user_turns_and_pdf_variables_are_not_carried(imported: Importer) -> None:
    image = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    result, _, _ = imported(
        "prompts: [file://chat.json, 'Summarize {{paper}}']\nproviders: [openai:gpt-4o]\n"
        "tests:\n  - vars: {paper: file://paper.pdf}\n  - vars: {paper: text}\n",
        chat__json=_chat(image, role="system"),
        paper__pdf="%PDF-1.4 not read",
    )
    assert (result.carried, result.uncarried) == (1, 3)
    shown = "\n".join(str(note) for note in result.notes)
    assert "a media part in a system message" in shown
    assert "promptfoo sends the text its PDF reader extracts" in shown


def test_text_parts_of_each_form_and_unread_part_keys(imported: Importer) -> None:
    parts = [
        {"modality": "text", "value": "one"},
        {"type": "input_text", "text": "two"},
        {"text": "three"},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "high"}},
    ]
    result, doc, _ = imported(
        "prompts: [file://chat.json]\nproviders: [openai:gpt-4o]\n", chat__json=_chat(*parts)
    )
    assert [p.get("value", p.get("url")) for p in _user(doc)] == [
        "one", "two", "three", "https://example.com/a.png",
    ]  # fmt: skip
    assert [n.message for n in result.notes] == ["message part key 'detail' not carried"]


@pytest.mark.parametrize(
    ("provider", "part", "why"),
    [
        (
            "google:gemini-2.5-flash",
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
            "an image URL: target 'google-gemini-2.5-flash' cannot take it",
        ),
        (
            "anthropic:messages:claude-sonnet-4-5",
            {"type": "input_audio", "input_audio": {"data": _b64(WAV), "format": "wav"}},
            "the audio part: target 'anthropic-messages-claude-sonnet-4-5' cannot take it",
        ),
        (
            "openai:responses:gpt-4.1",
            {"type": "input_audio", "input_audio": {"data": _b64(WAV), "format": "wav"}},
            "the audio part: target 'openai-responses-gpt-4.1' cannot take it",
        ),
    ],
)
def test_media_a_targets_api_refuses_is_not_carried(
    imported: Importer, provider: str, part: dict[str, Any], why: str
) -> None:
    result, _, _ = imported(
        f"prompts: [file://chat.json, 'plain']\nproviders: [openai:gpt-4o, {provider}]\n",
        chat__json=_chat({"type": "text", "text": "Look"}, part),
    )
    assert (result.carried, result.uncarried) == (1, 1)
    assert any(why in str(note) for note in result.notes), result.notes
