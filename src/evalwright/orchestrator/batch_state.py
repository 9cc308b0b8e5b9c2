"""The batches a run has submitted and not yet read back, saved next to its results file
(``<results>.batches.json``) as soon as each is created, so that ``--resume`` re-attaches to
them and never submits a request twice (docs/batch.md#resuming).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from evalwright.errors import ConfigError
from evalwright.evalfile.project import display_path
from evalwright.providers.wire import RecordModel
from evalwright.results.index import RowKey

STATE_SUFFIX = ".batches.json"

Phase = Literal["answers", "judges"]
"""What a batch's requests are: the cases' own, or their judges' (docs/batch.md#judges)."""


class SubmittedBatch(RecordModel):
    """One batch in flight: where it went, and which row each of its requests belongs to."""

    target: str
    provider: str
    batch_id: str
    attempt: int
    """Which batch of these requests this is (1, then one more per follow-up batch)."""
    submitted_at: float
    """``time.time()`` when it was created."""
    phase: Phase = "answers"
    requests: dict[str, tuple[str, str, str, int]] = Field(default_factory=dict)
    """An answers batch's: custom_id -> (eval file, case id, target, repeat)."""
    judges: dict[str, str] = Field(default_factory=dict)
    """A judges batch's: custom_id -> the judge request's digest (its target, body and
    repeat), by which a resumed run knows the request again."""


class BatchStateModel(RecordModel):
    """The state file's content."""

    format: Literal["evalwright-batches-v1"] = "evalwright-batches-v1"
    batches: tuple[SubmittedBatch, ...] = ()


def state_path(results: Path) -> Path:
    """Where the batch state of the results file ``results`` is kept."""
    return results.with_name(results.name + STATE_SUFFIX)


class BatchState:
    """The batches in flight of one results file, written through at every change."""

    def __init__(self, path: Path, batches: dict[str, SubmittedBatch]) -> None:
        self.path = path
        self.batches = batches

    @classmethod
    def open(cls, results: Path, resume: bool) -> BatchState:
        """The state of ``results``: read back with ``--resume``; a new run starts empty
        (and replaces what an earlier run there left on its first save)."""
        path = state_path(results)
        if not resume or not path.exists():
            return cls(path, {})
        try:
            model = BatchStateModel.model_validate_json(path.read_bytes())
        except (OSError, ValidationError) as exc:
            problem = exc.strerror if isinstance(exc, OSError) else "not a batch state file"
            raise ConfigError(
                f"cannot read {display_path(path)} for --resume: {problem}; its batches "
                "cannot be re-attached (move it away to submit their requests again)"
            ) from None
        return cls(path, {batch.batch_id: batch for batch in model.batches})

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

    def remove(self, *batch_ids: str) -> None:
        """Forget batches whose rows are all written; the file goes with the last one."""
        found = [self.batches.pop(batch_id, None) for batch_id in batch_ids]
        if any(batch is not None for batch in found):
            self._save()

    def key(self, batch: SubmittedBatch, custom_id: str) -> RowKey | None:
        """The row a request of ``batch`` belongs to."""
        found = batch.requests.get(custom_id)
        return None if found is None else (found[0], found[1], found[2], found[3])

    def _save(self) -> None:
        """Replace the file atomically: a crash leaves the old state or the new, whole."""
        if not self.batches:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
            return
        data = BatchStateModel(batches=tuple(self.batches.values())).model_dump_json(indent=1)
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
