"""Every example project validates, and every example eval file previews, as a new user would
try them (in a copy, so the repository stays clean)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

EXAMPLES = sorted(
    p.relative_to(REPO / "examples")
    for p in (REPO / "examples").rglob("*.yaml")
    if "evals" in p.parts
)


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("examples") / "examples"
    shutil.copytree(REPO / "examples", copy)
    return copy


def test_every_example_project_validates(examples: Path) -> None:
    result = run_cli("validate", examples)
    assert result.code == 0, result.out + result.err
    assert " 0 error(s)" in result.err


@pytest.mark.parametrize("eval_file", EXAMPLES, ids=str)
def test_every_example_eval_file_previews(examples: Path, eval_file: Path) -> None:
    result = run_cli("prompt", examples / eval_file, "--json")
    assert result.code == 0, result.err
    # One case prints one (indented) object; several print one object per line.
    objects = [result.json()] if result.out.startswith("{\n") else result.json_lines()
    assert objects
    assert all(item["messages"] for item in objects)
    assert run_cli("prompt", examples / eval_file).out.startswith("=== ")


def test_the_examples_cover_every_chat_api() -> None:
    assert EXAMPLES  # the quickstart and the providers example
    targets = (REPO / "examples" / "providers" / ".evalwright" / "targets.yaml").read_text()
    for provider in ("openai", "azure", "anthropic", "gemini"):
        assert f"provider: {provider}" in targets
