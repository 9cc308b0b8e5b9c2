"""Template cases (docs/eval-files.md#datasets-and-variables): ``dataset:`` files of every kind and
``vars:`` make one case per record, their ``{{ name }}`` variables filled in the sandbox; bad
records and missing variables are located errors; any other case keeps ``{{`` as written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from evalwright.evalfile import LoadedCase
from evalwright.evalfile.loader import SuiteReader
from evalwright.evalfile.references import FileResolver
from evalwright.evalfile.resolved import TextSegment
from evalwright.files.project import Project
from tests.conftest import ProjectDir, run_cli

TEMPLATE = """evalcases:
  - id: sum
    dataset: {dataset}
    input: "What is {{{{ a }}}} + {{{{ b }}}}?"
    expected_outcome: "Says {{{{ total }}}}."
    expected_output: "{{{{ total }}}}"
    execution:
      evaluators:
        - {{name: has, type: contains, value: "{{{{ total }}}}"}}
"""
RECORDS = [{"a": "1", "b": "2", "total": "3"}, {"a": "20", "b": "22", "total": "42"}]


def _text(case: LoadedCase) -> str:
    segment = case.input_messages[0].segments[0]
    assert isinstance(segment, TextSegment)
    return segment.text


def _yaml_records() -> str:
    return "".join(f"- {json.dumps(r)}\n" for r in RECORDS)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("sums.csv", "a,b,total\n1,2,3\n20,22,42\n"),
        ("sums.jsonl", "".join(json.dumps(r) + "\n" for r in RECORDS)),
        ("sums.json", json.dumps(RECORDS)),
        ("sums.yaml", _yaml_records()),
    ],
)
def test_each_record_of_a_dataset_file_is_a_filled_case(
    project: ProjectDir, name: str, content: str
) -> None:
    project.write(f"evals/{name}", content)
    project.write("evals/sums.yaml" if name != "sums.yaml" else "evals/e.yaml", "")
    eval_file = "evals/e.yaml"
    project.write(eval_file, TEMPLATE.format(dataset=name))

    cases = project.load(eval_file).cases

    assert [c.id for c in cases] == ["sum-1", "sum-2"]
    assert [_text(c) for c in cases] == ["What is 1 + 2?", "What is 20 + 22?"]
    assert [c.expected_outcome for c in cases] == ["Says 3.", "Says 42."]
    assert [c.vars for c in cases] == RECORDS
    checks = [c.evaluators[0].spec for c in cases]
    assert [getattr(spec, "value", None) for spec in checks] == ["3", "42"]


def test_vars_are_inline_records_and_the_id_can_come_from_a_field(project: ProjectDir) -> None:
    project.write(
        "evals/e.yaml",
        """evalcases:
  - id: greet
    vars:
      - {who: Ada, key: ada}
      - {who: Bob, key: bob}
    input_messages:
      - {role: system, content: "Greet {{ who }}."}
      - role: user
        content: [{type: text, value: "I am {{ who }}"}]
    expected_outcome: "Greets {{ who }}."
  - id: keyed
    dataset: {path: people.csv, id: key}
    input: "{{ who }}"
    expected_outcome: ok
""",
    )
    project.write("evals/people.csv", "key,who\nk-1,Cy\n")

    cases = project.load("evals/e.yaml").cases

    assert [c.id for c in cases] == ["greet-1", "greet-2", "k-1"]
    first = cases[0]
    texts = [s.text for m in first.input_messages for s in m.segments if isinstance(s, TextSegment)]
    assert texts == ["Greet Ada.", "I am Ada"]
    assert cases[2].vars == {"key": "k-1", "who": "Cy"}


def test_a_case_without_records_keeps_braces_as_written(project: ProjectDir) -> None:
    project.write(
        "evals/e.yaml",
        """evalcases:
  - id: plain
    input: "Fill {{ x }} and {% raw %}"
    expected_outcome: "keeps {{ x }}"
  - id: literal
    vars: [{x: 1}]
    input: "{{ '{{' }} x }} is {{ x }}"
    expected_outcome: ok
""",
    )

    plain, literal = project.load("evals/e.yaml").cases

    assert _text(plain) == "Fill {{ x }} and {% raw %}"
    assert plain.expected_outcome == "keeps {{ x }}"
    assert plain.vars is None
    assert _text(literal) == "{{ x }} is 1"


def test_a_missing_variable_is_located_with_the_record(project: ProjectDir) -> None:
    project.write("evals/d.csv", "a,b\n1,2\n3\n")
    project.write(
        "evals/e.yaml",
        """evalcases:
  - id: t
    vars: [{a: 1}, {b: 2}]
    input: |
      first line
      value {{ a }}
    expected_outcome: ok
""",
    )

    result = run_cli("validate", project.root / "evals/e.yaml")

    assert result.code == 1
    assert "Traceback" not in result.err + result.out
    assert (
        "e.yaml:4:12: error: evalcases[0].input: record 2 (id 't-2'): undefined variable 'a'"
        in result.out + result.err
    )


def test_the_sandbox_refuses_private_attributes(project: ProjectDir) -> None:
    project.write(
        "evals/e.yaml",
        """evalcases:
  - id: t
    vars: [{a: 1}]
    input: "{{ ''.__class__.__mro__ }}"
    expected_outcome: ok
""",
    )

    suite, diagnostics = project.check("evals/e.yaml")

    assert suite is None
    [error] = [str(d) for d in diagnostics]
    assert "evalcases[0].input: record 1 (id 't-1'): access to attribute '__class__'" in error
    assert "unsafe" in error


@pytest.mark.parametrize(
    ("name", "content", "line", "message"),
    [
        ("d.csv", "a,b\n1,2\n3\n4,5\n", 3, "expected 2 fields (the header's), got 1"),
        ("d.csv", 'a,b\n1,2\n"3,4\n', 3, "malformed CSV"),
        ("d.jsonl", '{"a": 1, "b": 2}\n{"a": \n{"a": 3, "b": 4}\n', 2, "invalid JSON"),
        ("d.jsonl", '{"a": 1, "b": 2}\n[1]\n', 2, "expected a JSON object, got list"),
    ],
)
def test_a_malformed_record_is_located_in_the_dataset(
    project: ProjectDir, name: str, content: str, line: int, message: str
) -> None:
    project.write(f"evals/{name}", content)
    project.write(
        "evals/e.yaml",
        f"""evalcases:
  - id: t
    dataset: {name}
    input: "{{{{ a }}}} {{{{ b }}}}"
    expected_outcome: ok
""",
    )

    suite, diagnostics = project.check("evals/e.yaml")

    assert suite is None
    errors = [d for d in diagnostics if d.severity == "error"]
    assert [(Path(d.path).resolve(), d.line) for d in errors] == [
        (project.root.resolve() / "evals" / name, line)
    ], errors
    assert message in errors[0].message


def test_a_missing_dataset_and_a_bad_mapping_are_located(project: ProjectDir) -> None:
    project.write(
        "evals/e.yaml",
        """evalcases:
  - id: t
    dataset: nowhere.csv
    input: x
    expected_outcome: ok
  - id: u
    dataset: {path: d.jsonl, input: question}
    input: x
    expected_outcome: ok
""",
    )
    project.write("evals/d.jsonl", '{"question": "q"}\n')

    _, diagnostics = project.check("evals/e.yaml")

    shown = [(d.line, d.message) for d in diagnostics]
    assert shown[0][0] == 3
    assert "file not found: 'nowhere.csv'" in shown[0][1]
    assert shown[1] == (
        8,
        "the dataset gives each case's input: the template must not have 'input'",
    )


def test_records_are_read_as_cases_are_asked_for(project: ProjectDir) -> None:
    """The dataset is not read ahead: a record appended after the first case was taken is
    still read (docs/eval-files.md#large-datasets)."""
    dataset = project.write("evals/d.csv", "a\n1\n")
    eval_file = project.write(
        "evals/e.yaml",
        """evalcases:
  - id: t
    dataset: d.csv
    input: "{{ a }}"
    expected_outcome: ok
""",
    )
    project_ = Project.load(project.root)[0]
    reader = SuiteReader(eval_file, project_, FileResolver(project_))
    cases = reader.cases()

    first = next(cases)
    with dataset.open("a", encoding="utf-8") as handle:
        handle.write("2\n")
    rest = list(cases)

    assert reader.streams
    assert [_text(c) for c in [first, *rest]] == ["1", "2"]


_HF_CASE = """  - id: hf
    dataset: {hf: hfdata, split: test, input: q, target: answer}
"""


def test_a_hugging_face_dataset_saved_locally_is_read(project: ProjectDir) -> None:
    datasets = pytest.importorskip("datasets")  # in the test extra; this guards a bare install
    rows = {"q": ["one?", "two?"], "answer": ["1", "2"]}
    saved = datasets.DatasetDict({"test": datasets.Dataset.from_dict(rows)})
    saved.save_to_disk(str(project.root / "evals" / "hfdata"))
    project.write(
        "evals/e.yaml",
        "evalcases:\n"
        + _HF_CASE
        + """  - id: nosplit
    dataset: {hf: hfdata, split: validation}
    input: x
    expected_outcome: ok
""",
    )

    suite, diagnostics = project.check("evals/e.yaml")

    assert suite is None
    [error] = [d for d in diagnostics if d.severity == "error"]
    assert (error.line, error.message) == (5, "the dataset has no split 'validation'")
    project.write("evals/ok.yaml", "evalcases:\n" + _HF_CASE)
    cases = project.load("evals/ok.yaml").cases
    assert [(c.id, _text(c), c.expected_outcome) for c in cases] == [
        ("hf-1", "one?", "1"),
        ("hf-2", "two?", "2"),
    ]
    assert cases[0].vars == {"q": "one?", "answer": "1"}


def test_a_hub_dataset_needs_a_pinned_revision(project: ProjectDir) -> None:
    project.write(
        "evals/e.yaml",
        """evalcases:
  - id: hub
    dataset: {hf: someone/some-set, split: test}
    input: x
    expected_outcome: ok
""",
    )

    _, diagnostics = project.check("evals/e.yaml")

    [error] = diagnostics
    assert error.line == 3
    assert "a hub dataset needs a pinned 'revision'" in error.message


def test_prompt_shows_the_filled_cases(project: ProjectDir) -> None:
    project.write(
        "evals/e.yaml",
        """evalcases:
  - id: t
    vars: [{who: Ada}, {who: Bob}]
    input: "Hello {{ who }}"
    expected_outcome: ok
""",
    )

    result = run_cli("prompt", project.root / "evals/e.yaml")

    assert result.code == 0, result.err
    assert "=== t-1 " in result.out
    assert "Hello Ada" in result.out
    assert "Hello Bob" in result.out
    assert "{{" not in result.out


def test_a_list_field_as_a_whole_value_gives_the_evaluator_the_list(project: ProjectDir) -> None:
    project.write(
        "evals/e.yaml",
        """evalcases:
  - id: t
    vars:
      - {q: "Season?", ideal: ["Season 11", "11"]}
    input: "{{ q }}"
    expected_outcome: "One of {{ ideal | join(', ') }}."
    execution:
      evaluators:
        - {name: m, type: match, value: "{{ ideal }}"}
""",
    )

    [case] = project.load("evals/e.yaml").cases

    assert getattr(case.evaluators[0].spec, "value", None) == ["Season 11", "11"]
    assert case.expected_outcome == "One of Season 11, 11."


def test_a_template_syntax_error_is_located(project: ProjectDir) -> None:
    project.write(
        "evals/e.yaml",
        """evalcases:
  - id: t
    vars: [{a: 1}]
    input: "{{ a"
    expected_outcome: ok
""",
    )

    _, diagnostics = project.check("evals/e.yaml")

    [error] = diagnostics
    assert error.line == 4
    assert error.message.startswith("record 1 (id 't-1'): template line 1: unexpected end")


def test_without_the_datasets_package_the_error_names_the_extra(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # makes ``import datasets`` fail
    (project.root / "evals" / "saved").mkdir(parents=True)
    project.write(
        "evals/e.yaml",
        """evalcases:
  - id: t
    dataset: {hf: saved, split: test}
    input: x
    expected_outcome: ok
""",
    )

    _, diagnostics = project.check("evals/e.yaml")

    [error] = diagnostics
    assert error.line == 3
    assert "pip install 'evalwright[datasets]'" in error.message


def test_the_run_estimates_a_dataset_by_its_lines(project: ProjectDir) -> None:
    project.write("evals/d.csv", "a\n1\n2\n\n3\n")
    project.write("evals/d.jsonl", '{"a": 1}\n{"a": 2}\n')
    eval_file = project.write(
        "evals/e.yaml",
        """evalcases:
  - {id: c, dataset: d.csv, input: "{{ a }}", expected_outcome: ok}
  - {id: j, dataset: {path: d.jsonl}, input: "{{ a }}", expected_outcome: ok}
  - {id: v, vars: [{a: 1}, {a: 2}], input: "{{ a }}", expected_outcome: ok}
  - {id: plain, input: x, expected_outcome: ok}
""",
    )
    project_ = Project.load(project.root)[0]

    reader = SuiteReader(eval_file, project_, FileResolver(project_))

    assert reader.estimated_cases == 3 + 2 + 2 + 1
    assert len(list(reader.cases())) == 8
