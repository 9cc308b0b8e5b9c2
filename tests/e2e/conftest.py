"""Fixtures for end-to-end runs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import ProjectDir
from tests.e2e.harness import E2E, start


@pytest.fixture
def e2e(project: ProjectDir) -> Iterator[E2E]:
    """A project wired to a fake server in a thread."""
    yield from start(project)
