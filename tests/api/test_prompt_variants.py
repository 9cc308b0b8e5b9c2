"""Prompt variants and ``system_prompt="none"`` on a suite built in Python
(docs/eval-files.md#prompt-variants): the same requests as from a file, the variant on each
row and in ``result.targets``; a bad variant is a ``LoadError`` naming its field."""

from __future__ import annotations

import json

import pytest

import evalwright as ew
from evalwright.errors import LoadError
from evalwright.testing import FakeServer
from tests.conftest import ProjectDir

CHECK = ew.Execution(evaluators=[ew.ContainsSpec(name="says", value="fake")])


def _case(n: int) -> ew.EvalCase:
    return ew.EvalCase(id=f"c{n}", expected_outcome="x", input=f"Q{n}?", execution=CHECK)


def test_a_python_suite_runs_each_variant(project: ProjectDir) -> None:
    warm = ew.VariantMessages(messages=[ew.system("You are warm."), ew.user("Hi")])
    suite = ew.Suite(
        [_case(0), _case(1)],
        base_dir=project.root,
        prompts={"terse": "Be brief.", "warm": warm},
    )
    with FakeServer.in_thread() as fake:
        target = ew.OpenAITarget(name="oa", model="m", base_url=f"{fake.url}/v1", api_key="k")
        result = ew.run(suite, targets=[target], out=project.root / "r.jsonl")
        sent = [json.loads(r.body)["messages"] for r in fake.requests]

    assert [(r.eval_id, r.variant) for r in result.rows] == [
        ("c0", "terse"),
        ("c0", "warm"),
        ("c1", "terse"),
        ("c1", "warm"),
    ]
    assert sent[0] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Q0?"},
    ]
    assert sent[1] == [
        {"role": "system", "content": "You are warm."},
        {"role": "user", "content": "Hi"},
        {"role": "user", "content": "Q0?"},
    ]
    assert list(result.targets) == ["oa [terse]", "oa [warm]"]


def test_a_python_suite_without_a_default_system_prompt(project: ProjectDir) -> None:
    suite = ew.Suite([_case(0)], base_dir=project.root, system_prompt="none")
    with FakeServer.in_thread() as fake:
        target = ew.OpenAITarget(
            name="oa", model="m", base_url=f"{fake.url}/v1", api_key="k", system_prompt="Hey."
        )
        ew.run(suite, targets=[target], out=project.root / "r.jsonl")
        (request,) = fake.requests

    assert json.loads(request.body)["messages"] == [{"role": "user", "content": "Q0?"}]


def test_a_bad_variant_name_is_a_located_error(project: ProjectDir) -> None:
    suite = ew.Suite([_case(0)], base_dir=project.root, prompts={"two words": "x"})

    with pytest.raises(LoadError) as raised:
        ew.run(suite, targets=[ew.MockTarget(name="m")], out=project.root / "r.jsonl")

    assert "prompts.two words" in str(raised.value)
    assert "invalid prompt variant name" in str(raised.value)
