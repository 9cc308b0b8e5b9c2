"""The npm packages promptfoo's example configs need when their code is run at import
(docs/importing.md#code-the-config-names): ``tsx``, with which promptfoo itself runs
TypeScript, and ``dedent``, which image-classification's prompt file requires. Pinned, and
installed under ``.tools/`` on first use, as the examples' users have them beside promptfoo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

PINNED = {"tsx": "4.23.15", "dedent": "1.7.2"}
TOOLS = REPO / ".tools" / "promptfoo-examples"

REQUIRED = "REQUIRE_PROMPTFOO_NODE"
"""Set by ``.ci/run``: there the corpus test must run with Node and these packages."""


def node_path() -> Path:
    """The ``node_modules`` folder holding the pinned packages, for ``NODE_PATH``.

    Without Node and npm the test is skipped with the reason, except where
    ``REQUIRE_PROMPTFOO_NODE`` is set (``.ci/run``), where it fails.
    """
    modules = TOOLS / "node_modules"
    if all(_version(modules / name) == version for name, version in PINNED.items()):
        return modules
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        reason = "promptfoo's example configs run JavaScript: they need Node and npm"
        if os.environ.get(REQUIRED):
            pytest.fail(f"{reason}, and {REQUIRED} is set")
        pytest.skip(reason)
    TOOLS.mkdir(parents=True, exist_ok=True)
    specs = [f"{name}@{version}" for name, version in PINNED.items()]
    command = [npm, "install", "--prefix", str(TOOLS), "--no-audit", "--no-fund", *specs]
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    return modules


def _version(package: Path) -> str | None:
    try:
        return json.loads((package / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
