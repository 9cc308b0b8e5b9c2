"""A dataset's records, read lazily: CSV and JSONL line by line, JSON and YAML whole, a
Hugging Face dataset through the optional ``datasets`` package
(docs/eval-files.md#datasets-and-variables).

A malformed record is yielded as a :class:`RecordProblem` located in the dataset file, so the
caller reports it and goes on with the next record.
"""

from __future__ import annotations

import codecs
import csv
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

from evalwright import jsontext
from evalwright.evalfile.dataset_spec import DatasetSpec
from evalwright.files.diagnostics import Report
from evalwright.files.project import display_path
from evalwright.files.reading import (
    MAX_EVAL_FILE_BYTES,
    MAX_JSONL_LINE_BYTES,
    UnreadableFile,
    open_regular,
    read_limited,
)
from evalwright.files.source import parse
from evalwright.files.validation import type_name
from evalwright.jsontext import JsonObject, JsonValue

DATASET_SUFFIXES = (".csv", ".jsonl", ".json", ".yaml", ".yml")
INSTALL_HINT = "pip install 'evalwright[datasets]'"


@dataclass(frozen=True, slots=True)
class Record:
    """One record: its number (from 1) and the line it starts on (0 when it has none)."""

    number: int
    line: int
    data: JsonObject


@dataclass(frozen=True, slots=True)
class RecordProblem:
    """A record that could not be read: where, and why."""

    path: str
    line: int
    message: str


class DatasetUnavailable(Exception):
    """The dataset cannot be read at all; the message says why."""


def read_records(spec: DatasetSpec, where: str) -> Iterator[Record | RecordProblem]:
    """The records of the dataset at the real path ``where`` (``spec.path``), or of the
    Hugging Face dataset ``where`` names (a local directory or a hub name)."""
    if spec.hf is not None:
        return _hf_records(spec, where)
    suffix = os.path.splitext(where)[1].lower()
    if suffix == ".csv":
        return _csv_records(where)
    if suffix == ".jsonl":
        return _jsonl_records(where)
    if suffix in (".json", ".yaml", ".yml"):
        return _whole_records(where)
    shown = ", ".join(DATASET_SUFFIXES)
    raise DatasetUnavailable(f"not a dataset file: expected one of {shown}")


def _lines(path: str) -> Iterator[tuple[int, str]]:
    """Numbered UTF-8 lines, each with its line end, none longer than the limit."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    try:
        with open_regular(path) as handle:
            number = 0
            while raw := handle.readline(MAX_JSONL_LINE_BYTES + 1):
                number += 1
                if len(raw) > MAX_JSONL_LINE_BYTES:
                    raise DatasetUnavailable(
                        f"line {number} is longer than {MAX_JSONL_LINE_BYTES} bytes"
                    )
                try:
                    yield number, decoder.decode(raw)
                except UnicodeDecodeError:
                    raise DatasetUnavailable(f"line {number} is not valid UTF-8") from None
    except (OSError, UnreadableFile) as exc:
        raise DatasetUnavailable(f"cannot read the dataset: {exc}") from None


def _jsonl_records(path: str) -> Iterator[Record | RecordProblem]:
    shown = display_path(path)
    number = 0
    for line_number, line in _lines(path):
        if not line.strip():
            continue
        number += 1
        try:
            data = jsontext.loads(line)
        except json.JSONDecodeError as exc:
            message = f"invalid JSON at column {exc.colno}: {exc.msg}"
            yield RecordProblem(shown, line_number, message)
            continue
        except ValueError as exc:
            yield RecordProblem(shown, line_number, f"invalid JSON: {exc}")
            continue
        if not isinstance(data, dict):
            yield RecordProblem(
                shown, line_number, f"expected a JSON object, got {type_name(data)}"
            )
            continue
        yield Record(number, line_number, data)


def _csv_records(path: str) -> Iterator[Record | RecordProblem]:
    """A CSV file's rows after its header row, each a mapping of column names to strings."""
    shown = display_path(path)
    numbered = _lines(path)
    current = [0]

    def lines() -> Iterator[str]:
        for line_number, line in numbered:
            current[0] = line_number
            yield line

    reader = csv.reader(lines(), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            yield RecordProblem(shown, 1, "the CSV file is empty: expected a header row")
            return
        number = 0
        start = current[0] + 1
        for row in reader:
            if row:  # a blank line is no record
                number += 1
                yield _csv_record(shown, header, row, number, start)
            start = current[0] + 1
    except csv.Error as exc:
        yield RecordProblem(shown, current[0], f"malformed CSV: {exc}")


def _csv_record(
    shown: str, header: list[str], row: list[str], number: int, line: int
) -> Record | RecordProblem:
    if len(row) != len(header):
        message = f"expected {len(header)} fields (the header's), got {len(row)}"
        return RecordProblem(shown, line, message)
    return Record(number, line, dict(zip(header, cast(list[JsonValue], row), strict=True)))


def _whole_records(path: str) -> Iterator[Record | RecordProblem]:
    """A JSON or YAML file holding a list of mappings, read whole."""
    shown = display_path(path)
    try:
        text = read_limited(path, MAX_EVAL_FILE_BYTES).decode("utf-8-sig")
    except UnreadableFile as exc:
        raise DatasetUnavailable(str(exc)) from None
    except UnicodeDecodeError:
        raise DatasetUnavailable("the dataset is not valid UTF-8") from None
    report = Report(shown)
    parsed = parse(text, report, large=True)
    for problem in report.errors:
        yield RecordProblem(shown, problem.line, problem.message)
    if parsed is None:
        return
    data, positions = parsed
    if not isinstance(data, list):
        yield RecordProblem(shown, 1, f"expected a list of records, got {type_name(data)}")
        return
    for index, item in enumerate(data):
        line = positions.line((index,))
        if isinstance(item, dict):
            yield Record(index + 1, line, item)
        else:
            yield RecordProblem(shown, line, f"expected a mapping, got {type_name(item)}")


def _hf_records(spec: DatasetSpec, where: str) -> Iterator[Record | RecordProblem]:
    """A Hugging Face dataset's rows, read a batch at a time from its Arrow files."""
    try:
        import datasets  # pyright: ignore[reportMissingTypeStubs]
    except ImportError:
        raise DatasetUnavailable(
            f"a Hugging Face dataset needs the 'datasets' package: {INSTALL_HINT}"
        ) from None
    lib = cast(Any, datasets)
    try:
        if os.path.isdir(where) and os.path.exists(os.path.join(where, "dataset_dict.json")):
            loaded = lib.load_from_disk(where)[spec.split]
        elif os.path.isdir(where) and os.path.exists(os.path.join(where, "state.json")):
            loaded = lib.load_from_disk(where)
        else:
            loaded = lib.load_dataset(where, spec.config, split=spec.split, revision=spec.revision)
    except KeyError:
        raise DatasetUnavailable(f"the dataset has no split {spec.split!r}") from None
    except Exception as exc:  # the library raises many kinds; each is the user's to fix
        raise DatasetUnavailable(f"cannot load the Hugging Face dataset: {exc}") from None
    for index, row in enumerate(cast(Iterator[JsonObject], iter(loaded))):
        yield Record(index + 1, 0, row)
