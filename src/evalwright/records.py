"""The base of every value a results file holds (docs/python-api.md#reading-results)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class RecordModel(BaseModel):
    """A value written to (and read back from) a results file: frozen, no unknown keys."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


def _unset(value: object) -> bool:
    return value is None


class ReasoningPart(RecordModel):
    """One part of a model's reasoning, kept apart from its answer (docs/running.md#reasoning):
    an Anthropic ``thinking`` block (its ``signature`` kept: a tool loop sends it back
    unchanged) or ``redacted_thinking`` block (its encrypted ``data``, no text), or a Gemini
    thought summary part (``thought: true``, with its ``thoughtSignature`` when it had one)."""

    text: str
    signature: Annotated[str | None, Field(exclude_if=_unset)] = None
    data: Annotated[str | None, Field(exclude_if=_unset)] = None
    """A ``redacted_thinking`` block's encrypted reasoning (``text`` is then empty)."""
