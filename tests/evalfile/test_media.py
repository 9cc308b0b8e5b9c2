"""Media parts in eval files (docs/eval-files.md#media-parts): sniffed, located errors."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from evalwright.evalfile.resolved import MediaSegment
from evalwright.prompts.build import build_prompt, prompt_document
from tests.conftest import DATA, ProjectDir, run_cli

MEDIA = DATA / "media"
CASE = """evalcases:
  - id: a
    expected_outcome: o
    input_messages:
      - role: user
        content:
          - Describe these.
{parts}
"""


def with_media(project: ProjectDir, *parts: str) -> str:
    for name in ("pixel.png", "hello.pdf", "silence.wav"):
        project.write(f"evals/{name}", (MEDIA / name).read_bytes())
    body = "\n".join(f"          - {part}" for part in parts)
    project.write("evals/e.yaml", CASE.format(parts=body))
    return "evals/e.yaml"


def test_image_pdf_and_audio_parts_are_sniffed_and_recorded(project: ProjectDir) -> None:
    path = with_media(
        project,
        "{type: image, value: pixel.png}",
        "{type: pdf, value: hello.pdf}",
        "{type: audio, value: silence.wav}",
        "{type: image, url: 'https://example.com/cat.png'}",
    )
    case = project.load(path).cases[0]
    segments = case.input_messages[0].segments[1:]
    assert all(isinstance(s, MediaSegment) for s in segments)
    media = [s.media for s in segments if isinstance(s, MediaSegment)]
    kinds = [m.media_type if m else None for m in media]
    assert kinds == ["image/png", "application/pdf", "audio/wav", None]
    png = (MEDIA / "pixel.png").read_bytes()
    first = media[0]
    assert first is not None
    assert (first.size, first.sha256) == (len(png), hashlib.sha256(png).hexdigest())
    last = segments[-1]
    assert isinstance(last, MediaSegment)
    assert last.url == "https://example.com/cat.png"


def test_an_agent_gets_the_media_files_path(project: ProjectDir) -> None:
    path = with_media(project, "{type: image, value: pixel.png}")
    built = build_prompt(project.load(path).cases[0], mode="agent")
    png = os.path.realpath(project.root / "evals/pixel.png")
    assert Path(png).as_uri() in prompt_document(built)
    assert '<file: path="pixel.png">' in built.question


@pytest.mark.parametrize(
    ("part", "found"),
    [
        (
            "{type: image, value: hello.pdf}",
            "type: image expects PNG, JPEG, GIF or WebP, but the file is a PDF document",
        ),
        (
            "{type: audio, value: pixel.png}",
            "type: audio expects WAV or MP3, but the file is a PNG image",
        ),
        (
            "{type: pdf, value: notes.txt}",
            "type: pdf expects PDF, but the file is an unknown format",
        ),
    ],
)
def test_a_mislabelled_file_is_a_located_validate_error(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch, part: str, found: str
) -> None:
    project.write("evals/notes.txt", "just text")
    path = with_media(project, part)
    monkeypatch.chdir(project.root)
    result = run_cli("validate", path)
    assert result.code == 1
    assert result.out.startswith(f"{path}:8:")
    assert "input_messages[0].content[1].value:" in result.out
    assert found in result.out
    assert "Traceback" not in result.out + result.err


def test_media_outside_a_user_turn_is_an_error(project: ProjectDir) -> None:
    project.write("evals/pixel.png", (MEDIA / "pixel.png").read_bytes())
    project.write(
        "evals/e.yaml",
        "evalcases:\n  - id: a\n    expected_outcome: o\n    input_messages:\n"
        "      - role: system\n        content: [{type: image, value: pixel.png}]\n"
        "      - {role: user, content: hi}\n",
    )
    _, diagnostics = project.check("evals/e.yaml")
    assert any("may appear only in a user turn" in d.message for d in diagnostics)


@pytest.mark.parametrize(
    ("part", "message"),
    [
        ("{type: pdf, url: 'https://example.com/a.pdf'}", "only an image may be given by url"),
        ("{type: image}", "needs exactly one of 'value' (a path) or 'url'"),
        ("{type: image, url: 'file:///etc/passwd'}", "url must start with https://"),
    ],
)
def test_malformed_media_parts_are_refused(project: ProjectDir, part: str, message: str) -> None:
    path = with_media(project, part)
    _, diagnostics = project.check(path)
    assert any(message in d.message for d in diagnostics), [d.message for d in diagnostics]


def test_text_renderings_and_so_judges_show_a_marker_not_the_bytes(project: ProjectDir) -> None:
    path = with_media(
        project,
        "{type: image, value: pixel.png}",
        "{type: image, url: 'https://example.com/c.png'}",
    )
    built = build_prompt(project.load(path).cases[0])
    sha = hashlib.sha256((MEDIA / "pixel.png").read_bytes()).hexdigest()
    # A judge's {{question}} is exactly the row's question (docs/judges.md).
    assert built.question == (
        f'Describe these.\n<file path="pixel.png" sha256="{sha}">\n<image url="https://example.com/c.png">'
    )
    assert built.chat_prompt is not None, "a turn with media always goes as a chat prompt"


def test_a_media_file_is_read_and_hashed_once_per_run(project: ProjectDir) -> None:
    project.write("evals/pixel.png", (MEDIA / "pixel.png").read_bytes())
    case = (
        "  - id: {0}\n    expected_outcome: o\n    input_messages:\n"
        "      - {{role: user, content: [{{type: image, value: pixel.png}}]}}\n"
    )
    project.write("evals/e.yaml", "evalcases:\n" + case.format("a") + case.format("b"))
    first, second = (c.input_messages[0].segments[0] for c in project.load("evals/e.yaml").cases)
    assert isinstance(first, MediaSegment)
    assert isinstance(second, MediaSegment)
    assert first.media is second.media
