"""``validate`` checks a case's media against what its target's API takes: the kinds it
takes at all, and its size limits (docs/delivery.md#media-limits)."""

from __future__ import annotations

import pytest

from tests.conftest import ProjectDir, run_cli


def test_an_image_over_the_targets_limit_is_a_validate_error(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = b"\x89PNG\r\n\x1a\n" + bytes(4 * 1024 * 1024)
    project.write("evals/big.png", big)
    project.write("evals/small.png", b"\x89PNG\r\n\x1a\n" + bytes(10))
    project.write(
        "evals/e.yaml",
        "evalcases:\n"
        "  - id: big\n    expected_outcome: o\n    input_messages:\n"
        "      - {role: user, content: [Look., {type: image, value: big.png}]}\n"
        "  - id: small\n    expected_outcome: o\n    input_messages:\n"
        "      - {role: user, content: [Look., {type: image, value: small.png}]}\n",
    )
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - {name: default, provider: anthropic, model: claude-test}\n",
    )
    monkeypatch.chdir(project.root)
    result = run_cli("validate", "evals/e.yaml")
    assert result.code == 1
    (line,) = result.out.splitlines()
    assert line.startswith("evals/e.yaml:2:")
    assert "error" in line
    assert "case 'big': target 'default': Anthropic Messages takes image files of at most" in line
    assert f"'big.png' is {len(big)} bytes" in line
    assert "Traceback" not in result.out + result.err


@pytest.mark.parametrize(
    ("target", "part", "says"),
    [
        (
            "{name: default, provider: anthropic, model: claude-test}",
            "{type: audio, value: clip.wav}",
            "Anthropic Messages cannot take the audio part 'clip.wav': the Messages API takes "
            "no audio input",
        ),
        (
            "{name: default, provider: openai, model: gpt-test, api: responses}",
            "{type: audio, value: clip.wav}",
            "OpenAI Responses cannot take the audio part 'clip.wav': its input takes no audio",
        ),
        (
            "{name: default, provider: gemini, model: gemini-test}",
            "{type: image, url: 'https://example.com/cat.png'}",
            "Gemini generateContent cannot take the image part 'https://example.com/cat.png': "
            "its fileData takes only files uploaded to Google",
        ),
    ],
)
def test_media_the_targets_api_cannot_take_is_a_validate_error(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch, target: str, part: str, says: str
) -> None:
    import io
    import wave

    clip = io.BytesIO()
    with wave.open(clip, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(8000)
        writer.writeframes(bytes(160))
    project.write("evals/clip.wav", clip.getvalue())
    project.write(
        "evals/e.yaml",
        "evalcases:\n  - id: hear\n    expected_outcome: o\n    input_messages:\n"
        f"      - {{role: user, content: [Listen., {part}]}}\n",
    )
    project.write(".evalwright/targets.yaml", f"targets:\n  - {target}\n")
    monkeypatch.chdir(project.root)

    result = run_cli("validate", "evals/e.yaml")

    assert result.code == 1, result.out
    assert f"case 'hear': target 'default': {says}" in result.out
    assert "Traceback" not in result.out + result.err


def test_media_a_target_omits_is_a_warning_and_its_limits_still_errors(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.write("evals/small.png", b"\x89PNG\r\n\x1a\n" + bytes(10))
    project.write(
        "evals/e.yaml",
        "evalcases:\n"
        "  - id: small\n    expected_outcome: o\n    input_messages:\n"
        "      - {role: user, content: [Look., {type: image, value: small.png}]}\n",
    )
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - {name: default, provider: openai, model: m, accepts_media: [],"
        " unsupported_media: omit}\n",
    )
    monkeypatch.chdir(project.root)

    result = run_cli("validate", "evals/e.yaml")

    assert result.code == 0, result.out
    assert "warning" in result.out
    assert "cannot take the image part 'small.png': the target's accepts_media (none)" in result.out
    assert "(sent as its marker text: unsupported_media: omit)" in result.out

    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - {name: default, provider: openai,"
        " model: m, accepts_media: [pdf], unsupported_media: error}\n",
    )
    assert run_cli("validate", "evals/e.yaml").code == 1
