"""The committed lock (uv.lock), which CI installs from, is the lock of pyproject.toml as it
stands: a dependency or range changed in one and not the other fails here, before CI's
`uv sync --locked` would."""

from __future__ import annotations

import tomllib
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO

Entry = tuple[str, str, str]
"""A requirement: its package, its range, and the extra that asks for it ("" for none)."""


def _declared() -> set[Entry]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups: dict[str, list[str]] = {"": project["dependencies"]}
    groups.update(project["optional-dependencies"])
    found: set[Entry] = set()
    for extra, lines in groups.items():
        for requirement in map(Requirement, lines):
            found.add((canonicalize_name(requirement.name), str(requirement.specifier), extra))
    return found


def _locked() -> set[Entry]:
    lock = tomllib.loads((REPO / "uv.lock").read_text(encoding="utf-8"))
    [project] = [p for p in lock["package"] if p["name"] == "evalwright"]
    entries: list[dict[str, Any]] = project["metadata"]["requires-dist"]
    found: set[Entry] = set()
    for entry in entries:
        marker: str = entry.get("marker", "")
        extra = marker.removeprefix("extra == '").removesuffix("'") if "extra" in marker else ""
        specifier = str(Requirement(f"x{entry.get('specifier', '')}").specifier)
        found.add((canonicalize_name(entry["name"]), specifier, extra))
    return found


def test_the_lock_holds_every_dependency_of_pyproject_toml_as_declared() -> None:
    assert _declared() == _locked()


def test_installing_the_package_pulls_no_test_oracle() -> None:
    """``pip install evalwright`` installs the package's locked dependencies and theirs
    (every platform's, markers ignored): NLTK, the tests' oracle of Krippendorff's alpha
    (docs/judges.md#run-metrics), is not among them."""
    lock = tomllib.loads((REPO / "uv.lock").read_text(encoding="utf-8"))
    needs = {p["name"]: [d["name"] for d in p.get("dependencies", [])] for p in lock["package"]}
    pulled: set[str] = set()
    waiting = ["evalwright"]
    while waiting:
        name = waiting.pop()
        if name not in pulled:
            pulled.add(name)
            waiting.extend(needs[name])
    assert "pydantic" in pulled
    assert "nltk" not in pulled
    assert "nltk" in needs  # still locked, for the test extra
