"""promptfoo tests: read inline or from test files, ``defaultTest`` merged in, list variables
expanded into their cross product as promptfoo expands them (docs/importing.md#tests)."""

from __future__ import annotations

import base64
import glob
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from evalwright.errors import ConfigError
from evalwright.files.diagnostics import format_field
from evalwright.files.project import display_path
from evalwright.importers.promptfoo.media import MediaText
from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.scripts import Failed, Script, run, script_of
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
from evalwright.importers.promptfoo.transforms import transformed

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
    for file, where, raw in _raw_tests(source, data.get("tests"), notes):
        if isinstance(raw, str):  # a generator that did not run: one test in the count
            tests.append(Test(file, where, {}, [], None, {}, raw))
            continue
        merged = _merge(default, raw, file, where, notes)  # pyright: ignore[reportUnknownArgumentType]
        try:
            merged = _transform(source, merged, (file, where), notes)
            tests.extend(_expand(source, merged, file, where))
        except Uncarried as exc:
            # still one pair per prompt in promptfoo's count: the cases report it as not carried
            tests.append(Test(file, where, {}, [], None, {}, str(exc)))
    return tests


_Raw = tuple[str, str, dict[str, Any] | str]
"""A test as read: its file, its place and its fields (or why its generator did not run)."""


def _raw_tests(source: Source, value: Any, notes: Notes) -> list[_Raw]:
    if value is None:
        return [(source.shown, "tests", {})]
    out: list[_Raw] = []
    for index, item in enumerate(as_list(value)):
        at: tuple[str | int, ...] = ("tests", index) if isinstance(value, list) else ("tests",)
        given = mapping(item)
        reference = given.get("path") if given is not None else item
        if isinstance(reference, str) and script_of(source.path.parent, reference):
            config = given.get("config") if given is not None else None
            out.extend(_generated(source, reference, config, format_field(at), notes))
        elif isinstance(item, str):
            paths = _test_files(source.path.parent, item)
            if not paths:
                path = file_path(source.path.parent, item)
                raise source.fail(at, f"test file not found: {item!r} (looked for {path})")
            for path in paths:
                records = [_var_files(r, path.parent) for r in read_records(path)]
                for n, record in enumerate(records):
                    _check(record, f"{display_path(path)}: tests[{n}]", None)
                out.extend((display_path(path), f"tests[{n}]", r) for n, r in enumerate(records))
        elif (test := mapping(item)) is not None:
            test = _var_files(test, source.path.parent)
            _check(test, "", lambda key, message, at=at: source.fail((*at, key), message))
            out.append((source.shown, f"tests[{index}]", test))
        else:
            raise source.fail(at, "expected a test mapping or a file:// path")
    return out


def _test_files(base: Path, reference: str) -> list[Path]:
    """The test files a reference names: a glob's matches in the order promptfoo's glob
    lists them (names descending)."""
    path = file_path(base, reference)
    if "*" not in reference:
        return [path] if path.is_file() else []
    return [Path(f) for f in sorted(glob.glob(str(path), recursive=True), reverse=True)]


def _var_files(test: dict[str, Any], base: Path) -> dict[str, Any]:
    """A test whose ``vars`` names files (a path, a glob or a list of them) with the
    variables of those YAML files merged, as promptfoo reads them beside the test's file."""
    given: Any = test.get("vars")
    patterns = as_list(given)
    if not isinstance(given, str | list) or not all(isinstance(v, str) for v in patterns):
        return test
    variables: dict[str, Any] = {}
    for pattern in patterns:
        found = sorted(glob.glob(str(base / str(pattern)), recursive=True), reverse=True)
        for name in found:
            variables.update(mapping(load_yaml(Path(name)).data) or {})
    return {**test, "vars": variables}


_SHAPES: dict[str, tuple[type, str]] = {
    "vars": (dict, "a mapping of variables"),
    "assert": (list, "a list of assertions"),
    "options": (dict, "a mapping"),
    "metadata": (dict, "a mapping"),
}


def _generated(source: Source, reference: str, config: Any, where: str, notes: Notes) -> list[_Raw]:
    """The tests a JavaScript or Python generator returns, run now as promptfoo runs it
    (``config`` its argument); one that does not run is one test not carried."""
    script = script_of(source.path.parent, reference)
    assert script is not None
    try:
        args = [config] if config is not None else []  # promptfoo passes none when unset
        found = run(script, [args], data=True)
        records = found[0]
        if isinstance(records, Failed):
            raise Uncarried(f"{script.shown} failed: {records.why}")
        if not isinstance(records, list):
            raise Uncarried(
                f"{script.shown} returned {type(records).__name__}, not a list of tests"
            )
    except Uncarried as exc:
        notes.add(source.shown, where, f"test generator not run: {exc}")
        return [(source.shown, where, str(exc))]
    notes.add(source.shown, where, f"tests generated at import time by running {script.shown}")
    out: list[_Raw] = []
    for n, record in enumerate(cast("list[Any]", records)):
        test = mapping(record)
        if test is None:
            raise ConfigError(f"{script.shown}: test {n} is not a mapping: {record!r}")
        _check(test, f"{script.shown}: tests[{n}]", None)
        out.append((display_path(script.path), f"tests[{n}]", test))
    return out


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
    for key in sorted(set(options) - {"transformVars"}):
        notes.add(file, f"{where}.options.{key}", "not carried: no evalwright equivalent")
    merged = {**default, **test}
    for key in ("vars", "options", "metadata"):
        merged[key] = {**(default.get(key) or {}), **(test.get(key) or {})}
    merged["assert"] = [*(default.get("assert") or []), *(test.get("assert") or [])]
    return merged


def _transform(
    source: Source, test: dict[str, Any], at: tuple[str, str], notes: Notes
) -> dict[str, Any]:
    """The test with its ``transformVars`` (its own, else ``defaultTest``'s) run now."""
    code = test["options"].get("transformVars")
    if code is None:
        return test
    file, where = at
    if not isinstance(code, str):
        raise Uncarried(f"options.transformVars {code!r} is not code")
    try:
        variables = transformed(code, test["vars"], source.path.parent)
    except Uncarried as exc:
        notes.add(file, f"{where}.options.transformVars", f"not run: {exc}")
        raise
    message = "run at import time: its values (context.uuid too) are fixed in the eval file"
    notes.add(file, f"{where}.options.transformVars", message)
    return {**test, "vars": variables}


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
    """A variable's value; a ``file://`` value is the file's text (parsed for JSON and YAML),
    a glob the list of its files' values, a script a :class:`ScriptVariable` run per pair."""
    if isinstance(value, list):
        return [_load_var(source, item) for item in value]  # pyright: ignore[reportUnknownVariableType]
    if not isinstance(value, str) or not value.startswith(FILE_PREFIX):
        return value
    if "*" in value:
        return _globbed_var(source, value)
    script = script_of(source.path.parent, value)
    if script is not None:
        return ScriptVariable(value, script)
    path = file_path(source.path.parent, value)
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        raise Uncarried(
            f"variable {value!r}: promptfoo sends the text its PDF reader extracts, which the "
            "import cannot extract alike"
        )
    if suffix in _BASE64:
        return _base64(path, value)
    if suffix in (".tif", ".tiff"):
        raise Uncarried(f"variable {value!r}: promptfoo reads a TIFF file as text")
    if suffix in (".yaml", ".yml"):  # promptfoo sends a YAML file's data as JSON text
        return json.dumps(load_yaml(path).data, ensure_ascii=False, separators=(",", ":"))
    if suffix == ".json":
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


def _globbed_var(source: Source, value: str) -> list[Any]:
    """Each file a variable's glob matches, in the order promptfoo's glob lists them (names
    descending): one combination of variables each, as promptfoo's evaluator expands it."""
    base = source.path.parent
    found = sorted(glob.glob(str(file_path(base, value)), recursive=True), reverse=True)
    files = [Path(f).relative_to(base).as_posix() for f in found if Path(f).is_file()]
    if not files:
        raise Uncarried(f"variable {value!r}: no file matches")
    return [_load_var(source, FILE_PREFIX + name) for name in files]


@dataclass(frozen=True, slots=True)
class ScriptVariable:
    """A variable whose value a script gives for each (prompt, test) pair, as promptfoo
    runs it when it renders the prompt (``get_var`` in Python, the default export in
    JavaScript)."""

    reference: str
    script: Script

    def __str__(self) -> str:
        raise Uncarried(f"variable {self.reference!r}: a script's value is read per pair")
