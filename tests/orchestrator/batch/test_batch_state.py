"""The batch state file (docs/batch.md#resuming) is redacted like every file a run writes."""

from __future__ import annotations

import time
from pathlib import Path

from evalwright.orchestrator.batch.state import BatchState, SubmittedBatch, state_path
from evalwright.redact import Redactor

SECRET = "sk-batch-secret-0123"


def test_what_is_saved_is_redacted(tmp_path: Path) -> None:
    """A server may name a batch with anything, even a key it was sent."""
    results = tmp_path / "results.jsonl"
    state = BatchState.open(results, False, Redactor([SECRET]))
    requests = {"c1": ("evals/a.yaml", "case", "oa", 0)}
    batch = SubmittedBatch(
        target="oa",
        provider="openai",
        attempt=1,
        requests=requests,
        batch_id=f"batch_{SECRET.upper()}",
        submitted_at=time.time(),
    )
    state.add(batch)
    saved = state_path(results).read_text(encoding="utf-8")
    assert "batch_[REDACTED]" in saved
    assert SECRET.upper() not in saved
    (reread,) = BatchState.open(results, True, Redactor()).batches.values()
    assert reread.requests == requests
