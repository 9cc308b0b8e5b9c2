"""The files an AgentV suite references (file parts of its messages, grader scripts), copied
into the import where the reference, unchanged, finds them (docs/importing.md#from-agentv):
the path the model is shown and the grader's command stay as the author wrote them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalwright.importers.promptfoo.notes import Notes
from evalwright.importers.promptfoo.sources import mapping, sequence
from evalwright.importers.promptfoo.write import copy


@dataclass(slots=True)
class Copier:
    """Copies what a suite in ``suite_dir`` references into the import: a file found beside
    the suite to the same place beside the eval file (``evals``), one found in a directory
    above it (as AgentV searches) to the same place under ``out``, the project root."""

    suite_dir: Path
    evals: Path
    out: Path
    notes: Notes
    copied: list[Path] = field(default_factory=list[Path])

    def __call__(self, reference: str, file: str = "", where: str = "") -> str:
        """The reference to write for ``reference``: unchanged unless its file would land
        outside the output (then a path inside it, noted at ``where`` in ``file``). A
        reference naming no file (a command word, a file missing in the source too) is left
        as it is."""
        for base in self._bases():
            found = base / reference
            if not found.is_file():
                continue
            into = self.evals if base == self.suite_dir else self.out
            target = (into / reference).resolve()
            written = reference
            if not target.is_relative_to(self.out.resolve()):
                written = Path(
                    *(p for p in Path(reference).parts if p not in ("..", "."))
                ).as_posix()
                target = self.out / written
                self.notes.add(
                    file,
                    where,
                    f"file {reference!r} is copied as {written!r}: the model is shown that path",
                )
            if not target.exists():
                self.copied.append(copy(found, target))
            return written
        return reference

    def _bases(self) -> list[Path]:
        """The suite's directory and those above it, up to the project's (``.agentv`` or
        ``.git`` in it)."""
        bases: list[Path] = []
        for directory in (self.suite_dir, *self.suite_dir.resolve().parents):
            bases.append(directory)
            if (directory / ".agentv").is_dir() or (directory / ".git").exists():
                break
        return bases

    def messages(self, messages: list[Any], file: str, where: str) -> list[Any]:
        """``messages`` with the file of each ``{type: file, value}`` part copied."""
        out: list[Any] = []
        for n, message in enumerate(messages):
            fields = mapping(message)
            content = sequence(fields.get("content")) if fields is not None else None
            if fields is None or content is None:
                out.append(message)
                continue
            at = f"{where}[{n}].content"
            parts = [self._part(part, file, f"{at}[{i}]") for i, part in enumerate(content)]
            out.append({**fields, "content": parts})
        return out

    def _part(self, part: Any, file: str, where: str) -> Any:
        fields = mapping(part)
        value = fields.get("value") if fields is not None else None
        if fields is None or fields.get("type") != "file" or not isinstance(value, str):
            return part
        return {**fields, "value": self(value, file, where)}
