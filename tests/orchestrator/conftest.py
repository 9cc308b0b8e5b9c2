"""Fixtures of the orchestrator's tests."""

from __future__ import annotations

import pytest

from evalwright.orchestrator.batch import engine as batch
from evalwright.orchestrator.batch import judges as batch_judges
from evalwright.orchestrator.batch import pending as batch_pending
from evalwright.providers import batching

QUICK_BATCHES = {
    (batch, "POLL_FIRST"): 0.01,
    (batch_judges, "GATHER"): 0.01,
    (batching, "LIST_LAG"): 1.0,
    (batch_pending, "LOOK_AGAIN"): 0.02,
}
"""Batch mode's waits, shortened for the fake batch APIs: the first poll, the judges queue's
look, how long a batch may take to be listed and how often it is looked for meanwhile."""


@pytest.fixture
def quick_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batch mode in this process waits as :data:`QUICK_BATCHES` says."""
    for (module, name), value in QUICK_BATCHES.items():
        monkeypatch.setattr(module, name, value)
