"""What an import could not carry over, item by item (docs/importing.md#what-is-not-carried)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Note:
    """One item of the source that was not carried over (or carried with a change): the file
    it is in, where in that file (``tests[3].assert[1]``) and why."""

    file: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.where}: {self.message}" if self.where else self.message


@dataclass(slots=True)
class Notes:
    """The notes of one import, in the order they were found."""

    items: list[Note] = field(default_factory=list[Note])
    _seen: set[Note] = field(default_factory=set[Note], repr=False)

    def add(self, file: str, where: str, message: str) -> None:
        """Record that ``where`` in ``file`` was not carried over, and why (once: a test's
        assertion is met again with each prompt)."""
        note = Note(file, where, message)
        if note not in self._seen:
            self._seen.add(note)
            self.items.append(note)


class Uncarried(Exception):
    """A prompt, test or setting that cannot become part of an evalwright file; the message
    says why."""
