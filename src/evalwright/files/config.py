"""``.evalwright/config.yaml``, the project config
(docs/eval-files.md#the-project-root-and-evalwrightconfigyaml)."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from evalwright.files.base import FileModel, field_error
from evalwright.files.globs import GlobSet
from evalwright.limits import MAX_REPEAT

DEFAULT_GUIDELINE_PATTERNS = ("**/*.instructions.md",)
DEFAULT_MAX_FILE_BYTES = 1024 * 1024
Repeat = Annotated[int, Field(ge=1, le=MAX_REPEAT)]
"""``repeat:`` on a case or in the config: how many times each (case, target) runs
(docs/running.md#repeats-and-reliability)."""


def _glob(value: str) -> str:
    try:
        GlobSet([value])
    except re.error as exc:
        raise field_error("pattern", f"invalid pattern {value!r}: {exc.msg}") from None
    return value


class ProjectConfig(FileModel):
    """``.evalwright/config.yaml``: project-wide settings."""

    schema_: Literal["evalwright-config-v1", "agentv-config-v2"] | None = Field(
        default=None, alias="$schema"
    )
    guideline_patterns: list[Annotated[str, AfterValidator(_glob)]] = Field(
        default_factory=lambda: list(DEFAULT_GUIDELINE_PATTERNS)
    )
    max_file_bytes: Annotated[int, Field(gt=0)] = DEFAULT_MAX_FILE_BYTES
    cache: bool = False
    repeat: Repeat | None = None
    """How many times each case runs on each target when neither the case nor ``--repeat``
    says (docs/running.md#repeats-and-reliability)."""
