"""Submitting a batch so that a run killed mid-submit never sends its requests twice
(docs/batch.md#resuming).

Before the create call goes out, the state file records a pending submission: a fresh tag the
batch carries, and which row each request belongs to. When the create call answers, the
pending record becomes the submitted batch; when it does not (the run was killed, or the call
failed in a way that leaves it unknown whether the batch exists), the batch is looked up by its
tag, and only a batch the API does not have is submitted again.
"""

from __future__ import annotations

import time
import uuid

from evalwright.errors import ProviderError
from evalwright.orchestrator.batch_state import (
    BatchRequests,
    BatchState,
    PendingSubmission,
    SubmittedBatch,
)
from evalwright.providers.batching import BatchApi
from evalwright.results.index import RowKey


def new_tag() -> str:
    """A submission's tag: unique, and short enough for Anthropic's custom_ids with an index
    (``^[a-zA-Z0-9_-]{1,64}$``)."""
    return uuid.uuid4().hex


def custom_id(tag: str, index: int) -> str:
    """The custom_id of a submission's ``index``-th request: it carries the tag."""
    return f"{tag}-r{index}"


def pending_submission(
    target: str, provider: str, tag: str, attempt: int, entries: dict[str, RowKey | str]
) -> PendingSubmission:
    """A pending submission tagged ``tag`` of requests (custom_id -> its row, or a judge
    request's digest)."""
    return PendingSubmission(
        target=target,
        provider=provider,
        tag=tag,
        attempt=attempt,
        pending_at=time.time(),
        phase="judges" if any(isinstance(e, str) for e in entries.values()) else "answers",
        requests={c: e for c, e in entries.items() if not isinstance(e, str)},
        judges={c: e for c, e in entries.items() if isinstance(e, str)},
    )


def submitted_from(pending: PendingSubmission, batch_id: str, at: float) -> SubmittedBatch:
    """The submitted batch a pending submission created."""
    carried = {name: getattr(pending, name) for name in BatchRequests.model_fields}
    return SubmittedBatch(**carried, batch_id=batch_id, submitted_at=at)


async def look_up(api: BatchApi, pending: PendingSubmission) -> str | None:
    """The id of the batch ``pending`` created, or None when the API has none.
    Raises ProviderError when the API cannot be asked."""
    return await api.find(
        pending.tag,
        pending.pending_at,
        len(pending.requests) + len(pending.judges),
        pending.input_file_id,
    )


async def resolve(api: BatchApi, state: BatchState, pending: PendingSubmission) -> bool:
    """Settle a submission an earlier run left pending: its batch becomes a submitted batch
    (True), or, when the API has none, the record goes and its requests are submitted as new
    (False). Raises ProviderError, leaving the record, when the API cannot be asked."""
    found = await look_up(api, pending)
    state.settle(
        pending.tag, None if found is None else submitted_from(pending, found, time.time())
    )
    return found is not None


async def after_failed_create(
    api: BatchApi, state: BatchState, pending: PendingSubmission, error: ProviderError
) -> str | None:
    """The batch a create call that failed with ``error`` made anyway, or None. A refusal
    (an HTTP 4xx) made none; after a lost connection or a server error the batch is looked
    up, and when even that fails the pending record stays for ``--resume``."""
    if error.status is not None and error.status < 500:
        state.settle(pending.tag, None)
        return None
    pending = state.pending.get(pending.tag, pending)  # with its input file, once noted
    try:
        found = await look_up(api, pending)
    except ProviderError:
        return None
    if found is None:
        state.settle(pending.tag, None)
    return found
