"""The package's layers ([tool.importlinter] in pyproject.toml): `lint-imports` keeps every
contract, the README draws the stages in the contract's order, and an import that goes up a
layer, round a circle, past the YAML engine's one entry or into the fake servers breaks one."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["importlinter"]["contracts"]


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_every_contract_is_kept() -> None:
    done = _lint(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in done.stdout


def test_the_readme_draws_the_stages_in_the_layers_order() -> None:
    [layers] = [c["layers"] for c in _contracts() if c["type"] == "layers"]
    stages = [
        [name.strip().removeprefix("evalwright.") for name in re.split(r"[|:]", layer)]
        for layer in reversed(layers)
    ]
    packages = [s for s in stages if (REPO / "src" / "evalwright" / s[0]).is_dir()]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("The code is laid out by pipeline stage") :]
    # The drawing ends where the paragraph turns to the modules beside the stages.
    paragraph = paragraph[: paragraph.index("The small modules")]
    drawn = [
        re.findall(r"`(?:src/evalwright/)?([a-z_]+)/`", step)
        for step in re.sub(r"\([^)]*\)", "", paragraph.replace("\n", " ")).split("→")
    ]
    assert [sorted(step) for step in drawn] == [sorted(step) for step in packages]
    every_package = {p.name for p in (REPO / "src" / "evalwright").iterdir() if p.is_dir()}
    laid_out = {name for step in packages for name in step}
    assert every_package - laid_out <= {"testing", "__pycache__"}


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(
        REPO / "src", root / "src", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("limits.py", "import evalwright.secrets", "Each pipeline stage imports only"),
        (
            "orchestrator/requests.py",
            "from evalwright.orchestrator import case",
            "No module imports one that imports it back",
        ),
        (
            "evalfile/loader.py",
            "from evalwright.files._yaml import document",
            "The YAML engine is entered only through",
        ),
        ("orchestrator/run.py", "import evalwright.testing", "The fake API servers are for tests"),
    ],
)
def test_an_import_against_a_contract_breaks_it(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    root = _copy(tmp_path)
    path = root / "src" / "evalwright" / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"Contracts: {len(_contracts()) - 1} kept, 1 broken." in done.stdout
    assert re.search(re.escape(broken) + r"[^\n]* BROKEN", done.stdout), done.stdout
