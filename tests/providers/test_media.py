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
