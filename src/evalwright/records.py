"""The base of every value a results file holds (docs/python-api.md#reading-results)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RecordModel(BaseModel):
    """A value written to (and read back from) a results file: frozen, no unknown keys."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
