"""Media parts on the wire (docs/delivery.md#media): native content parts checked by the
OpenAPI document, placeholders in the recorded body, the bytes in the body sent."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from evalwright.evalfile import LoadedCase
from evalwright.providers.media import with_bytes
from evalwright.testing import FakeServer
from tests.conftest import DATA, ProjectDir, run_cli
from tests.providers.test_oracles import openapi_validator
from tests.providers.wire_cases import prepare

MEDIA = DATA / "media"
NAMES = ("pixel.png", "hello.pdf", "silence.wav")
CASE = """evalcases:
  - id: media
    expected_outcome: Describes them.
    input_messages:
      - role: user
        content:
          - Describe these.
          - {type: image, value: pixel.png}
          - {type: pdf, value: hello.pdf}
          - Then this clip.
          - {type: audio, value: silence.wav}
          - {type: image, url: 'https://example.com/cat.png'}
    execution: {evaluators: [{name: says, type: contains, value: fake}]}
"""


def placeholder(name: str) -> str:
    data = (MEDIA / name).read_bytes()
    return f"<sha256:{hashlib.sha256(data).hexdigest()}, {len(data)} bytes>"


def encoded(name: str) -> str:
    return base64.b64encode((MEDIA / name).read_bytes()).decode("ascii")


@pytest.fixture
def media_case(project: ProjectDir) -> LoadedCase:
    for name in NAMES:
        project.write(f"evals/{name}", (MEDIA / name).read_bytes())
    project.write("evals/e.yaml", CASE)
    return project.load("evals/e.yaml").cases[0]


def expected_openai_content(fill: Any) -> list[Any]:
    return [
        {"type": "text", "text": "Describe these."},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{fill('pixel.png')}"}},
        {
            "type": "file",
            "file": {
                "filename": "hello.pdf",
                "file_data": f"data:application/pdf;base64,{fill('hello.pdf')}",
            },
        },
        {"type": "text", "text": "Then this clip."},
        {"type": "input_audio", "input_audio": {"data": fill("silence.wav"), "format": "wav"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
    ]


@pytest.mark.parametrize("api", ["openai", "azure"])
def test_openai_chat_gets_native_parts_the_openapi_document_takes(
    api: str, media_case: LoadedCase
) -> None:
    body = prepare(api, media_case).wire.model_dump(mode="json")["body"]
    user = body["messages"][-1]
    assert user == {"role": "user", "content": expected_openai_content(placeholder)}
    errors = [e.message for e in openapi_validator("CreateChatCompletionRequest").iter_errors(body)]
    assert not errors


@pytest.fixture
def server(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """An openai target on the fake server."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-media")
    monkeypatch.chdir(project.root)
    with FakeServer.in_thread() as fake:
        project.write(
            ".evalwright/targets.yaml",
            "targets:\n  - name: default\n    provider: openai\n"
            f"    model: gpt-4o\n    base_url: {fake.url}/v1\n",
        )
        yield fake


def test_the_row_records_placeholders_while_the_server_gets_the_bytes(
    project: ProjectDir, server: FakeServer, media_case: LoadedCase
) -> None:
    del media_case  # it wrote the files
    out = project.root / "r.jsonl"
    result = run_cli("eval", "evals/e.yaml", "--out", out)
    assert result.code == 0, result.err
    (received,) = server.requests_for("openai")
    assert received.json is not None
    assert received.json["messages"][-1]["content"] == expected_openai_content(encoded)
    text = out.read_text(encoding="utf-8")
    (row,) = [json.loads(line) for line in text.splitlines()]
    sent = row["wire_request"]["body"]["messages"][-1]["content"]
    assert sent == expected_openai_content(placeholder)
    assert encoded("pixel.png") not in text
    png = (MEDIA / "pixel.png").read_bytes()
    (user,) = [m for m in row["raw_request"]["chat_prompt"] if m["role"] == "user"]
    assert user["media"][0] == {
        "type": "image",
        "path": "pixel.png",
        "media_type": "image/png",
        "size": len(png),
        "sha256": hashlib.sha256(png).hexdigest(),
    }
    assert user["media"][3] == {"type": "image", "url": "https://example.com/cat.png"}


def without(case: LoadedCase, *kinds: str, url: bool = False) -> LoadedCase:
    """``case`` with its media parts of ``kinds`` (and its URL image) left out."""
    from dataclasses import replace

    from evalwright.evalfile.resolved import MediaSegment

    def keep(segment: object) -> bool:
        if not isinstance(segment, MediaSegment):
            return True
        return segment.kind not in kinds and not (url and segment.media is None)

    first = case.input_messages[0]
    segments = tuple(s for s in first.segments if keep(s))
    return replace(case, input_messages=(replace(first, segments=segments),))


def test_anthropic_gets_image_and_document_blocks_the_sdk_takes(media_case: LoadedCase) -> None:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from pydantic import TypeAdapter

    from tests.providers.test_oracles import materialize

    body = prepare("anthropic", without(media_case, "audio")).wire.model_dump(mode="json")["body"]
    png, pdf = placeholder("pixel.png"), placeholder("hello.pdf")
    assert body["messages"][-1]["content"] == [
        {"type": "text", "text": "Describe these."},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": pdf},
        },
        {"type": "text", "text": "Then this clip."},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}},
    ]
    adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
    assert materialize(adapter.validate_python(body)) == body


@pytest.mark.parametrize(
    ("api", "extra", "drop", "url", "refusal"),
    [
        ("anthropic", {}, (), False, "takes no audio input"),
        ("gemini", {}, (), False, "fileData takes only files uploaded"),
        ("openai", {"api": "responses"}, (), True, "its input takes no audio"),
    ],
)
def test_media_an_api_cannot_take_is_an_error_not_a_silent_marker(
    media_case: LoadedCase,
    api: str,
    extra: dict[str, Any],
    drop: tuple[str, ...],
    url: bool,
    refusal: str,
) -> None:
    from evalwright.errors import ProviderError

    with pytest.raises(ProviderError, match=refusal) as caught:
        prepare(api, without(media_case, *drop, url=url), **extra)
    assert caught.value.retryable is False


def test_gemini_gets_inline_data_the_sdk_takes(media_case: LoadedCase) -> None:
    from google.genai import types

    prepared = prepare("gemini", without(media_case, url=True))
    body = prepared.wire.model_dump(mode="json")["body"]
    (content,) = body["contents"]
    assert content["parts"] == [
        {"text": "Describe these."},
        {"inlineData": {"mimeType": "image/png", "data": placeholder("pixel.png")}},
        {"inlineData": {"mimeType": "application/pdf", "data": placeholder("hello.pdf")}},
        {"text": "Then this clip."},
        {"inlineData": {"mimeType": "audio/wav", "data": placeholder("silence.wav")}},
    ]
    # The SDK reads ``data`` as base64: it checks the body sent, with the bytes in.
    (sent,) = with_bytes(body, prepared.request.messages)["contents"]
    assert sent["parts"][1]["inlineData"]["data"] == encoded("pixel.png")
    types.Content.model_validate(sent)


def test_responses_gets_input_image_and_input_file(media_case: LoadedCase) -> None:
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
    from pydantic import TypeAdapter

    from tests.providers.test_oracles import materialize

    case = without(media_case, "audio")
    body = prepare("openai", case, api="responses").wire.model_dump(mode="json")["body"]
    (message,) = [i for i in body["input"] if i.get("role") == "user"]
    png, pdf = placeholder("pixel.png"), placeholder("hello.pdf")
    assert message["content"] == [
        {"type": "input_text", "text": "Describe these."},
        {"type": "input_image", "image_url": f"data:image/png;base64,{png}", "detail": "auto"},
        {
            "type": "input_file",
            "filename": "hello.pdf",
            "file_data": f"data:application/pdf;base64,{pdf}",
        },
        {"type": "input_text", "text": "Then this clip."},
        {"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "auto"},
    ]
    # The document's ``input`` is a oneOf that any message with a list content matches
    # twice (EasyInputMessage and InputMessage), so the item is checked against the one.
    assert not list(openapi_validator("EasyInputMessage").iter_errors(message))
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseCreateParamsNonStreaming)
    assert materialize(adapter.validate_python(body)) == body


def test_mistral_gets_its_own_chunk_types_the_sdk_takes(media_case: LoadedCase) -> None:
    from tests.providers.test_mistral import sdk_round_trip

    prepared = prepare("mistral", media_case)
    body = prepared.wire.model_dump(mode="json")["body"]
    png, pdf, wav = placeholder("pixel.png"), placeholder("hello.pdf"), placeholder("silence.wav")
    assert body["messages"][-1]["content"] == [
        {"type": "text", "text": "Describe these."},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}},
        {"type": "document_url", "document_url": f"data:application/pdf;base64,{pdf}"},
        {"type": "text", "text": "Then this clip."},
        {"type": "input_audio", "input_audio": wav},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
    ]
    assert sdk_round_trip(body) == body


def test_media_over_the_apis_limit_is_an_error_row_and_nothing_is_sent(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Anthropic takes 5 MB of base64 per image: 3.75 MB of file (its kind's facts).
    big = b"\x89PNG\r\n\x1a\n" + bytes(4 * 1024 * 1024)
    project.write("evals/big.png", big)
    project.write(
        "evals/e.yaml",
        "evalcases:\n  - id: big\n    expected_outcome: o\n    input_messages:\n"
        "      - {role: user, content: [Look., {type: image, value: big.png}]}\n",
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.chdir(project.root)
    with FakeServer.in_thread() as fake:
        project.write(
            ".evalwright/targets.yaml",
            "targets:\n  - name: default\n    provider: anthropic\n"
            f"    model: claude-test\n    base_url: {fake.url}\n",
        )
        out = project.root / "r.jsonl"
        result = run_cli("eval", "evals/e.yaml", "--out", out)
        assert not fake.requests
    assert "Traceback" not in result.err
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert row["error"] is not None
    message = json.dumps(row["error"])
    assert f"'big.png' is {len(big)} bytes" in message
    assert f"image files of at most {5 * 1024 * 1024 * 3 // 4} bytes" in message


def test_prompt_json_shows_placeholders_and_media_shows_the_bytes(
    project: ProjectDir, server: FakeServer, media_case: LoadedCase
) -> None:
    del server, media_case  # they wrote the targets and the files
    plain = run_cli("prompt", "evals/e.yaml", "--target", "default", "--json")
    assert plain.code == 0, plain.err
    content = plain.json()["wire_request"]["body"]["messages"][-1]["content"]
    assert content == expected_openai_content(placeholder)
    full = run_cli("prompt", "evals/e.yaml", "--target", "default", "--json", "--media")
    assert full.code == 0, full.err
    content = full.json()["wire_request"]["body"]["messages"][-1]["content"]
    assert content == expected_openai_content(encoded)


@pytest.mark.parametrize("include", [False, True])
def test_a_judge_sees_a_marker_unless_it_asks_for_the_media(
    project: ProjectDir, server: FakeServer, media_case: LoadedCase, include: bool
) -> None:
    del media_case
    project.write(
        "evals/j.yaml",
        "evalcases:\n  - id: j\n    expected_outcome: Describes it.\n    input_messages:\n"
        "      - {role: user, content: [Describe., {type: image, value: pixel.png}]}\n"
        "    execution:\n      evaluators:\n"
        f"        - {{name: j, type: llm_judge, include_media: {str(include).lower()}}}\n",
    )
    result = run_cli("eval", "evals/j.yaml", "--out", project.root / "j.jsonl")
    assert result.code in (0, 1), result.err
    judged = [
        r.json for r in server.requests_for("openai") if r.json and "response_format" in r.json
    ]
    assert judged, [r.json for r in server.requests]
    content = judged[0]["messages"][-1]["content"]
    sha = hashlib.sha256((MEDIA / "pixel.png").read_bytes()).hexdigest()
    if include:
        text, image = content
        assert f'<file path="pixel.png" sha256="{sha}">' in text["text"]
        assert image == {
            "type": "image_url",
            "image_url": {"url": f"data:image/png;base64,{encoded('pixel.png')}"},
        }
    else:
        assert isinstance(content, str)
        assert f'<file path="pixel.png" sha256="{sha}">' in content
        assert encoded("pixel.png") not in content


def test_unsupported_media_omit_sends_markers_with_a_note(media_case: LoadedCase) -> None:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from pydantic import TypeAdapter

    from tests.providers.test_oracles import materialize

    prepared = prepare("anthropic", media_case, unsupported_media="omit")
    body = prepared.wire.model_dump(mode="json")["body"]

    wav = hashlib.sha256((MEDIA / "silence.wav").read_bytes()).hexdigest()
    content = body["messages"][-1]["content"]
    assert [part["type"] for part in content] == ["text", "image", "document", "text", "image"]
    assert content[3] == {
        "type": "text",
        "text": f'Then this clip.\n<file path="silence.wav" sha256="{wav}">',
    }
    assert [(n.rule, n.detail) for n in prepared.notes] == [
        (
            "media_omitted",
            "Anthropic Messages: the audio part 'silence.wav' was sent as its marker text: "
            "the Messages API takes no audio input",
        )
    ]
    adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
    assert materialize(adapter.validate_python(body)) == body


def test_a_text_only_model_gets_the_text_turn_byte_for_byte(media_case: LoadedCase) -> None:
    from evalwright.errors import ProviderError

    with pytest.raises(ProviderError, match=r"accepts_media \(none\) leaves it out"):
        prepare("openai", media_case, accepts_media=[])

    prepared = prepare("openai", media_case, accepts_media=[], unsupported_media="omit")

    user = prepared.wire.model_dump(mode="json")["body"]["messages"][-1]
    assert user == {"role": "user", "content": media_case_text(media_case)}
    assert [n.rule for n in prepared.notes] == ["media_omitted"] * 4


def test_a_model_taking_images_only_keeps_its_images(media_case: LoadedCase) -> None:
    prepared = prepare("openai", media_case, accepts_media=["image"], unsupported_media="omit")

    content = prepared.wire.model_dump(mode="json")["body"]["messages"][-1]["content"]
    assert [part["type"] for part in content] == ["text", "image_url", "text", "image_url"]
    assert [n.detail.split("'")[1] for n in prepared.notes] == ["hello.pdf", "silence.wav"]


def media_case_text(case: LoadedCase) -> str:
    """The user turn as a text-only model reads it: its text with a marker per media part."""
    from evalwright.prompts import build_prompt

    return build_prompt(case).messages[-1].content
