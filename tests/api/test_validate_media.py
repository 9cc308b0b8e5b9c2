"""``validate`` checks a case's media against its target's limits
(docs/delivery.md#media-limits)."""

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
