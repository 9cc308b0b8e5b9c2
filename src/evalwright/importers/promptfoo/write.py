"""Writing an import: the eval file, the targets file, the assertion scripts and the notes
(docs/importing.md#what-is-written)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from evalwright.errors import ConfigError
from evalwright.files.project import display_path
from evalwright.importers.promptfoo.notes import Note

NOTES_FILE = "IMPORT-NOTES.md"
# A string YAML 1.2 reads as a number though YAML 1.1 (PyYAML's writer) does not.
_OCTAL = re.compile(r"[-+]?0o[0-7]+\Z")
# Characters a block scalar (``|``) would read as line breaks: such text is written quoted.
_BREAKS = frozenset("\r\x85\u2028\u2029")


class _Dumper(yaml.SafeDumper):
    """Keeps multi-line text readable (``|``) and quotes what YAML 1.2 would not read as text."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value and not _BREAKS.intersection(value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")  # pyright: ignore[reportUnknownMemberType]
    style = '"' if _OCTAL.match(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)  # pyright: ignore[reportUnknownMemberType]


_Dumper.add_representer(str, _text)


def dump(data: Any) -> str:
    """``data`` as YAML that evalwright reads back exactly."""
    # PyYAML's stubs leave some parameters untyped.
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)  # pyright: ignore[reportUnknownMemberType]


def check_free(paths: list[Path]) -> None:
    """Nothing is overwritten: a :class:`ConfigError` naming the first file that exists."""
    for path in paths:
        if path.exists() or path.is_symlink():
            raise ConfigError(
                f"{display_path(path)} already exists: the import overwrites nothing and wrote "
                "nothing; choose another output directory"
            )


def write(path: Path, text: str) -> Path:
    """Write ``text`` to a new file ``path``, its directories made as needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8", newline="") as handle:
        handle.write(text)
    return path


def copy(source: Path, path: Path) -> Path:
    """Copy a referenced file (an assertion script) into the output."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, path)
    return path


def notes_text(config: str, notes: list[Note], carried: int, total: int) -> str:
    """The notes file: the counts, then one line per item not carried."""
    lines = [
        f"# Import of {config}",
        "",
        f"{carried} of {total} (prompt, test) pairs carried over as evalwright cases.",
        "",
    ]
    if notes:
        lines += ["## Not carried over", ""]
        lines += [f"- {note}" for note in notes]
    else:
        lines.append("Everything was carried over.")
    return "\n".join(lines) + "\n"
