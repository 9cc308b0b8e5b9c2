"""``evalwright schema eval|targets|config|results``: valid JSON Schemas that accept our own
files (and, for ``results``, the rows evalwright writes)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, cast

import jsonschema
import pytest
from ruamel.yaml import YAML

from tests.conftest import REPO, run_cli

QUICKSTART = REPO / "examples" / "quickstart"
GOLDEN_ROWS = REPO / "tests" / "results" / "golden_rows.jsonl"


@cache
def schema_of(kind: str) -> dict[str, Any]:
    """The schema ``evalwright schema KIND`` prints (checked to be a valid 2020-12 schema).

    Cached: printing and checking a schema takes a noticeable fraction of a second.
    """
    result = run_cli("schema", kind)
    assert result.code == 0, result.err
    schema = cast(dict[str, Any], result.json())
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


@cache
def validator(kind: str) -> jsonschema.Draft202012Validator:
    """A validator for documents of ``kind``."""
    return jsonschema.Draft202012Validator(schema_of(kind))


def read_yaml(path: Path) -> Any:
    """A YAML file as plain data (YAML 1.2, as evalwright reads it)."""
    loader: Any = YAML(typ="safe", pure=True)
    return loader.load(path.read_text(encoding="utf-8"))


def problems(kind: str, document: Any) -> list[str]:
    """Why ``document`` is not a valid ``kind`` document (empty when it is)."""
    errors = validator(kind).iter_errors(document)  # pyright: ignore[reportUnknownMemberType]
    return [str(error.message) for error in errors]


@pytest.mark.parametrize("kind", ["eval", "targets", "config", "results"])
def test_each_schema_is_valid_json_schema(kind: str) -> None:
    schema = schema_of(kind)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["type"] == "object"
    assert "evalwright" in schema["title"]
    assert schema["additionalProperties"] is False


def test_the_default_kind_is_eval() -> None:
    assert run_cli("schema").json() == run_cli("schema", "eval").json()


def test_an_unknown_kind_is_a_usage_error() -> None:
    result = run_cli("schema", "rows")
    assert result.code == 2
    assert "invalid choice" in result.err


def test_eval_schema_accepts_the_quickstart_eval_file() -> None:
    document = read_yaml(QUICKSTART / "evals" / "review.yaml")
    assert document["evalcases"]
    assert problems("eval", document) == []


def test_eval_schema_rejects_wrong_documents() -> None:
    assert problems("eval", {"evalcases": "not a list"})
    assert problems("eval", {"evalcases": [], "bogus": 1})


def test_eval_schema_knows_judge_panels() -> None:
    document = read_yaml(REPO / "examples" / "judges" / "evals" / "support.yaml")
    assert problems("eval", document) == []
    panel = document["execution"]["evaluators"][0]
    for wrong in ({"judges": ["a"]}, {"judges": ["a", "a"]}, {"aggregate": "mode"}):
        changed = {**document, "execution": {"evaluators": [{**panel, **wrong}]}}
        assert problems("eval", changed), wrong


def test_eval_schema_knows_pass_env_of_code_evaluators() -> None:
    def with_code(**keys: Any) -> dict[str, Any]:
        code = {"name": "s", "type": "code", "script": ["python3", "s.py"], **keys}
        case = {"id": "a", "expected_outcome": "o", "input": "hi"}
        return {"execution": {"evaluators": [code]}, "evalcases": [case]}

    assert problems("eval", with_code()) == []
    assert problems("eval", with_code(pass_env=["MY_API_KEY", "_x1"])) == []
    assert problems("eval", with_code(pass_env="MY_API_KEY"))
    assert problems("eval", with_code(pass_env=["not a name"]))


def test_targets_schema_accepts_the_quickstart_targets_file() -> None:
    document = read_yaml(QUICKSTART / ".evalwright" / "targets.yaml")
    assert document["targets"][0]["provider"] == "mock"
    assert problems("targets", document) == []


@pytest.mark.parametrize(
    "target",
    [
        {"name": "a", "provider": "openai", "model": "m", "api_key": "${{ KEY }}"},
        {"name": "a", "provider": "openai", "model": "m", "base_url": "http://localhost/v1"},
        {"name": "a", "provider": "azure", "endpoint": "e", "deployment": "d"},
        {"name": "a", "provider": "azure", "endpoint": "e", "model": "d"},
        {"name": "a", "provider": "anthropic", "model": "m", "retry": {"max_retries": 1}},
        {"name": "a", "provider": "gemini", "model": "m", "temperature": 0},
        {"name": "a", "provider": "mock", "responses": {"c": "x"}},
        {"name": "a", "provider": "cli", "command": ["run", "{PROMPT}"]},
        {"name": "a", "provider": "cli", "command": "run {PROMPT}", "healthcheck": {"url": "u"}},
        {"name": "a", "provider": "cli", "command": ["sh", "-c", "x"], "pass_env": ["A_TOKEN"]},
        {"name": "a", "provider": "codex", "args": ["--x"]},
        {"name": "a", "provider": "vscode-insiders", "dry_run": True},
    ],
)
def test_targets_schema_accepts_each_provider(target: dict[str, Any]) -> None:
    document = {"$schema": "evalwright-targets-v1", "targets": [target]}
    assert problems("targets", document) == []


@pytest.mark.parametrize(
    "document",
    [
        {"targets": [{"name": "a", "provider": "openia", "model": "m"}]},
        {"targets": [{"name": "a", "provider": "anthropic", "model": "m", "temperature": 0}]},
        {"targets": [{"name": "a", "provider": "openai"}]},
        {"targets": [{"name": "a", "provider": "openai", "model": "m", "system_role": "user"}]},
        {"targets": [{"name": "a", "provider": "azure", "endpoint": "e"}]},
        {
            "targets": [
                {"name": "a", "provider": "azure", "endpoint": "e", "deployment": "d", "model": "m"}
            ]
        },
        {"targets": [{"name": "a b", "provider": "mock"}]},
        {"targets": [{"name": "a", "provider": "cli", "command": "x", "pass_env": ["A-B"]}]},
        {"targets": [{"name": "a", "provider": "codex", "pass_env": ["A"]}]},
        {"targets": [{"name": "a", "provider": "mock"}], "extra": 1},
        {"$schema": "something-else", "targets": []},
        {},
    ],
)
def test_targets_schema_rejects_wrong_documents(document: dict[str, Any]) -> None:
    assert problems("targets", document)


def test_config_schema() -> None:
    good = {
        "$schema": "agentv-config-v2",
        "guideline_patterns": ["**/*.instructions.md"],
        "max_file_bytes": 1024,
        "cache": True,
    }
    assert problems("config", good) == []
    assert problems("config", {}) == []
    assert problems("config", {"guideline_pattern": []})
    assert problems("config", {"max_file_bytes": 0})


def _golden() -> list[dict[str, Any]]:
    return [json.loads(line) for line in GOLDEN_ROWS.read_text(encoding="utf-8").splitlines()]


def test_results_schema_accepts_every_kind_of_row() -> None:
    rows = _golden()
    assert {row["status"] for row in rows} == {"ok", "error"}
    assert [problems("results", row) for row in rows] == [[] for _ in rows]


@pytest.mark.parametrize(
    "change",
    [
        {"score": "high"},
        {"status": "passed"},
        {"cache": None},
        {"attempts": 1.5},
        {"bogus": 1},
        {"error": {"type": "oops", "message": "m"}},
        {"error": {"type": "timeout"}},
        {"wire_request": {"api": "ollama", "model": "m", "url_path": None, "body": {}}},
        {"wire_request": {"api": "cli", "model": "m", "url_path": None, "body": {}}},
        {"usage": {"input_tokens": 1}},
        {"delivery_notes": [{"rule": "made_up", "detail": "d"}]},
        {"trace": [{"type": "command", "exit": 0}]},
        {"evaluator_results": [{"name": "n"}]},
    ],
)
def test_results_schema_rejects_wrong_rows(change: dict[str, Any]) -> None:
    row = {**_golden()[0], **change}
    assert problems("results", row)


def test_results_schema_requires_every_key() -> None:
    row = _golden()[0]
    for key in row:
        assert problems("results", {k: v for k, v in row.items() if k != key}), key


def test_eval_schema_knows_live_turns() -> None:
    document = read_yaml(QUICKSTART.parent / "conversations" / "evals" / "booking.yaml")
    assert problems("eval", document) == []
    case = {"id": "a", "expected_outcome": "o", "turns": ["hi", {"content": "x", "bogus": 1}]}
    assert problems("eval", {"evalcases": [case]})


def test_eval_schema_knows_simulated_users() -> None:
    document = read_yaml(QUICKSTART.parent / "conversations" / "evals" / "simulated.yaml")
    assert problems("eval", document) == []
    user = {"target": "t", "persona": "p", "goal": "g", "max_turns": 2}
    case = {"id": "a", "expected_outcome": "o", "simulated_user": user}
    assert problems("eval", {"evalcases": [case]}) == []
    for bad in ({**user, "max_turns": 0}, {**user, "bogus": 1}, {"target": "t"}):
        assert problems("eval", {"evalcases": [{**case, "simulated_user": bad}]}), bad


def test_eval_schema_knows_tools() -> None:
    tool = {"name": "weather", "parameters": {"type": "object"}, "strict": True}

    def with_tools(tools: Any, **case_keys: Any) -> dict[str, Any]:
        case = {"id": "a", "expected_outcome": "o", "input": "hi", **case_keys}
        return {"tools": [{"file": "tools.json"}], "evalcases": [{**case, "tools": tools}]}

    assert problems("eval", with_tools([tool], tools_replace=True)) == []
    assert problems("eval", with_tools([], settings={"tool_choice": {"name": "weather"}})) == []
    assert problems("eval", with_tools([], settings={"tool_choice": "required"})) == []
    assert problems("eval", with_tools([{**tool, "name": "get weather"}]))
    assert problems("eval", with_tools([{**tool, "bogus": 1}]))
    assert problems("eval", with_tools([], settings={"tool_choice": "always"}))
