"""``dataset:`` and ``vars:`` on a case: where a template case's records come from, and how
their fields map to the case (docs/eval-files.md#datasets-and-variables)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue, model_validator

from evalwright.files.base import FileModel, NonEmptyStr, field_error

Format = Literal["openai-evals", "inspect", "mt-bench"]
"""A foreign dataset format read as it is (docs/eval-files.md#foreign-formats)."""


class DatasetSpec(FileModel):
    """Where a template case's records come from: a local file (``path``) or a Hugging Face
    dataset (``hf``), and which fields give the case's id, input and reference answer."""

    path: NonEmptyStr | None = None
    """A CSV, JSONL, JSON or YAML file, relative to the eval file."""
    hf: NonEmptyStr | None = None
    """A Hugging Face dataset: a hub name, or a directory saved by ``datasets``."""
    split: NonEmptyStr | None = None
    revision: NonEmptyStr | None = None
    """The hub revision (a commit), so a run reads the same records every time."""
    config: NonEmptyStr | None = None
    format: Format | None = None
    input: NonEmptyStr | None = None
    """The field holding the input: a string (one user message) or a list of messages."""
    target: NonEmptyStr | None = None
    """The field holding the reference answer: a string, or a list of accepted answers."""
    id: NonEmptyStr | None = None
    """The field holding each case's id (default: ``TEMPLATEID-<record number>``)."""

    @model_validator(mode="after")
    def _check(self) -> DatasetSpec:
        if (self.path is None) == (self.hf is None):
            raise field_error("required", "give 'path' (a file) or 'hf' (a Hugging Face dataset)")
        if self.hf is not None and self.split is None:
            raise field_error("required", "missing required key 'split'", "split")
        if self.path is not None:
            for key in ("split", "revision", "config"):
                if getattr(self, key) is not None:
                    raise field_error("conflict", f"'{key}' is for 'hf' datasets", key)
        return self


class InlineRecords(FileModel):
    """``vars:``: inline records, each a mapping of variable names to values."""

    vars: Annotated[list[dict[str, JsonValue]], Field(min_length=1)]
