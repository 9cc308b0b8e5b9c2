"""Reading a promptfoo config and the files it references (``file://`` prompts, test files,
variable files), each mistake reported at its file, line and field (docs/importing.md)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from evalwright.errors import ConfigError, Diagnostic, LoadError
from evalwright.files.diagnostics import Report, format_field
from evalwright.files.project import display_path, read_text, read_yaml
from evalwright.files.source import Positions
from evalwright.jsontext import JsonValue

FILE_PREFIX = "file://"


@dataclass(frozen=True, slots=True)
class Source:
    """A parsed promptfoo YAML file: its data, the positions of its values and its path."""

    path: Path
    data: JsonValue
    positions: Positions

    @property
    def shown(self) -> str:
        """The path as shown in messages."""
        return display_path(self.path)

    def fail(self, where: tuple[str | int, ...], message: str) -> ConfigError:
        """A located error at the value of ``where`` (raise it)."""
        line, col = self.positions.value(where)
        diagnostic = Diagnostic(self.shown, line, col, "error", format_field(where), message)
        return LoadError([diagnostic])


def mapping(value: object) -> dict[str, Any] | None:
    """``value`` as a mapping (YAML's keys here are text), else ``None``."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else None


def as_list(value: object) -> list[Any]:
    """``value`` as a list: a list as it is, any other value as a list of one."""
    return cast("list[Any]", value) if isinstance(value, list) else [value]


def sequence(value: object) -> list[Any] | None:
    """``value`` as a list, else ``None``."""
    return cast("list[Any]", value) if isinstance(value, list) else None


def load_yaml(path: Path) -> Source:
    """A YAML (or JSON) file as a :class:`Source`; a file that does not parse is a
    :class:`LoadError` at its line."""
    report = Report(display_path(path))
    if not path.exists():  # anything else the reader reports (a FIFO, a folder, too large)
        raise ConfigError(f"{display_path(path)}: no such file")
    parsed = read_yaml(path, report)
    report.raise_if_errors()
    assert parsed is not None
    return Source(path, parsed[0], parsed[1])


def file_path(base: Path, reference: str) -> Path:
    """The path a ``file://`` reference names, relative to ``base`` (the config's directory)."""
    return base / reference.removeprefix(FILE_PREFIX)


def read_plain(path: Path) -> str:
    """A referenced text file (UTF-8, LF line ends), or a :class:`ConfigError` naming it."""
    report = Report(display_path(path))
    if not path.exists():  # anything else the reader reports (a FIFO, a folder, too large)
        raise ConfigError(f"{display_path(path)}: no such file")
    text = read_text(path, report)
    report.raise_if_errors()
    assert text is not None
    return text


def read_records(path: Path) -> list[dict[str, JsonValue]]:
    """The tests of a test file: CSV (a header row), JSON or YAML (a list), JSON Lines."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _csv_records(read_plain(path))
    if suffix == ".jsonl":
        return [_json_line(path, n, line) for n, line in _lines(read_plain(path))]
    if suffix == ".json":  # JSON.parse, as promptfoo reads it: YAML refuses JSON's \ud83d
        return _json_records(path)
    source = load_yaml(path)
    if not isinstance(source.data, list):
        raise source.fail((), "expected a list of tests")
    return [_record(path, item) for item in source.data]


def _lines(text: str) -> list[tuple[int, str]]:
    # split on line feeds only: a JSON string may hold U+2028, which splitlines() cuts at
    return [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]


def _json_records(path: Path) -> list[dict[str, JsonValue]]:
    text = read_plain(path)
    try:
        data = json.loads(text)
    except ValueError as exc:
        line, column = (exc.lineno, exc.colno) if isinstance(exc, json.JSONDecodeError) else (1, 1)
        raise _invalid(path, line, column, f"invalid JSON: {exc}") from None
    if not isinstance(data, list):
        raise _invalid(path, 1, 1, "expected a list of tests")
    return [_record(path, item) for item in data]  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]


def _json_line(path: Path, number: int, line: str) -> dict[str, JsonValue]:
    try:
        item = json.loads(line)
    except ValueError as exc:
        raise _invalid(path, number, 1, f"invalid JSON: {exc}") from None
    return _record(path, item)


def _invalid(path: Path, line: int, column: int, message: str) -> LoadError:
    """A test file's content error, located."""
    return LoadError([Diagnostic(display_path(path), line, column, "error", "", message)])


def _record(path: Path, item: JsonValue) -> dict[str, JsonValue]:
    if not isinstance(item, dict):
        raise ConfigError(f"{display_path(path)}: each test must be a mapping, got {item!r}")
    return item


def _csv_records(text: str) -> list[dict[str, JsonValue]]:
    """CSV rows as promptfoo reads them: ``__expected`` columns become assertions, ``__``
    columns are test keys, the others variables."""
    rows = list(csv.DictReader(io.StringIO(text)))
    return [_csv_test(row) for row in rows]


def _csv_test(row: dict[str, str]) -> dict[str, JsonValue]:
    test: dict[str, JsonValue] = {}
    variables: dict[str, JsonValue] = {}
    asserts: list[JsonValue] = []
    metadata: dict[str, JsonValue] = {}
    for key, value in row.items():
        if key.startswith("__expected"):
            if value:
                asserts.append(_expected(value))
        elif key.startswith("__metadata:"):
            metadata[key.removeprefix("__metadata:")] = value
        elif key.startswith("__"):
            test[key.removeprefix("__")] = value
        else:
            variables[key] = value
    test["vars"] = variables
    if asserts:
        test["assert"] = asserts
    if metadata:
        test["metadata"] = metadata
    return test


# promptfoo's `__expected` prefixes, each the assertion type it stands for.
_EXPECTED_PREFIXES = {
    "grade:": "llm-rubric",
    "llm-rubric:": "llm-rubric",
    "python:": "python",
    "fn:": "javascript",
    "eval:": "javascript",
    "javascript:": "javascript",
}


def _expected(value: str) -> JsonValue:
    """One ``__expected`` cell as an assertion: ``type: value``, ``is-json``, or equality."""
    for prefix, kind in _EXPECTED_PREFIXES.items():
        if value.startswith(prefix):
            return {"type": kind, "value": value[len(prefix) :].strip()}
    kind, sep, rest = value.partition(":")
    if sep and kind.removeprefix("not-") in _VALUE_TYPES:
        return {"type": kind, "value": rest.strip()}
    if value.strip().removeprefix("not-") in ("is-json", "is-valid-openai-tools-call"):
        return {"type": value.strip()}
    return {"type": "equals", "value": value}


_VALUE_TYPES = frozenset({
    "contains", "icontains", "contains-any", "contains-all", "icontains-any", "icontains-all",
    "equals", "regex", "starts-with", "similar", "levenshtein", "rouge-n", "bleu", "cost",
    "latency", "perplexity",
})  # fmt: skip
