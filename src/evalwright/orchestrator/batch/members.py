"""A request in a batch (docs/batch.md): what the engine needs of it, and what it does when
the request is sent, answered, refused or given up."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from evalwright.errors import ProviderError
from evalwright.orchestrator.batch import pending as batch_pending
from evalwright.orchestrator.budget import Charge
from evalwright.providers.batching import LineResult
from evalwright.results.index import RowKey


class Member(Protocol):
    """One request in a batch, and what its answer is for."""

    attempts: int
    """Batches that carried it so far."""
    charge: Charge | None
    """Its reservation in the run's budget while its batch runs (None: not sent by this
    run)."""

    @property
    def entry(self) -> RowKey | str:
        """What the state file records of it: the row it answers, or a judge request's
        digest."""
        ...

    def body(self) -> bytes | None:
        """Its wire body, the JSON bytes a live request sends; None when this run does not
        know it (a re-attached request no case has asked for yet): it cannot be sent again."""
        ...

    async def answered(self, line: LineResult, latency_ms: float) -> None:
        """Its batch answered it (an HTTP status below 400)."""
        ...

    async def failed(self, error: ProviderError) -> None:
        """It has no answer, and will not be sent again."""
        ...


def bodies(members: dict[str, Member], sent: dict[str, str]) -> Iterator[tuple[str, bytes]]:
    """Each member's custom_id and body, as the batch is written; the digest of each case's
    body goes in ``sent`` (a judge request's entry is its digest already)."""
    for custom_id, member in members.items():
        body = member.body() or b"{}"
        if not isinstance(member.entry, str):
            sent[custom_id] = batch_pending.body_digest(body)
        yield custom_id, body


async def fail(member: Member, error: ProviderError) -> None:
    """Tell ``member`` it has no answer; its reservation is settled as a failure."""
    error.attempts = max(member.attempts, 1)
    if member.charge is not None:
        member.charge.fail(error)
    await member.failed(error)


def release(member: Member) -> None:
    """Give back ``member``'s reservation: it was not billed."""
    if member.charge is not None:
        member.charge.release()
