"""``${{ NAME }}`` variables: the process environment first, then ``<project root>/.env``."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from evalwright.errors import ConfigError
from evalwright.files.reading import UnreadableFile, read_limited

VARIABLE = re.compile(r"\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
DOTENV_MAX_BYTES = 1024 * 1024
_ASSIGNMENT = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")


class UnsetVariable(KeyError):
    """A ``${{ NAME }}`` whose variable is set nowhere."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def variables_in(text: str) -> Iterator[str]:
    """The names of the variables ``text`` uses."""
    return (match.group(1) for match in VARIABLE.finditer(text))


def substitute(text: str, lookup: Mapping[str, str]) -> str:
    """Replace every ``${{ NAME }}`` in ``text``; raise :class:`UnsetVariable` for a missing one."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in lookup:
            raise UnsetVariable(name)
        return lookup[name]

    return VARIABLE.sub(replace, text)


def read_dotenv(path: Path) -> dict[str, str]:
    """Parse a ``.env`` file: ``NAME=value`` lines, ``export`` allowed, ``#`` comments, quotes."""
    values: dict[str, str] = {}
    if not os.path.lexists(path):
        return values
    try:
        text = read_limited(path, DOTENV_MAX_BYTES).decode("utf-8-sig", errors="replace")
    except UnreadableFile as exc:
        raise ConfigError(f"{path}: {exc}") from None
    for line in text.splitlines():
        match = _ASSIGNMENT.fullmatch(line)
        if not match or line.lstrip().startswith("#"):
            continue
        values[match.group(1)] = _unquote(match.group(2).strip())
    return values


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        return inner.replace("\\n", "\n").replace('\\"', '"') if value[0] == '"' else inner
    return re.sub(r"\s+#.*$", "", value)


class Environment(Mapping[str, str]):
    """The process environment, falling back to ``<root>/.env`` (read once, when first needed)."""

    def __init__(self, root: Path, environ: Mapping[str, str] | None = None) -> None:
        self._environ = os.environ if environ is None else environ
        self._dotenv_path = root / ".env"
        self._dotenv: dict[str, str] | None = None

    @property
    def process(self) -> Mapping[str, str]:
        """The process environment alone, without ``.env``."""
        return self._environ

    @property
    def dotenv(self) -> dict[str, str]:
        """The values of the project's ``.env`` file (empty when there is none)."""
        if self._dotenv is None:
            self._dotenv = read_dotenv(self._dotenv_path)
        return self._dotenv

    def __getitem__(self, name: str) -> str:
        if name in self._environ:
            return self._environ[name]
        return self.dotenv[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._environ
        yield from (name for name in self.dotenv if name not in self._environ)

    def __len__(self) -> int:
        return sum(1 for _ in self)
