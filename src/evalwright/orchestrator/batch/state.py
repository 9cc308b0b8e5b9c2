"""The batches a run has submitted and not yet read back, saved next to its results file
(``<results>.batches.json``) as soon as each is created, so that ``--resume`` re-attaches to
them and never submits a request twice (docs/batch.md#resuming). Like every file a run
writes, it is redacted (docs/targets.md#credentials-and-redaction).

A batch is recorded twice: as a *pending submission* before the create call goes out (with the
tag the batch carries), and as a submitted batch once its id is known. A run killed between
the two leaves the pending record, which ``--resume`` resolves by looking the tag up.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal, cast

from pydantic import Field, ValidationError, model_validator

from evalwright.errors import ConfigError
from evalwright.files.project import display_path
from evalwright.records import RecordModel
from evalwright.results.index import RowKey

STATE_SUFFIX = ".batches.json"

Phase = Literal["answers", "judges"]
"""What a batch's requests are: the cases' own, or their judges' (docs/batch.md#judges)."""


class BatchRequests(RecordModel):
    """What a batch carries: its target, which of its batches this is, and which row (or
    judge request) each of its requests belongs to."""

    target: str
    provider: str
    attempt: int
    """Which batch of these requests this is (1, then one more per follow-up batch)."""
    phase: Phase = "answers"
    requests: dict[str, tuple[str, str, str, int]] = Field(default_factory=dict)
    """An answers batch's: custom_id -> (eval file, case id, target, repeat)."""
    judges: dict[str, str] = Field(default_factory=dict)
    """A judges batch's: custom_id -> the judge request's digest (its target, body and
    repeat), by which a resumed run knows the request again."""
    sent: dict[str, str] = Field(default_factory=dict)
    """An answers batch's: custom_id -> the SHA-256 of the body sent, by which a resumed run
    knows whether the case still builds that request (none in a file of an earlier
    release)."""


class SubmittedBatch(BatchRequests):
    """One batch in flight: where it went, and what it carries."""

    batch_id: str
    submitted_at: float
    """``time.time()`` when it was created."""


class PendingSubmission(BatchRequests):
    """A batch about to be created: what lets ``--resume`` find it if the run dies before
    the create call answers."""

    tag: str
    """The unique tag the batch carries (in its metadata, name or custom_ids)."""
    pending_at: float
    """``time.time()`` when the submission was recorded, before anything was sent."""
    create_sent_at: float | None = None
    """``time.time()`` just before the create call went out; None: it never did, so there is
    no batch to look for."""
    input_file_id: str | None = None
    """OpenAI and Azure: the uploaded input file the batch is created on, once known."""

    @model_validator(mode="before")
    @classmethod
    def _earlier_release(cls, data: object) -> object:
        """A state file of an earlier release does not say whether the create call went out:
        it is taken to have gone out when the submission was recorded."""
        if not isinstance(data, dict):
            return data
        record = cast(dict[str, object], data)
        if "create_sent_at" in record:
            return record
        return {**record, "create_sent_at": record.get("pending_at")}


class BatchStateModel(RecordModel):
    """The state file's content."""

    format: Literal["evalwright-batches-v1"] = "evalwright-batches-v1"
    batches: tuple[SubmittedBatch, ...] = ()
    pending: tuple[PendingSubmission, ...] = ()


def state_path(results: Path) -> Path:
    """Where the batch state of the results file ``results`` is kept."""
    return results.with_name(results.name + STATE_SUFFIX)


class BatchState:
    """The batches in flight of one results file, written through at every change."""

    def __init__(
        self,
        path: Path,
        redact: Callable[[str], str],
        batches: dict[str, SubmittedBatch],
        pending: dict[str, PendingSubmission] | None = None,
    ) -> None:
        self.path = path
        self.batches = batches
        self.pending: dict[str, PendingSubmission] = {} if pending is None else pending
        self.redact = redact

    @classmethod
    def open(cls, results: Path, resume: bool, redact: Callable[[str], str]) -> BatchState:
        """The state of ``results``: read back with ``--resume``; a new run starts empty
        (and replaces what an earlier run there left on its first save). ``redact`` is
        applied to what is saved."""
        path = state_path(results)
        if not resume or not path.exists():
            return cls(path, redact, {})
        try:
            model = BatchStateModel.model_validate_json(path.read_bytes())
        except (OSError, ValidationError) as exc:
            problem = exc.strerror if isinstance(exc, OSError) else "not a batch state file"
            raise ConfigError(
                f"cannot read {display_path(path)} for --resume: {problem}; its batches "
                "cannot be re-attached (move it away to submit their requests again)"
            ) from None
        pending = {entry.tag: entry for entry in model.pending}
        batches = {batch.batch_id: batch for batch in model.batches}
        return cls(path, redact, batches, pending)

    def of_target(self, target: str, phase: Phase = "answers") -> list[SubmittedBatch]:
        """The batches of ``phase`` in flight for ``target``, oldest first."""
        return [b for b in self.batches.values() if b.target == target and b.phase == phase]

    def of_phase(self, phase: Phase) -> list[SubmittedBatch]:
        """The batches of ``phase`` in flight, oldest first."""
        return [batch for batch in self.batches.values() if batch.phase == phase]

    def add(self, batch: SubmittedBatch) -> None:
        """Record a created batch, on disk before anything else happens."""
        self.batches[batch.batch_id] = batch
        self._save()

    def pending_of(self, target: str, phase: Phase = "answers") -> list[PendingSubmission]:
        """The submissions of ``phase`` to ``target`` whose create call never answered,
        oldest first."""
        return [p for p in self.pending.values() if p.target == target and p.phase == phase]

    def begin(self, pending: PendingSubmission) -> None:
        """Record a batch about to be created, on disk before the create call goes out."""
        self.pending[pending.tag] = pending
        self._save()

    def creating(self, tag: str, file_id: str | None, sent: Mapping[str, str]) -> None:
        """Record that a pending batch's create call is going out now (on the input file
        ``file_id``, if any; ``sent``: the digests of the bodies it carries), on disk before
        it does."""
        entry = self.pending.get(tag)
        if entry is not None:
            going = {"create_sent_at": time.time(), "input_file_id": file_id, "sent": dict(sent)}
            self.pending[tag] = entry.model_copy(update=going)
            self._save()

    def settle(self, tag: str, batch: SubmittedBatch | None) -> None:
        """Replace a pending submission by the batch it created (None: it created none), in
        one write."""
        self.pending.pop(tag, None)
        if batch is not None:
            self.batches[batch.batch_id] = batch
        self._save()

    def remove(self, *batch_ids: str) -> None:
        """Forget batches whose rows are all written; the file goes with the last one."""
        found = [self.batches.pop(batch_id, None) for batch_id in batch_ids]
        if any(batch is not None for batch in found):
            self._save()

    def settle_read(self, read: Mapping[str, frozenset[str]], keep_answers: bool) -> None:
        """The run's rows are written: forget the batches ``read`` (batch id to the custom_ids
        it answered). With ``keep_answers`` (some rows are errors, which ``--resume`` runs
        again) each keeps the requests it answered, so that their answers are taken from it
        again rather than paid for twice; those it did not answer are forgotten, to be sent
        again."""
        changed = False
        for batch_id, answered in read.items():
            batch = self.batches.pop(batch_id, None)
            changed = changed or batch is not None
            if batch is None or not keep_answers or not answered:
                continue
            trimmed = {
                "requests": {c: r for c, r in batch.requests.items() if c in answered},
                "judges": {c: d for c, d in batch.judges.items() if c in answered},
                "sent": {c: d for c, d in batch.sent.items() if c in answered},
            }
            self.batches[batch_id] = batch.model_copy(update=trimmed)
        if changed:
            self._save()

    def key(self, batch: SubmittedBatch, custom_id: str) -> RowKey | None:
        """The row a request of ``batch`` belongs to."""
        found = batch.requests.get(custom_id)
        # A batched case has no prompt variant (``batchable``), so its key's is None.
        return None if found is None else (found[0], found[1], found[2], found[3], None)

    def _save(self) -> None:
        """Replace the file atomically: a crash leaves the old state or the new, whole."""
        if not self.batches and not self.pending:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
            return
        model = BatchStateModel(
            batches=tuple(self.batches.values()), pending=tuple(self.pending.values())
        )
        data = self.redact(model.model_dump_json(indent=1))
        handle, temporary = tempfile.mkstemp(prefix=self.path.name, dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
