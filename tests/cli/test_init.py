"""``evalwright init``: a project that validates and runs offline at once, and that never
overwrites a file (docs/running.md#evalwright-init)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import evalwright
from tests.conftest import run_cli, run_process

# Names of the variables that could give a real target a key, or the run a network.
_KEYS = ("KEY", "TOKEN", "SECRET", "PROXY")


def _offline_env() -> dict[str, str]:
    """This process's environment without any API key or proxy."""
    return {
        name: value
        for name, value in os.environ.items()
        if not any(part in name.upper() for part in _KEYS)
    }


def test_init_then_validate_then_eval_pass_offline(tmp_path: Path) -> None:
    env = _offline_env()

    made = run_process("init", "demo", cwd=tmp_path, env=env)
    assert made.code == 0, made.err
    commands = [
        line.split("#")[0].split() for line in made.out.splitlines() if "evalwright " in line
    ]
    assert [c[:2] for c in commands] == [
        ["evalwright", "validate"],
        ["evalwright", "eval"],
        ["evalwright", "prompt"],
    ]

    # The printed commands, run as printed, from where init ran.
    checked = run_process(*commands[0][1:], cwd=tmp_path, env=env)
    assert checked.code == 0, checked.out + checked.err
    assert "0 error(s), 0 warning(s)" in checked.err
    ran = run_process(*commands[1][1:], cwd=tmp_path, env=env)
    assert ran.code == 0, ran.out + ran.err
    shown = run_process(*commands[2][1:], cwd=tmp_path, env=env)
    assert shown.code == 0, shown.err

    (results,) = (tmp_path / "demo/.evalwright/results").glob("*.jsonl")
    rows = [json.loads(line) for line in results.read_text("utf-8").splitlines()]
    assert {row["eval_id"] for row in rows} == {"refund-late-order", "order-number"}
    assert all(row["status"] == "ok" and row["score"] == 1 for row in rows)
    refund = next(row for row in rows if row["eval_id"] == "refund-late-order")
    # The three kinds of evaluator ran, and the guideline and the attachment were delivered.
    types = [result["type"] for result in refund["evaluator_results"]]
    assert types == ["contains", "code", "llm_judge"]
    (guideline,) = refund["raw_request"]["guideline_paths"]
    assert guideline.endswith("guidelines/support.instructions.md")
    assert refund["raw_request"]["input_files"][0].endswith("order-1042.txt")


def test_init_writes_into_the_current_directory_by_default(tmp_path: Path) -> None:
    made = run_process("init", cwd=tmp_path, env=_offline_env())

    assert made.code == 0, made.err
    assert (tmp_path / ".evalwright/targets.yaml").is_file()
    assert "evalwright eval evals " in made.out


def test_the_targets_file_names_a_mock_default_and_comments_out_real_targets(
    tmp_path: Path,
) -> None:
    evalwright.init_project(tmp_path)
    text = (tmp_path / ".evalwright/targets.yaml").read_text("utf-8")

    assert "  - name: default\n    provider: mock\n" in text
    for provider in ("openai", "anthropic", "gemini"):
        assert f"  #   provider: {provider}\n" in text
    assert "  #   base_url: http://127.0.0.1:8080/v1\n" in text
    # Uncommented, the real targets are valid as written.
    (tmp_path / ".evalwright/targets.yaml").write_text(
        text.replace("\n  # ", "\n  ").replace("\n  #\n", "\n"), "utf-8"
    )
    checked = run_cli("validate", tmp_path / ".evalwright/targets.yaml")
    assert checked.code == 0, checked.err


def test_init_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    existing = tmp_path / "scripts" / "word_limit.py"
    existing.parent.mkdir()
    existing.write_text("mine\n", "utf-8")

    refused = run_cli("init", tmp_path)

    assert refused.code == 2
    assert "word_limit.py already exists" in refused.err
    assert "Traceback" not in refused.err
    assert existing.read_text("utf-8") == "mine\n"
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "scripts",
        "scripts/word_limit.py",
    ]


def test_init_twice_refuses_the_second_time(tmp_path: Path) -> None:
    first = evalwright.init_project(tmp_path)
    before = {path: path.read_bytes() for path in first}

    with pytest.raises(evalwright.ConfigError, match=r"targets\.yaml already exists"):
        evalwright.init_project(tmp_path)
    assert {path: path.read_bytes() for path in first} == before


def test_init_into_a_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("", "utf-8")

    refused = run_cli("init", tmp_path / "taken")

    assert refused.code == 2
    assert "is not a directory" in refused.err
