"""Human labels for ``evalwright judge-check`` (docs/judges.md#judge-check): a JSON Lines
file, one row per labelled answer; every bad line is a located error."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evalwright.errors import ConfigError, Diagnostic, LoadError
from evalwright.files.project import display_path
from evalwright.files.reading import MAX_EVAL_FILE_BYTES, UnreadableFile, read_limited

# pydantic's (jiter's) words for a line that is not JSON: what is wrong, then where.
_INVALID_JSON = re.compile(r"Invalid JSON: (.+) at line \d+ column (\d+)$")


class Label(BaseModel):
    """One human label: the answer of ``eval_id`` on ``target`` passes or not, or its score
    (``eval_file`` and ``repeat`` pick one row where several match)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, populate_by_name=True)

    eval_id: Annotated[str, Field(min_length=1)]
    target: Annotated[str, Field(min_length=1)]
    passed: bool | None = Field(default=None, alias="pass")
    score: Annotated[float | None, Field(ge=0, le=1, allow_inf_nan=False)] = None
    eval_file: str | None = None
    repeat: Annotated[int | None, Field(ge=0)] = None

    @model_validator(mode="after")
    def _one(self) -> Label:
        if (self.passed is None) == (self.score is None):
            raise ValueError("give exactly one of 'pass' (true or false) and 'score' (0 to 1)")
        return self

    def human_pass(self, pass_mark: float) -> bool:
        """Whether the human passed the answer (a score at the pass mark or above does)."""
        if self.passed is not None:
            return self.passed
        return (self.score or 0.0) >= pass_mark


@dataclass(frozen=True, slots=True)
class LabelLine:
    """A label and the line it was read from."""

    line: int
    label: Label


def read_labels(path: str | os.PathLike[str]) -> list[LabelLine]:
    """Every label of the file; raise :class:`LoadError` listing each bad line."""
    shown = display_path(os.fspath(path))
    try:
        lines = read_limited(path, MAX_EVAL_FILE_BYTES).decode("utf-8").splitlines()
    except (UnreadableFile, UnicodeDecodeError) as exc:
        raise ConfigError(f"{shown}: cannot read the labels: {exc}") from None
    labels: list[LabelLine] = []
    problems: list[Diagnostic] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            labels.append(LabelLine(number, Label.model_validate_json(text)))
        except ValidationError as exc:
            problems.append(_located(shown, number, text, exc))
    if problems:
        raise LoadError(problems)
    if not labels:
        raise LoadError([Diagnostic(shown, 1, 1, "error", "", "the labels file holds no label")])
    return labels


def _located(shown: str, number: int, text: str, exc: ValidationError) -> Diagnostic:
    """The first problem of a line, at its key where it has one."""
    error = exc.errors()[0]
    if error["type"] == "json_invalid":
        found = _INVALID_JSON.match(str(error["msg"]))
        problem, column = (found[1], int(found[2])) if found else ("not a JSON object", 1)
        return Diagnostic(shown, number, column, "error", "", f"invalid JSON: {problem}")
    where = [str(part) for part in error["loc"]]
    field = where[0] if where else ""
    column = text.find(json.dumps(field)) + 1 if field else 1
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = "unknown key"
    return Diagnostic(shown, number, max(column, 1), "error", field, message)
