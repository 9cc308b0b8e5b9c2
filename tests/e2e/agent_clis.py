"""The real Claude Code and Gemini CLI for end-to-end tests: pinned versions from the npm
registry, installed under ``.tools/`` on first use, and what points each at the fake server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO


@dataclass(frozen=True)
class PinnedCli:
    """One agent CLI of the npm registry at one version."""

    package: str
    version: str
    binary: str
    required: str
    """Set by ``.ci/run``: there its real test must run, never be skipped."""

    @property
    def spec(self) -> str:
        """``package@version``, as ``npm install`` takes it (``.ci/run`` prints it)."""
        return f"{self.package}@{self.version}"

    @property
    def prefix(self) -> Path:
        """Where it is installed."""
        return REPO / ".tools" / self.binary

    def executable(self) -> Path:
        """The pinned CLI, installed on first use. Without npm the test is skipped with the
        reason, except where :attr:`required` is set (``.ci/run``), where it fails."""
        binary = self.prefix / "node_modules" / ".bin" / self.binary
        if binary.exists() and self._installed() == self.version:
            return binary
        npm = shutil.which("npm")
        if npm is None:
            reason = f"this real {self.binary} test needs Node and npm to install {self.spec}"
            if os.environ.get(self.required):
                pytest.fail(f"{reason}, and {self.required} is set")
            pytest.skip(f"{reason} (.ci/run installs them)")
        self.prefix.mkdir(parents=True, exist_ok=True)
        command = [npm, "install", "--prefix", str(self.prefix), "--no-audit", "--no-fund"]
        subprocess.run([*command, self.spec], check=True, capture_output=True, timeout=600)
        return binary

    def _installed(self) -> str | None:
        manifest = self.prefix / "node_modules" / self.package / "package.json"
        try:
            version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError):
            return None
        return version if isinstance(version, str) else None


CLAUDE_CODE = PinnedCli(
    "@anthropic-ai/claude-code", "2.1.332", "claude", "REQUIRE_REAL_CLAUDE_CODE"
)
GEMINI_CLI = PinnedCli("@google/gemini-cli", "0.61.0", "gemini", "REQUIRE_REAL_GEMINI_CLI")


def gemini_home(home: Path) -> dict[str, str]:
    """A HOME whose Gemini CLI settings take an API key (with ``GOOGLE_GEMINI_BASE_URL`` set
    it would otherwise pick its ``gateway`` auth, which headless runs refuse) and send no
    usage statistics and make no update checks (its configuration documentation)."""
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "telemetry": {"enabled": False},
    }
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return {"HOME": str(home)}


SWE_FIX = REPO / "examples" / "agents" / "swe-fix"
FIXED = "Fixed calc.add: it subtracted instead of adding."


def swe_fix_project(root: Path, targets: str, evaluators: str) -> None:
    """The swe-fix example in ``root`` with ``targets`` as its targets file and
    ``evaluators`` (YAML list items) added to its case's own."""
    shutil.copytree(SWE_FIX / "repo", root / "repo")
    (root / "evals").mkdir(exist_ok=True)
    fix = (SWE_FIX / "evals" / "fix.yaml").read_text(encoding="utf-8")
    (root / "evals" / "fix.yaml").write_text(fix.rstrip("\n") + "\n" + evaluators, "utf-8")
    (root / ".evalwright" / "targets.yaml").write_text(targets, encoding="utf-8")
