"""promptfoo tests: read inline or from test files, ``defaultTest`` merged in, list variables
expanded into their cross product as promptfoo expands them (docs/importing.md#tests)."""

from __future__ import annotations

import base64
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalwright.errors import ConfigError
from evalwright.files.project import display_path
from evalwright.importers.promptfoo.media import MediaText
from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.sources import (
    FILE_PREFIX,
    Source,
    as_list,
    file_path,
    load_yaml,
    mapping,
    read_plain,
    read_records,
)

# Test keys the importer reads; any other key is noted as not carried.
_READ = frozenset({"vars", "assert", "description", "metadata", "options"})


@dataclass(frozen=True, slots=True)
class Test:
    """One test after ``defaultTest`` is merged in and its variables are expanded: where it
    came from (``tests[3]``, with ``[2]`` for its third expansion) and its fields."""

    file: str
    where: str
    variables: dict[str, Any]
    asserts: list[Any]
    description: str | None
    metadata: dict[str, Any]
    unread: str | None = None
    """Why the test's variables could not be read: its pairs are counted, not carried."""


def read_tests(source: Source, notes: Notes) -> list[Test]:
    """Every test of the config, in promptfoo's order."""
    data = mapping(source.data) or {}
    default = mapping(data.get("defaultTest") or {})
    if default is None:
        notes.add(source.shown, "defaultTest", "not carried: only an inline mapping is read")
        default = {}
    _check(default, "", lambda key, message: source.fail(("defaultTest", key), message))  # pyright: ignore[reportUnknownArgumentType]
    if "scenarios" in data:
        notes.add(source.shown, "scenarios", "not carried: scenarios are not imported")
    tests: list[Test] = []
    for file, where, raw in _raw_tests(source, data.get("tests")):
        merged = _merge(default, raw, file, where, notes)  # pyright: ignore[reportUnknownArgumentType]
        try:
            tests.extend(_expand(source, merged, file, where))
        except Uncarried as exc:
            # still one pair per prompt in promptfoo's count: the cases report it as not carried
            tests.append(Test(file, where, {}, [], None, {}, str(exc)))
    return tests


def _raw_tests(source: Source, value: Any) -> list[tuple[str, str, dict[str, Any]]]:
    if value is None:
        return [(source.shown, "tests", {})]
    out: list[tuple[str, str, dict[str, Any]]] = []
    for index, item in enumerate(as_list(value)):
        at: tuple[str | int, ...] = ("tests", index) if isinstance(value, list) else ("tests",)
        if isinstance(item, str):
            path = file_path(source.path.parent, item)
            if not path.is_file():
                raise source.fail(at, f"test file not found: {item!r} (looked for {path})")
            records = read_records(path)
            for n, record in enumerate(records):
                _check(record, f"{display_path(path)}: tests[{n}]", None)
            out.extend((display_path(path), f"tests[{n}]", r) for n, r in enumerate(records))
        elif (test := mapping(item)) is not None:
            _check(test, "", lambda key, message, at=at: source.fail((*at, key), message))
            out.append((source.shown, f"tests[{index}]", test))
        else:
            raise source.fail(at, "expected a test mapping or a file:// path")
    return out


_SHAPES: dict[str, tuple[type, str]] = {
    "vars": (dict, "a mapping of variables"),
    "assert": (list, "a list of assertions"),
    "options": (dict, "a mapping"),
    "metadata": (dict, "a mapping"),
}


def _check(
    test: dict[str, Any], where: str, fail: Callable[[str, str], ConfigError] | None
) -> None:
    """A test's keys have the shapes promptfoo reads: a located error otherwise."""
    for key, (kind, expected) in _SHAPES.items():
        value = test.get(key)
        if value is None or isinstance(value, kind):
            continue
        message = f"expected {expected}, got {value!r}"
        if fail is not None:
            raise fail(key, message)
        raise ConfigError(f"{where}.{key}: {message}")


def _merge(
    default: dict[str, Any], test: dict[str, Any], file: str, where: str, notes: Notes
) -> dict[str, Any]:
    """``defaultTest`` under ``test``: variables, options and metadata key by key, the
    default assertions first."""
    for key in test:
        if key not in _READ:
            notes.add(file, f"{where}.{key}", "not carried: no evalwright equivalent")
    options: dict[str, Any] = {**(default.get("options") or {}), **(test.get("options") or {})}
    for key in options:
        notes.add(file, f"{where}.options.{key}", "not carried: no evalwright equivalent")
    merged = {**default, **test}
    for key in ("vars", "options", "metadata"):
        merged[key] = {**(default.get(key) or {}), **(test.get(key) or {})}
    merged["assert"] = [*(default.get("assert") or []), *(test.get("assert") or [])]
    return merged


def _expand(source: Source, test: dict[str, Any], file: str, where: str) -> list[Test]:
    variables = {k: _load_var(source, v) for k, v in test["vars"].items()}
    keys = [k for k, v in variables.items() if isinstance(v, list)]
    combos = list(itertools.product(*(variables[k] for k in keys))) if keys else [()]
    if not combos:
        raise Uncarried("a variable's list of values is empty: the test gives no case")
    tests: list[Test] = []
    for n, combo in enumerate(combos):
        filled = {**variables, **dict(zip(keys, combo, strict=True))}
        at = where if len(combos) == 1 else f"{where}[{n}]"
        description = test.get("description")
        text = str(description) if description is not None else None
        tests.append(Test(file, at, filled, test["assert"], text, test["metadata"]))
    return tests


def _load_var(source: Source, value: Any) -> Any:
    """A variable's value; a ``file://`` value is the file's text (parsed for JSON and YAML)."""
    if isinstance(value, list):
        return [_load_var(source, item) for item in value]  # pyright: ignore[reportUnknownVariableType]
    if not isinstance(value, str) or not value.startswith(FILE_PREFIX):
        return value
    path = file_path(source.path.parent, value)
    suffix = path.suffix.lower()
    if suffix in (".py", ".js", ".ts", ".mjs", ".cjs") or "*" in value:
        raise Uncarried(f"variable {value!r}: scripts and globs as variables are not imported")
    if suffix == ".pdf":
        raise Uncarried(
            f"variable {value!r}: promptfoo sends the text its PDF reader extracts, which the "
            "import cannot extract alike"
        )
    if suffix in _BASE64:
        return _base64(path, value)
    if suffix in (".tif", ".tiff"):
        raise Uncarried(f"variable {value!r}: promptfoo reads a TIFF file as text")
    if suffix in (".json", ".yaml", ".yml"):
        return load_yaml(path).data
    return read_plain(path).strip()  # promptfoo trims a text file's value


def _base64(path: Path, value: str) -> MediaText:
    """An image, audio or video variable: its base64, as promptfoo puts it in the prompt
    (docs/importing.md#media)."""
    if not path.is_file():
        raise Uncarried(f"variable {value!r}: no such file")
    return MediaText(base64.b64encode(path.read_bytes()).decode("ascii"), value)


# promptfoo's image, video and audio extensions: it reads each such file as base64.
_BASE64 = frozenset({
    ".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".svg",
    ".mp4", ".webm", ".ogg", ".mov", ".avi", ".wmv", ".mkv", ".m4v",
    ".wav", ".mp3", ".aac", ".m4a", ".flac", ".wma", ".aiff", ".opus",
})  # fmt: skip
