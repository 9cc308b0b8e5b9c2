"""Judge prompt templates: ``{{name}}`` variables (spaces allowed), ``\\{{`` for a literal."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

TEMPLATE_VARIABLES = (
    "question",
    "expected_outcome",
    "reference_answer",
    "candidate_answer",
    "guidelines",
    "input_messages",
    "expected_messages",
    "diff",
)
_TOKEN = re.compile(r"\\\{\{|\{\{(.*?)\}\}", re.DOTALL)


class TemplateProblem(ValueError):
    """A template names an unknown variable; ``line`` is 1-based within the template."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed template: literal text and variable names, alternating."""

    source: str
    chunks: tuple[tuple[str, str | None], ...]

    @property
    def variables(self) -> tuple[str, ...]:
        """The variables the template uses, in order."""
        return tuple(name for _, name in self.chunks if name)

    def render(self, values: Mapping[str, str]) -> str:
        """Fill the template; every variable it uses must be in ``values``."""
        return "".join(text + (values[name] if name else "") for text, name in self.chunks)


def parse_template(text: str, source: str) -> Template:
    """Parse ``text``; raise :class:`TemplateProblem` for an unknown variable name."""
    chunks: list[tuple[str, str | None]] = []
    literal: list[str] = []
    position = 0
    for match in _TOKEN.finditer(text):
        literal.append(text[position : match.start()])
        position = match.end()
        if match.group(0) == "\\{{":
            literal.append("{{")
            continue
        name = match.group(1).strip()
        if name not in TEMPLATE_VARIABLES:
            line = text.count("\n", 0, match.start()) + 1
            raise TemplateProblem(
                f"unknown template variable {{{{{name}}}}} (known: "
                f"{', '.join(TEMPLATE_VARIABLES)})",
                line,
            )
        chunks.append(("".join(literal), name))
        literal = []
    literal.append(text[position:])
    chunks.append(("".join(literal), None))
    return Template(source, tuple(chunks))
