"""Shared fixtures: temporary projects with real files, and the command line run for real."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import jsonschema
import pytest

from evalwright.cli import main
from evalwright.errors import Diagnostic
from evalwright.evalfile import LoadedSuite, check_eval_file, load_eval_file

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
"""Test data copied from other projects, each with its licence (see its README)."""
# Other projects' files kept as data hold tests of their own (AgentV's sdk-python example).
collect_ignore = ["data"]


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

    def load(self, relative: str) -> LoadedSuite:
        """Load an eval file of this project (raises LoadError on errors)."""
        return load_eval_file(self.root / relative)

    def check(self, relative: str) -> tuple[LoadedSuite | None, list[Diagnostic]]:
        """Load an eval file, returning the suite (or None) and every diagnostic."""
        return check_eval_file(self.root / relative)


@pytest.fixture
def project(tmp_path: Path) -> ProjectDir:
    """An empty project whose root is marked by ``.git``."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return ProjectDir(root)


REQUIRE_BWRAP = "REQUIRE_BWRAP"
"""Set (CI sets it) to make a missing bubblewrap fail the sandbox tests instead of skipping."""


@pytest.fixture
def bwrap() -> str:
    """The ``bwrap`` program of ``sandbox: bwrap``; the test is skipped without one (fails
    under ``REQUIRE_BWRAP=1``)."""
    found = shutil.which("bwrap")
    if found is None:
        reason = "no bwrap on PATH (apt-get install bubblewrap) for the sandbox tests"
        if os.environ.get(REQUIRE_BWRAP) == "1":
            pytest.fail(f"{REQUIRE_BWRAP}=1 but {reason}")
        pytest.skip(reason)
    return found


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


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker of tests that write rows the results schema must refuse."""
    config.addinivalue_line(
        "markers",
        "invalid_rows: the test writes results rows that are invalid on purpose, so the "
        "check that every written row fits `evalwright schema results` skips it",
    )


@pytest.fixture(scope="session")
def results_row_validator() -> jsonschema.Draft202012Validator:
    """A validator for the schema ``evalwright schema results`` prints (made once)."""
    result = run_cli("schema", "results")
    assert result.code == 0, result.err
    schema = result.json()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def row_problems(path: Path, validator: jsonschema.Draft202012Validator) -> list[str]:
    """Why lines of ``path`` that look like result rows (JSON objects with ``run_id`` and
    ``eval_id``) do not fit the results schema; lines that are not rows are left alone."""
    found: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            row: Any = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested too deep to read
            continue
        if not (isinstance(row, dict) and "run_id" in row and "eval_id" in row):
            continue
        document = cast(dict[str, Any], row)
        errors = validator.iter_errors(document)  # pyright: ignore[reportUnknownMemberType]
        found += [f"{path}:{number}: {e.json_path}: {e.message[:300]}" for e in errors]
    return found


@pytest.fixture(autouse=True)
def _no_ci_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs in tests never append to the CI's own step summary (``eval`` appends to the file
    ``GITHUB_STEP_SUMMARY`` names); the tests of that feature set it themselves."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture(autouse=True)
def _written_rows_fit_the_results_schema(
    request: pytest.FixtureRequest, results_row_validator: jsonschema.Draft202012Validator
) -> Iterator[None]:
    """After each test that has a ``tmp_path``, every results row written under it (by the
    CLI in this process or in a subprocess) must fit ``evalwright schema results``."""
    yield
    root = request.node.funcargs.get("tmp_path")
    if not isinstance(root, Path) or request.node.get_closest_marker("invalid_rows"):
        return
    problems = [
        problem
        for path in sorted(root.rglob("*.jsonl"))
        if path.is_file()
        for problem in row_problems(path, results_row_validator)
    ]
    assert not problems, "rows that do not fit the results schema:\n" + "\n".join(problems)
