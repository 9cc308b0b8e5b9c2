"""promptfoo tests: read inline or from test files, ``defaultTest`` merged in, list variables
expanded into their cross product as promptfoo expands them (docs/importing.md#tests)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.sources import (
    FILE_PREFIX,
    Source,
    file_path,
    load_yaml,
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


def read_tests(source: Source, notes: Notes) -> list[Test]:
    """Every test of the config, in promptfoo's order."""
    data: dict[str, Any] = source.data if isinstance(source.data, dict) else {}  # pyright: ignore[reportAssignmentType]
    default = data.get("defaultTest") or {}
    if not isinstance(default, dict):
        notes.add(source.shown, "defaultTest", "not carried: only an inline mapping is read")
        default = {}
    if "scenarios" in data:
        notes.add(source.shown, "scenarios", "not carried: scenarios are not imported")
    tests: list[Test] = []
    for file, where, raw in _raw_tests(source, data.get("tests")):
        merged = _merge(default, raw, file, where, notes)  # pyright: ignore[reportUnknownArgumentType]
        try:
            tests.extend(_expand(source, merged, file, where))
        except Uncarried as exc:
            notes.add(file, where, str(exc))
    return tests


def _raw_tests(source: Source, value: Any) -> list[tuple[str, str, dict[str, Any]]]:
    if value is None:
        return [(source.shown, "tests", {})]
    items = value if isinstance(value, list) else [value]
    out: list[tuple[str, str, dict[str, Any]]] = []
    for index, item in enumerate(items):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        if isinstance(item, str):
            path = file_path(source.path.parent, item)
            records = read_records(path)
            out.extend((str(path), f"tests[{n}]", r) for n, r in enumerate(records))
        elif isinstance(item, dict):
            out.append((source.shown, f"tests[{index}]", item))  # pyright: ignore[reportUnknownArgumentType]
        else:
            raise source.fail(("tests", index), "expected a test mapping or a file:// path")
    return out


def _merge(
    default: dict[str, Any], test: dict[str, Any], file: str, where: str, notes: Notes
) -> dict[str, Any]:
    """``defaultTest`` under ``test``: variables, options and metadata key by key, the
    default assertions first."""
    for key in test:
        if key not in _READ:
            notes.add(file, f"{where}.{key}", "not carried: no evalwright equivalent")
    options = {**(default.get("options") or {}), **(test.get("options") or {})}
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
    if suffix in (".json", ".yaml", ".yml"):
        return load_yaml(path).data
    return read_plain(path)
