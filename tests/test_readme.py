"""The README's commands are true: it installs with pip, runs the tests with pytest, and its
quickstart commands run offline and succeed (here in a temporary copy of the examples)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.conftest import REPO

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def _commands() -> list[list[str]]:
    """Every command of the README's code blocks, ``&&`` chains split, as argv lists."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands: list[list[str]] = []
    for block in FENCE.findall(text):
        for line in block.splitlines():
            for part in line.split("&&"):
                argv = shlex.split(part)
                if argv:
                    commands.append(argv)
    return commands


def _evalwright_commands() -> list[list[str]]:
    return [argv for argv in _commands() if argv[0] == "evalwright"]


def test_the_readme_installs_with_pip_in_editable_mode() -> None:
    installs = [argv for argv in _commands() if argv[:2] == ["pip", "install"]]
    assert ["pip", "install", "-e", "."] in installs
    extras = [argv[-1] for argv in installs if argv[-1].startswith(".[")]
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for extra in extras:
        assert extra[2:-1] in project["optional-dependencies"], f"no extra {extra}"
    assert project["scripts"]["evalwright"] == "evalwright.__main__:console"


def test_the_readme_runs_the_tests() -> None:
    commands = _commands()
    assert ["python", "-m", "pytest"] in commands or ["pytest"] in commands
    assert any(argv[:2] == ["pip", "install"] and argv[-1] == ".[test]" for argv in commands)


def test_the_readme_shows_the_quickstart_eval() -> None:
    runs = [argv for argv in _evalwright_commands() if argv[1:2] == ["eval"]]
    assert runs, "the README shows `evalwright eval examples/quickstart`"
    assert any("examples/quickstart" in arg for argv in runs for arg in argv[2:])


def test_the_readme_quickstart_commands_succeed(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "examples", checkout / "examples")
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    script = shutil.which("evalwright", path=os.path.dirname(sys.executable))
    launcher = [script] if script else [sys.executable, "-m", "evalwright"]
    commands = _evalwright_commands()
    assert commands
    for argv in commands:
        completed = subprocess.run(
            [*launcher, *argv[1:]],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        shown = shlex.join(argv)
        assert completed.returncode == 0, f"{shown}:\n{completed.stderr}{completed.stdout}"
        assert "Traceback" not in completed.stderr, shown
