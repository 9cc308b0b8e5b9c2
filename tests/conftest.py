"""Shared fixtures: temporary projects with real files, and the command line run for real."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evalwright.cli import main
from evalwright.evalfile import EvalSuite, check_eval_file, load_eval_file
from evalwright.evalfile.diagnostics import Diagnostic

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
"""Test data copied from other projects, each with its licence (see its README)."""


@dataclass
class ProjectDir:
    """A temporary project root (it holds ``.git``) to write files into."""

    root: Path

    def write(self, relative: str, content: str | bytes) -> Path:
        """Write a file under the root (parents created) and return its path."""
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
        return path

    def load(self, relative: str) -> EvalSuite:
        """Load an eval file of this project (raises LoadError on errors)."""
        return load_eval_file(self.root / relative)

    def check(self, relative: str) -> tuple[EvalSuite | None, list[Diagnostic]]:
        """Load an eval file, returning the suite (or None) and every diagnostic."""
        return check_eval_file(self.root / relative)


@pytest.fixture
def project(tmp_path: Path) -> ProjectDir:
    """An empty project whose root is marked by ``.git``."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return ProjectDir(root)


@dataclass
class CliResult:
    """What a command printed and returned."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        """stdout parsed as one JSON document."""
        return json.loads(self.out)

    def json_lines(self) -> list[Any]:
        """stdout parsed as JSON Lines."""
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


def run_cli(*args: str | os.PathLike[str]) -> CliResult:
    """Run ``evalwright ARGS`` in this process, capturing its output."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
    return CliResult(code, out.getvalue(), err.getvalue())


def run_process(
    *args: str | os.PathLike[str],
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 60,
) -> CliResult:
    """Run ``python -m evalwright ARGS`` as a real subprocess."""
    completed = subprocess.run(
        [sys.executable, "-m", "evalwright", *[str(a) for a in args]],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return CliResult(completed.returncode, completed.stdout, completed.stderr)
