"""Every example project validates, and every example eval file previews, as a new user would
try them (in a copy, so the repository stays clean)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli

EXAMPLES = sorted(
    p.relative_to(REPO / "examples")
    for p in (REPO / "examples").rglob("*.yaml")
    if "evals" in p.parts
)


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("examples") / "examples"
    shutil.copytree(REPO / "examples", copy)
    return copy


def test_every_example_project_validates(examples: Path) -> None:
    result = run_cli("validate", examples)
    assert result.code == 0, result.out + result.err
    assert " 0 error(s)" in result.err


@pytest.mark.parametrize("eval_file", EXAMPLES, ids=str)
def test_every_example_eval_file_previews(examples: Path, eval_file: Path) -> None:
    result = run_cli("prompt", examples / eval_file, "--json")
    assert result.code == 0, result.err
    # One case prints one (indented) object; several print one object per line.
    objects = [result.json()] if result.out.startswith("{\n") else result.json_lines()
    assert objects
    assert all(item["messages"] for item in objects)
    assert run_cli("prompt", examples / eval_file).out.startswith("=== ")


def test_the_examples_cover_every_chat_api() -> None:
    assert EXAMPLES  # the quickstart and the providers example
    targets = (REPO / "examples" / "providers" / ".evalwright" / "targets.yaml").read_text()
    for provider in ("openai", "azure", "anthropic", "gemini"):
        assert f"provider: {provider}" in targets


def test_the_tools_example_runs_offline(examples: Path, tmp_path: Path) -> None:
    """docs/tools.md#a-runnable-example: the scripted mock plays each case's tool loop; the
    calls are answered by scripted results and a command, and the trajectory checks pass."""
    out = tmp_path / "tools.jsonl"
    result = run_cli("eval", examples / "tools", "--out", out)
    assert result.code == 0, result.err
    rows = {r["eval_id"]: r for r in map(json.loads, out.read_text("utf-8").splitlines())}
    assert [rows[c]["status"] for c in ("change-flight", "unknown-user")] == ["ok", "ok"]

    def steps(case: str) -> list[list[tuple[str, str, str, bool]]]:
        return [
            [(t["tool_call_id"], t["name"], t["source"], t["is_error"]) for t in results]
            for results in (s.get("tool_results", []) for s in rows[case]["steps"])
        ]

    def scores(case: str) -> dict[str, float]:
        return {e["name"]: e["score"] for e in rows[case]["evaluator_results"]}

    assert steps("change-flight") == [
        [("call_1", "get_user_details", "results", False)],
        [
            ("call_2", "get_reservation_details", "results", False),
            ("call_3", "search_direct_flight", "command", False),
        ],
        [("call_4", "update_reservation_flights", "result", False)],
        [],
    ]
    flights: Any = json.loads(rows["change-flight"]["steps"][1]["tool_results"][1]["content"])
    assert [(f["flight"], f["seats"]) for f in flights] == [("HAT083", 4), ("HAT100", 0)]
    assert rows["change-flight"]["candidate_answer"].startswith("Done. Reservation NO6JO3")
    assert scores("change-flight") == {
        "order": 1.0,
        "searched-the-route": 1.0,
        "names-the-flight": 1.0,
    }

    assert steps("unknown-user") == [[("call_1", "get_user_details", "results", True)], []]
    assert rows["unknown-user"]["steps"][0]["tool_results"][0]["content"] == "user not found"
    assert scores("unknown-user") == {
        "only-the-lookup": 1.0,
        "cancels-nothing": 1.0,
        "asks-again": 1.0,
    }
    assert "2/2" in result.out
