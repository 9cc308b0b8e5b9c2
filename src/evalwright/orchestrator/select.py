"""Which cases a run (or ``prompt``) selects: ``--eval-id`` globs, ``--tag`` and
``--skip-tag`` (docs/running.md#selecting-cases)."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass

from evalwright.evalfile.resolved import LoadedCase


@dataclass(frozen=True, slots=True)
class Selection:
    """A case is selected when its id matches any ``eval_ids`` glob (or there are none), it
    has any of ``tags`` (or there are none), and it has none of ``skip_tags``."""

    eval_ids: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    skip_tags: tuple[str, ...] = ()

    def matches(self, case: LoadedCase) -> bool:
        """Whether ``case`` is selected."""
        if self.eval_ids and not any(fnmatch.fnmatchcase(case.id, g) for g in self.eval_ids):
            return False
        if self.tags and not any(tag in case.tags for tag in self.tags):
            return False
        return not any(tag in case.tags for tag in self.skip_tags)

    @property
    def narrowed(self) -> bool:
        """Whether it may leave cases out."""
        return bool(self.eval_ids or self.tags or self.skip_tags)

    def describe(self) -> str:
        """The options as given, for messages: ``--eval-id 'a*' --tag 'billing'``."""
        given = [
            *(f"--eval-id {glob!r}" for glob in self.eval_ids),
            *(f"--tag {tag!r}" for tag in self.tags),
            *(f"--skip-tag {tag!r}" for tag in self.skip_tags),
        ]
        return " ".join(given)


def selection_of(
    eval_ids: Sequence[str], tags: Sequence[str], skip_tags: Sequence[str]
) -> Selection:
    """A :class:`Selection` from the options' lists."""
    return Selection(tuple(eval_ids), tuple(tags), tuple(skip_tags))
