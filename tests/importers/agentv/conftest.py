"""AgentV HEAD's ``examples/features`` (MIT, copied with its licence into
tests/data/agentv-head-examples) and the suites in it, as AgentV finds them."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import DATA

HEAD = DATA / "agentv-head-examples"


def head_suites() -> list[Path]:
    """Every suite of the examples: a YAML mapping with ``tests``, outside ``.agentv``."""
    suites: list[Path] = []
    for path in sorted([*HEAD.rglob("*.yaml"), *HEAD.rglob("*.yml")]):
        if ".agentv" in path.relative_to(HEAD).parts:
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "tests" in data:
            suites.append(path)
    return suites
