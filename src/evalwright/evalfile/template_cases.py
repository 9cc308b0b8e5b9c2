"""A template case made into one case per record of its ``dataset:`` or ``vars:``
(docs/eval-files.md#datasets-and-variables), lazily: a large dataset is read as the run asks
for cases."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from evalwright import jsontext
from evalwright.errors import Diagnostic
from evalwright.evalfile.dataset_records import (
    DatasetUnavailable,
    Record,
    RecordProblem,
    read_records,
)
from evalwright.evalfile.dataset_spec import DatasetSpec, InlineRecords
from evalwright.evalfile.located import Located, report_at
from evalwright.evalfile.models import _FileHeader as FileHeader  # pyright: ignore[reportPrivateUsage]
from evalwright.evalfile.references import FileResolver, ReferenceProblem
from evalwright.evalfile.variables import (
    Filler,
    VariableProblem,
    apply_mapping,
    case_id,
    mapped_fields,
    record_label,
)
from evalwright.files.diagnostics import Report
from evalwright.files.reading import UnreadableFile, open_regular
from evalwright.files.validation import validate
from evalwright.jsontext import JsonObject, JsonValue

TEMPLATE_KEYS = ("dataset", "vars")
MAX_RECORD_ERRORS = 20
"""After this many records with errors, a template's other records are not checked."""
_INPUT_KEYS = ("input", "input_messages", "turns", "simulated_user")


def is_template(data: JsonValue) -> bool:
    """Whether a case's data is a template case (it has ``dataset:`` or ``vars:``)."""
    return isinstance(data, dict) and any(key in data for key in TEMPLATE_KEYS)


def estimated_records(data: JsonValue, resolver: FileResolver, base_dir: str) -> int:
    """About how many cases a case's data makes, for the run's progress: a template case's
    inline records, or a CSV or JSONL dataset's non-blank lines (counted, not parsed); 1 for
    any other case, or when the dataset cannot be counted."""
    if not isinstance(data, dict) or not is_template(data):
        return 1
    inline, given = data.get("vars"), data.get("dataset")
    if isinstance(inline, list):
        return max(1, len(inline))
    path = given.get("path") if isinstance(given, dict) else given
    if not isinstance(path, str) or not path.lower().endswith((".csv", ".jsonl")):
        return 1
    try:
        with open_regular(resolver.locate(path, base_dir)) as handle:
            lines = sum(1 for line in handle if line.strip())
    except (OSError, ReferenceProblem, UnreadableFile):
        return 1
    return max(1, lines - 1 if path.lower().endswith(".csv") else lines)


def file_evaluators(header: FileHeader | None) -> list[JsonValue] | None:
    """The file's ``execution.evaluators`` as data: a template case without evaluators of its
    own fills them for each record."""
    execution = header.execution if header else None
    if execution is None or execution.evaluators is None:
        return None
    return [
        spec.model_dump(mode="json", by_alias=True, exclude_unset=True)
        for spec in execution.evaluators
    ]


@dataclass(frozen=True, slots=True)
class RecordCase:
    """One record's case data, still to validate, with the record's variables."""

    data: JsonObject
    where: Located
    vars: JsonObject
    label: str
    verbatim: bool
    """Whether its messages are the dataset's own, sent as they are."""


class TemplateCase:
    """Expands one template case; problems go to ``report``, located at the template or at
    the dataset's line."""

    def __init__(
        self,
        data: JsonObject,
        where: Located,
        resolver: FileResolver,
        base_dir: str,
        report: Report,
        file_evaluators: list[JsonValue] | None = None,
    ) -> None:
        """``file_evaluators``: the file's ``execution.evaluators`` as data, filled for each
        record like the case's own when the case has none."""
        self.where = where
        self.report = report
        self._resolver = resolver
        self._base_dir = base_dir
        self._template = {k: v for k, v in data.items() if k not in TEMPLATE_KEYS}
        self._inherit(file_evaluators)
        self._filler = Filler()
        self._failed = 0
        self._seen_warnings: set[tuple[int, str, str]] = set()
        self._spec: DatasetSpec | None = None
        self._inline: list[JsonObject] | None = None
        self._ok = self._read_keys(data)

    def _inherit(self, file_evaluators: list[JsonValue] | None) -> None:
        execution = self._template.get("execution")
        own = isinstance(execution, dict) and "evaluators" in execution
        if file_evaluators is None or own or "evaluators" in self._template:
            return
        if "{" in jsontext.dumps_line(file_evaluators):
            base = execution if isinstance(execution, dict) else {}
            self._template["execution"] = {**base, "evaluators": file_evaluators}

    def _read_keys(self, data: JsonObject) -> bool:
        if "dataset" in data and "vars" in data:
            self._error(self.where.at("vars"), "give 'dataset' or 'vars', not both", key=True)
            return False
        if "vars" in data:
            given: JsonValue = {"vars": data["vars"]}
            inline = validate(
                InlineRecords, given, self.where.positions, self.report, self.where.path
            )
            self._inline = inline.vars if inline is not None else None
            return inline is not None
        raw = data["dataset"]
        given = {"path": raw} if isinstance(raw, str) else raw
        here = self.where.at("dataset")
        self._spec = validate(DatasetSpec, given, here.positions, self.report, here.path)
        if self._spec is None:
            return False
        fields = mapped_fields(self._spec)
        takes_input = "input" in fields or "turns" in fields
        clash = next((k for k in _INPUT_KEYS if k in self._template), None)
        if takes_input and clash is not None:
            message = f"the dataset gives each case's input: the template must not have '{clash}'"
            self._error(self.where.at(clash), message, key=True)
            return False
        if "id" not in self._template and self._spec.id is None:
            self._error(self.where, "a template case needs an 'id' (or the dataset's 'id' field)")
            return False
        return True

    def _error(self, where: Located, message: str, *, key: bool = False) -> None:
        report_at(self.report, where, "error", message, key=key)

    def cases(self) -> Iterator[RecordCase]:
        """Each record's case, in the dataset's order."""
        if not self._ok:
            return
        fields = mapped_fields(self._spec)
        explicit = {k for k in ("input", "target", "id") if getattr(self._spec, k, None)}

        def required(key: str) -> bool:
            return key in explicit or key in ("input", "turns", "target")

        template_id = self._template.get("id")
        for record in self._records():
            if isinstance(record, RecordProblem):
                self._record_problem(record)
            else:
                ident = case_id(record.data, fields, str(template_id), record.number)
                label = record_label(record.number, ident)
                case = self._case(record, fields, ident, label, required)
                if case is not None:
                    yield case
            if self._failed >= MAX_RECORD_ERRORS:
                message = f"{MAX_RECORD_ERRORS} records have errors: the rest are not checked"
                self._error(self.where, message)
                return

    def _case(
        self,
        record: Record,
        fields: dict[str, str],
        ident: str,
        label: str,
        required: Callable[[str], bool],
    ) -> RecordCase | None:
        try:
            data = self._filler.case(self._template, record.data)
        except VariableProblem as exc:
            self._failed += 1
            self._error(self.where.at(*exc.path), f"{label}: {exc}")
            return None
        try:
            data = apply_mapping(data, record.data, fields, required)
        except ValueError as exc:
            self._record_problem(self._at_record(record, f"{label}: {exc}"))
            return None
        data["id"] = ident
        verbatim = "input" in fields or "turns" in fields
        return RecordCase(data, self.where, record.data, label, verbatim)

    def _at_record(self, record: Record, message: str) -> RecordProblem:
        if record.line and self._spec is not None and self._spec.path is not None:
            return RecordProblem(self._dataset_shown, record.line, message)
        line, _ = self.where.positions.value(self.where.path)
        return RecordProblem(self.report.path, line, message)

    def _record_problem(self, problem: RecordProblem) -> None:
        self._failed += 1
        self.report.items.append(
            Diagnostic(problem.path, problem.line, 1, "error", "", problem.message)
        )

    def _records(self) -> Iterator[Record | RecordProblem]:
        if self._inline is not None:
            for index, values in enumerate(self._inline):
                line = self.where.positions.line((*self.where.path, "vars", index))
                yield Record(index + 1, line, values)
            return
        spec = self._spec
        assert spec is not None
        here = self.where.at("dataset")
        try:
            location = self._locate(spec)
            yield from read_records(spec, location)
        except (ReferenceProblem, DatasetUnavailable) as exc:
            self._failed = MAX_RECORD_ERRORS  # nothing more is read
            self._error(here, str(exc))

    @property
    def _dataset_shown(self) -> str:
        from evalwright.files.project import display_path

        assert self._spec is not None
        assert self._spec.path is not None
        return display_path(self._resolver.locate(self._spec.path, self._base_dir))

    def _locate(self, spec: DatasetSpec) -> str:
        if spec.path is not None:
            return self._resolver.locate(spec.path, self._base_dir)
        assert spec.hf is not None
        try:
            return self._resolver.locate(spec.hf, self._base_dir, want_dir=True)
        except ReferenceProblem:
            if spec.revision is None:
                raise ReferenceProblem(
                    f"{spec.hf!r} is no local directory: a hub dataset needs a pinned "
                    "'revision' (a commit)"
                ) from None
            return spec.hf

    def relabel(self, start: int, label: str) -> None:
        """Name the record in the diagnostics building its case added from ``start``; a
        warning every record repeats is kept once."""
        items = self.report.items
        kept: list[Diagnostic] = []
        for item in items[start:]:
            if item.severity == "warning":
                key = (item.line, item.field, item.message)
                if key in self._seen_warnings:
                    continue
                self._seen_warnings.add(key)
                kept.append(item)
            else:
                self._failed += 1
                kept.append(replace(item, message=f"{label}: {item.message}"))
        items[start:] = kept
