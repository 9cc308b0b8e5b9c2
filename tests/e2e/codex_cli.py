"""The real Codex CLI for end-to-end tests: a pinned version from the npm registry."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

CODEX_VERSION = "0.169.0"
TOOLS = REPO / ".tools" / "codex"


REQUIRED = "REQUIRE_REAL_CODEX"
"""Set by ``.ci/run``: there the real Codex test must run, never be skipped."""


def codex_executable() -> Path:
    """The pinned ``codex``, installed under ``.tools/`` on first use.

    Without Node the test is skipped with the reason, except where ``REQUIRE_REAL_CODEX``
    is set (``.ci/run``), where it fails.
    """
    binary = TOOLS / "node_modules" / ".bin" / "codex"
    if binary.exists() and _version(binary) == CODEX_VERSION:
        return binary
    npm = shutil.which("npm")
    if npm is None:
        reason = (
            f"the real Codex test needs Node and npm to install @openai/codex@{CODEX_VERSION} "
            "(.ci/run installs them)"
        )
        if os.environ.get(REQUIRED):
            pytest.fail(f"{reason}, and {REQUIRED} is set")
        pytest.skip(reason)
    TOOLS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(TOOLS),
            "--no-audit",
            "--no-fund",
            f"@openai/codex@{CODEX_VERSION}",
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return binary


def _version(binary: Path) -> str | None:
    try:
        out = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=60, check=False
        ).stdout
    except OSError:
        return None
    return out.strip().rsplit(" ", 1)[-1] if out else None


def codex_home(directory: Path, base_url: str, key_variable: str) -> dict[str, str]:
    """A CODEX_HOME whose default model provider is our fake server's Responses API."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.toml").write_text(
        'model = "gpt-fake"\n'
        'model_provider = "fake"\n'
        "[model_providers.fake]\n"
        'name = "Fake"\n'
        f'base_url = "{base_url}/v1"\n'
        'wire_api = "responses"\n'
        f'env_key = "{key_variable}"\n',
        encoding="utf-8",
    )
    return {"CODEX_HOME": str(directory), "HOME": os.environ.get("HOME", str(directory))}
