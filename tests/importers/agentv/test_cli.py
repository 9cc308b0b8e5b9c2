"""``evalwright import agentv``: exit codes, what is printed, the files referenced copied so
the same paths find them, and a located error for a file that is no AgentV suite."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli, run_process

SUITE = """\
description: Greets
providers: [llm]
prompts: ["{{ input }}"]
tests:
  - id: hello
    assert:
      - Greets the user
      - {type: icontains, value: hello, metric: says-hello, required: true}
    vars:
      input:
        - role: user
          content:
            - {type: text, value: Say hello.}
            - {type: file, value: ../common/style.md}
"""
PROVIDERS = "- id: openai\n  label: llm\n  model: gpt-4o-mini\n"


def _project(tmp_path: Path, suite: str) -> Path:
    (tmp_path / ".agentv").mkdir()
    (tmp_path / ".agentv" / "providers.yaml").write_text(PROVIDERS, encoding="utf-8")
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "style.md").write_text("Be brief.\n", encoding="utf-8")
    (tmp_path / "evals").mkdir()
    path = tmp_path / "evals" / "suite.yaml"
    path.write_text(suite, encoding="utf-8")
    return path


def test_everything_carried_exits_0_and_the_import_validates(tmp_path: Path) -> None:
    suite = _project(tmp_path, SUITE)
    done = run_process("import", "agentv", suite, "-o", tmp_path / "out", cwd=tmp_path)
    assert done.code == 0, done.out + done.err
    assert "1 of 1 (prompt, test) pairs carried over" in done.out
    assert "--target llm" in done.out
    # ``../common/style.md`` beside the eval file finds the copy, the path as written
    assert (tmp_path / "out" / "common" / "style.md").read_text() == "Be brief.\n"
    document = yaml.safe_load((tmp_path / "out" / "evals" / "suite.yaml").read_text())
    (case,) = document["evalcases"]
    assert case["input_messages"][0]["content"][1] == {
        "type": "file",
        "value": "../common/style.md",
    }
    assert case["expected_outcome"] == "Greets the user"
    assert case["execution"]["evaluators"] == [
        {"name": "criteria", "type": "llm_judge"},
        {"name": "says-hello", "type": "contains", "value": ["hello"], "case_sensitive": False,
         "required": True},
    ]  # fmt: skip
    targets = yaml.safe_load((tmp_path / "out" / ".evalwright" / "targets.yaml").read_text())
    assert targets == {"targets": [{"name": "llm", "provider": "openai", "model": "gpt-4o-mini"}]}
    checked = run_process("validate", tmp_path / "out" / "evals", cwd=tmp_path)
    assert checked.code == 0, checked.out + checked.err


def test_items_not_carried_are_listed_and_exit_1(tmp_path: Path) -> None:
    suite = _project(
        tmp_path,
        SUITE.replace("      - Greets the user\n", "      - {type: skill-used, value: x}\n"),
    )
    done = run_cli("import", "agentv", suite, "-o", tmp_path / "out")
    assert done.code == 1
    assert (
        "suite.yaml: tests[0].assert[0]: not carried: assertion type 'skill-used' has no "
        "evalwright evaluator"
    ) in done.out


def test_a_file_that_is_no_suite_is_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("evalcases: []\n", encoding="utf-8")
    done = run_cli("import", "agentv", path, "-o", tmp_path / "out")
    assert done.code == 2
    assert "x.yaml:1:1: error: an AgentV suite is a mapping with 'tests'" in done.out + done.err
    assert not (tmp_path / "out").exists()


def test_a_file_above_the_output_is_copied_inside_it_and_noted(tmp_path: Path) -> None:
    """AgentV finds ``../../common/style.md`` from ``evals/deep/``; two levels up from the
    imported eval file is outside the output, so the copy is shortened and the note says which
    path the model is now shown."""
    suite = _project(tmp_path, SUITE.replace("../common/style.md", "../../common/style.md"))
    (tmp_path / "evals" / "deep").mkdir()
    deep = suite.rename(tmp_path / "evals" / "deep" / "suite.yaml")
    done = run_cli("import", "agentv", deep, "-o", tmp_path / "out")
    assert done.code == 1
    assert (tmp_path / "out" / "common" / "style.md").read_text() == "Be brief.\n"
    assert (
        "tests[0].vars.input[0].content[1]: file '../../common/style.md' is copied as "
        "'common/style.md': the model is shown that path"
    ) in done.out
    checked = run_cli("validate", tmp_path / "out" / "evals")
    assert checked.code == 0, checked.out + checked.err


@pytest.mark.parametrize(
    ("tests", "says"),
    [
        ("[{id: a, vars: 3}]", "tests[0]: test not carried: vars 3: expected a mapping"),
        (
            "[{id: a, vars: {input: hi}, assert: 7}]",
            "tests[0]: test not carried: assert 7: expected a list of assertions",
        ),
        ("[{id: a, vars: {other: 1}}]", "tests[0]: test not carried: no vars.input"),
        ("[{vars: {input: hi}}]", "tests[0]: test not carried: a test is a mapping with an 'id'"),
    ],
)
def test_a_malformed_test_is_noted_never_dropped(tmp_path: Path, tests: str, says: str) -> None:
    suite = _project(tmp_path, f"providers: [llm]\ntests: {tests}\n")
    done = run_cli("import", "agentv", suite, "-o", tmp_path / "out")
    assert done.code == 1
    assert says in done.out
    assert "Traceback" not in done.out + done.err
