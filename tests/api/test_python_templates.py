"""Template cases built in Python (docs/eval-files.md#datasets-and-variables): ``vars=`` and
``dataset=`` make one case per record, filled as a file's are, each row carrying its record's
``vars``; a missing variable is a ``LoadError`` naming the record."""

from __future__ import annotations

import json

import pytest

import evalwright as ew
from evalwright.errors import LoadError
from evalwright.testing import FakeServer
from tests.conftest import ProjectDir

CHECK = ew.Execution(evaluators=[ew.ContainsSpec(name="names", value="{{ city }}")])


def _run(project: ProjectDir, case: ew.EvalCase) -> tuple[ew.RunResult, list[object]]:
    suite = ew.Suite([case], base_dir=project.root)
    with FakeServer.in_thread() as fake:
        target = ew.OpenAITarget(name="oa", model="m", base_url=f"{fake.url}/v1", api_key="k")
        result = ew.run(suite, targets=[target], out=project.root / "r.jsonl")
        sent = [json.loads(r.body)["messages"][-1]["content"] for r in fake.requests]
    return result, sent


def test_inline_vars_make_one_filled_case_per_record(project: ProjectDir) -> None:
    case = ew.EvalCase(
        id="capital",
        vars=[{"city": "Paris"}, {"city": "Rome"}],
        input="Which country is {{ city }} in?",
        expected_outcome="Names {{ city }}'s country.",
        execution=CHECK,
    )

    result, sent = _run(project, case)

    assert sent == ["Which country is Paris in?", "Which country is Rome in?"]
    assert [(r.eval_id, r.vars) for r in result.rows] == [
        ("capital-1", {"city": "Paris"}),
        ("capital-2", {"city": "Rome"}),
    ]
    assert [r.expected_outcome for r in result.rows] == [
        "Names Paris's country.",
        "Names Rome's country.",
    ]


def test_a_dataset_file_is_read_relative_to_the_suite(project: ProjectDir) -> None:
    project.write("cities.csv", "name,city\nfr,Paris\nit,Rome\n")
    case = ew.EvalCase(
        id="capital",
        dataset={"path": "cities.csv", "id": "name"},  # pyright: ignore[reportArgumentType]
        input="Where is {{ city }}?",
        expected_outcome="Answers.",
        execution=CHECK,
    )

    result, sent = _run(project, case)

    assert sent == ["Where is Paris?", "Where is Rome?"]
    assert [(r.eval_id, r.vars) for r in result.rows] == [
        ("fr", {"name": "fr", "city": "Paris"}),
        ("it", {"name": "it", "city": "Rome"}),
    ]


def test_a_missing_variable_names_the_record(project: ProjectDir) -> None:
    case = ew.EvalCase(
        id="capital",
        vars=[{"city": "Paris"}, {"town": "Rome"}],
        input="Where is {{ city }}?",
        expected_outcome="Answers.",
    )

    with pytest.raises(LoadError, match=r"record 2 \(id 'capital-2'\): undefined variable 'city'"):
        ew.preview(ew.Suite([case], base_dir=project.root))
