"""The published reference MCP server, ``@modelcontextprotocol/server-everything``: a pinned
version from the npm registry, installed under ``.tools/`` (by ``.ci/run``, or on first use)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

EVERYTHING_VERSION = "2026.8.31"
PACKAGE = "@modelcontextprotocol/server-everything"
PINNED = f"{PACKAGE}@{EVERYTHING_VERSION}"
TOOLS = REPO / ".tools" / "mcp-everything"

REQUIRED = "REQUIRE_MCP_EVERYTHING"
"""Set by ``.ci/run``: there the test against the published server must run, never be
skipped."""


def everything_executable() -> Path:
    """The pinned ``mcp-server-everything``, installed under ``.tools/`` on first use.

    Without Node the test is skipped with the reason, except where ``REQUIRE_MCP_EVERYTHING``
    is set (``.ci/run``), where it fails.
    """
    binary = TOOLS / "node_modules" / ".bin" / "mcp-server-everything"
    if binary.exists() and _version() == EVERYTHING_VERSION:
        return binary
    npm = shutil.which("npm")
    if npm is None:
        reason = f"the MCP server test needs Node and npm to install {PINNED}"
        if os.environ.get(REQUIRED):
            pytest.fail(f"{reason}, and {REQUIRED} is set")
        pytest.skip(reason)
    TOOLS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [npm, "install", "--prefix", str(TOOLS), "--no-audit", "--no-fund", PINNED],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return binary


def _version() -> str | None:
    manifest = TOOLS / "node_modules" / PACKAGE / "package.json"
    try:
        text = manifest.read_text(encoding="utf-8")
    except OSError:
        return None
    version: object = json.loads(text).get("version")
    return version if isinstance(version, str) else None
