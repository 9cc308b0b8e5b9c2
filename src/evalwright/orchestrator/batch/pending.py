"""Submitting a batch so that a run killed mid-submit never sends its requests twice
(docs/batch.md#resuming).

Before the create call goes out, the state file records a pending submission: a fresh tag the
batch carries, and which row each request belongs to. When the create call answers, the
pending record becomes the submitted batch; when it does not (the run was killed, or the call
failed in a way that leaves it unknown whether the batch exists), the batch is looked up by its
tag, again and again until the API must list it (a batch may show in the list some time after
it was made), and only a batch the API does not have by then is submitted again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import uuid

from evalwright.errors import ProviderError
from evalwright.orchestrator.batch.state import (
    BatchRequests,
    BatchState,
    PendingSubmission,
    SubmittedBatch,
)
from evalwright.providers import batching
from evalwright.providers.batching import BatchApi
from evalwright.results.index import RowKey

logger = logging.getLogger(__name__)

LOOK_AGAIN = 5.0
"""Seconds between two looks for a pending submission's batch the API does not list yet
(tests lower it; not a setting)."""


def new_tag() -> str:
    """A submission's tag: unique, and short enough for Anthropic's custom_ids with an index
    (``^[a-zA-Z0-9_-]{1,64}$``)."""
    return uuid.uuid4().hex


def body_digest(body: bytes) -> str:
    """What the state file records of a request body sent in an answers batch."""
    return hashlib.sha256(body).hexdigest()


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
        create_sent_at=None,  # said outright: a record without it is taken to have gone out
        phase="judges" if any(isinstance(e, str) for e in entries.values()) else "answers",
        # A batched row has no variant (``batchable``): its saved key is the first four.
        requests={c: e[:4] for c, e in entries.items() if not isinstance(e, str)},
        judges={c: e for c, e in entries.items() if isinstance(e, str)},
    )


def submitted_from(pending: PendingSubmission, batch_id: str, at: float) -> SubmittedBatch:
    """The submitted batch a pending submission created."""
    carried = {name: getattr(pending, name) for name in BatchRequests.model_fields}
    return SubmittedBatch(**carried, batch_id=batch_id, submitted_at=at)


def listed_by(pending: PendingSubmission) -> float | None:
    """When (``time.time()``) the API lists the batch ``pending`` made, if it made one: its
    create call reached the API before now (the call is over, or the run that sent it is
    gone) and within ``CREATE_TIMEOUT`` of going out, and the batch is listed ``LIST_LAG``
    after that. None: the create call never went out, so there is no batch."""
    if pending.create_sent_at is None:
        return None
    reached = min(time.time(), pending.create_sent_at + batching.CREATE_TIMEOUT)
    return reached + batching.LIST_LAG


async def look_up(api: BatchApi, pending: PendingSubmission) -> str | None:
    """The id of the batch ``pending`` created, looked for again every ``LOOK_AGAIN``
    seconds until the API must list it (:func:`listed_by`); None when it has none then.
    Raises ProviderError when the API cannot be asked."""
    deadline = listed_by(pending)
    if deadline is None:
        return None
    count = len(pending.requests) + len(pending.judges)
    looks = 0
    while True:
        found = await api.find(pending.tag, pending.pending_at, count, pending.input_file_id)
        left = deadline - time.time()
        if found is not None or left <= 0:
            return found
        looks += 1
        if looks == 1:  # the run pauses: say why, once
            logger.warning(
                "the batch tagged %s is not listed by %s (yet): looking for it again for up "
                "to %.0f s before its requests are sent again",
                pending.tag,
                api.where,
                left,
            )
        await asyncio.sleep(min(LOOK_AGAIN, left))


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
    pending = state.pending.get(pending.tag, pending)  # as recorded when the call went out
    try:
        found = await look_up(api, pending)
    except ProviderError:
        return None
    if found is None:
        state.settle(pending.tag, None)
    return found
