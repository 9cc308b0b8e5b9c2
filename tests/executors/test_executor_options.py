"""``--executor`` and ``--ray-address`` checked before anything runs (docs/scale.md), and the
local executor's rows unchanged."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import evalwright
from evalwright.errors import ConfigError
from tests.conftest import ProjectDir, run_cli, run_process

TARGETS = """targets:
  - name: agent
    provider: cli
    command: [echo, fine]
    num_cpus: 2
    memory: 1000000
"""
EVAL = """execution:
  evaluators:
    - {name: says, type: contains, value: fine}
evalcases:
  - id: greet
    expected_outcome: Fine.
    input: Say fine.
"""


def _project(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    project.write("evals/greet.yaml", EVAL)


def test_without_ray_installed_the_ray_executor_is_refused_with_exit_2(
    project: ProjectDir, tmp_path: Path
) -> None:
    _project(project)
    # A ``ray`` package that cannot be imported, first on the path: as if Ray were absent.
    (tmp_path / "shadow" / "ray").mkdir(parents=True)
    (tmp_path / "shadow" / "ray" / "__init__.py").write_text("raise ImportError('no ray')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "shadow")}

    result = run_process(
        "eval", project.root / "evals", "--target", "agent", "--executor", "ray", env=env
    )

    assert result.code == 2, result.err
    assert "--executor ray needs Ray: pip install 'evalwright[ray]'" in result.err
    assert "Traceback" not in result.err
    assert not list(project.root.glob("**/*.jsonl")), "nothing ran"


def test_an_unknown_executor_is_a_usage_error(project: ProjectDir) -> None:
    _project(project)

    result = run_cli("eval", project.root / "evals", "--executor", "spark")

    assert result.code == 2
    assert "invalid choice: 'spark'" in result.err


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"executor": "dask"}, "executor: expected 'local' or 'ray', got 'dask'"),
        ({"ray_address": "10.0.0.1:6379"}, "ray_address: give it with executor 'ray'"),
    ],
)
def test_the_python_api_checks_the_executor(
    project: ProjectDir, settings: dict[str, str], message: str
) -> None:
    _project(project)

    with pytest.raises(ConfigError, match=message):
        evalwright.run(project.root / "evals", targets="agent", **settings)  # pyright: ignore[reportArgumentType]


def test_a_local_row_has_no_node_and_num_cpus_changes_nothing(project: ProjectDir) -> None:
    _project(project)

    out = project.root / "r.jsonl"
    result = run_cli("eval", project.root / "evals", "--target", "agent", "--out", out)

    assert result.code == 0, result.err
    row = json.loads(out.read_text(encoding="utf-8"))
    assert row["candidate_answer"] == "fine"
    assert "node" not in row
