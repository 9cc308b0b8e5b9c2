"""docs/python-api.md runs: its Python blocks execute in order, in one session, in the
project the page describes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO, ProjectDir

PAGE = REPO / "docs" / "python-api.md"
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.M | re.S)


def _blocks(language: str) -> list[str]:
    return [body for lang, body in _BLOCK.findall(PAGE.read_text("utf-8")) if lang == language]


def test_the_page_has_examples() -> None:
    assert len(_blocks("python")) >= 5


def test_every_example_runs(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> None:
    (targets,) = _blocks("yaml")
    project.write(".evalwright/targets.yaml", targets)
    project.write("notes.md", "France notes\n")
    monkeypatch.chdir(project.root)
    session: dict[str, object] = {"__name__": "docs_example"}
    for number, block in enumerate(_blocks("python"), start=1):
        code = compile(block, f"{PAGE.name} python block {number}", "exec")
        exec(code, session)
    assert Path("results.jsonl").is_file()
