"""``evalwright import promptfoo``: exit codes, the list of what was not carried, and a
located error (file, line, field) for a bad config, never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import run_cli, run_process


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_everything_carried_exits_0_and_names_the_files(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        "prompts: ['Hi {{n}}']\nproviders: [openai:gpt-4o]\n"
        "tests: [{vars: {n: Ann}, assert: [{type: contains, value: Ann}]}]\n",
    )
    done = run_process("import", "promptfoo", config, "-o", tmp_path / "out", cwd=tmp_path)
    assert done.code == 0, done.err
    assert "created out/evals/promptfooconfig.yaml" in done.out
    assert "1 of 1 (prompt, test) pairs carried over" in done.out
    assert "--target openai-gpt-4o" in done.out
    checked = run_process("validate", tmp_path / "out" / "evals", cwd=tmp_path)
    assert checked.code == 0, checked.out
    notes = (tmp_path / "out" / "IMPORT-NOTES.md").read_text()
    assert "Everything was carried over." in notes


def test_items_not_carried_are_listed_and_exit_1(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        "prompts: ['Hi {{n}}', '{{n | allcaps}}']\nproviders: [openai:gpt-4o]\n"
        "tests: [{vars: {n: Ann}, assert: [{type: answer-relevance, value: 'x'}]}]\n",
    )
    done = run_cli("import", "promptfoo", config, "-o", tmp_path / "out")
    assert done.code == 1
    assert "1 of 2 (prompt, test) pairs carried over" in done.out
    lines = [line.strip() for line in done.out.splitlines() if line.startswith("  ")]
    assert any(
        line.endswith(
            "tests[0].assert[0]: assertion type 'answer-relevance' has no evalwright evaluator"
        )
        for line in lines
    )
    assert any("tests[0]: prompts[1]: the template does not render" in line for line in lines)
    notes = (tmp_path / "out" / "IMPORT-NOTES.md").read_text()
    assert "assertion type 'answer-relevance'" in notes
    assert "prompts[1]" in notes


def test_nothing_is_overwritten(tmp_path: Path) -> None:
    config = _config(tmp_path, "prompts: [hi]\nproviders: [openai:gpt-4o]\n")
    assert run_cli("import", "promptfoo", config, "-o", tmp_path / "out").code == 0
    again = run_cli("import", "promptfoo", config, "-o", tmp_path / "out")
    assert again.code == 2
    assert "already exists" in again.err


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("prompts: [hi\n", "promptfooconfig.yaml:2:1: error: invalid YAML"),
        ("prompts: 7\n", "promptfooconfig.yaml:1:10: error: prompts: expected a string"),
        (
            "prompts: [hi]\ntests:\n  - vars: 3\n",
            "promptfooconfig.yaml:3:11: error: tests[0].vars: expected a mapping of variables",
        ),
        (
            "prompts: [hi]\ntests:\n  - 42\n",
            "promptfooconfig.yaml:3:5: error: tests[0]: expected a test mapping",
        ),
        ("prompts: [file://missing.txt]\n", "promptfooconfig.yaml:1:11: error: prompts[0]: "),
        (
            "prompts: [hi]\ntests: file://none.csv\n",
            "promptfooconfig.yaml:2:8: error: tests: test file not found",
        ),
    ],
)
def test_bad_config_is_a_located_error_without_traceback(
    tmp_path: Path, text: str, where: str
) -> None:
    config = _config(tmp_path, text)
    done = run_process("import", "promptfoo", config, "-o", tmp_path / "out", cwd=tmp_path)
    assert done.code == 2
    assert where in done.err
    assert "Traceback" not in done.err


def test_bad_jsonl_test_file_is_located_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_text('{"vars": {}}\n{bad\n', encoding="utf-8")
    config = _config(tmp_path, "prompts: [hi]\ntests: file://t.jsonl\n")
    done = run_process("import", "promptfoo", config, "-o", tmp_path / "out", cwd=tmp_path)
    assert done.code == 2
    assert "t.jsonl:2:1: error: invalid JSON" in done.err
    assert "Traceback" not in done.err


def test_a_config_that_is_no_regular_file_says_what_it_is(tmp_path: Path) -> None:
    fifo = tmp_path / "promptfooconfig.yaml"
    os.mkfifo(fifo)  # read naively, it would block the import forever
    done = run_process("import", "promptfoo", fifo, "-o", tmp_path / "out", cwd=tmp_path)
    assert done.code == 2
    assert "promptfooconfig.yaml:1:1: error: not a regular file: it is a FIFO" in done.err
    assert "Traceback" not in done.err
