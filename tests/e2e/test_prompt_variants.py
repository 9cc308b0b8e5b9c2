"""Prompt variants (docs/eval-files.md#prompt-variants) and ``system_prompt: none`` run end to
end against the fake API server: each case runs once per variant, each request carries its
variant's messages exactly, and the row names the variant."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter

import xmlschema

from evalwright.testing.actions import Text
from tests.conftest import REPO
from tests.e2e.background import complete_lines, interrupt_after_rows, start_eval
from tests.e2e.harness import E2E

XSD = REPO / "tests" / "data" / "junit-10.xsd"
EVAL_FILE = "evals/variants.yaml"
EVAL = """prompts:
  terse: Answer in one sentence.
  friendly:
    messages:
      - {role: system, content: You are warm.}
      - {role: user, content: Hi}
      - {role: assistant, content: Hello!}
execution:
  evaluators:
    - {name: says-fake, type: contains, value: fake}
evalcases:
  - id: plain
    expected_outcome: Answers.
    input: What is 2+2?
  - id: own-system
    expected_outcome: Answers.
    input_messages:
      - {role: system, content: Use French.}
      - {role: user, content: What is 3+3?}
"""


def _messages(row: dict[str, object]) -> list[dict[str, object]]:
    wire = row["wire_request"]
    assert isinstance(wire, dict)
    return wire["body"]["messages"]  # type: ignore[index]


def test_each_case_runs_once_per_variant_with_its_prompt(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)

    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    assert result.code == 0, result.err
    rows = {(r["eval_id"], r["variant"]): r for r in e2e.rows()}
    assert sorted(rows) == [
        ("own-system", "friendly"),
        ("own-system", "terse"),
        ("plain", "friendly"),
        ("plain", "terse"),
    ]
    assert _messages(rows["plain", "terse"]) == [
        {"role": "system", "content": "Answer in one sentence."},
        {"role": "user", "content": "What is 2+2?"},
    ]
    assert _messages(rows["plain", "friendly"]) == [
        {"role": "system", "content": "You are warm."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": "What is 2+2?"},
    ]
    # The variant's system text first, the case's own after it: both kept, one message, noted.
    assert _messages(rows["own-system", "terse"])[0] == {
        "role": "system",
        "content": "Answer in one sentence.\n\nUse French.",
    }
    notes = rows["own-system", "terse"]["delivery_notes"]
    assert [n["rule"] for n in notes] == ["system_messages_merged"]
    sent = sorted(json.dumps(json.loads(r.body)["messages"]) for r in e2e.candidates())
    assert sent == sorted(json.dumps(_messages(r)) for r in rows.values()), "rows = the wire"


def test_prompt_shows_each_variant_as_it_is_sent(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)

    shown = e2e.run("prompt", EVAL_FILE, "--eval-id", "plain", "--target", "oa", "--json")
    human = e2e.run("prompt", EVAL_FILE, "--eval-id", "plain")
    e2e.run("eval", EVAL_FILE, "--target", "oa", "--eval-id", "plain", "--out", "results.jsonl")

    assert shown.code == 0, shown.err
    items = [json.loads(line) for line in shown.out.splitlines()]
    assert [item["variant"] for item in items] == ["terse", "friendly"]
    sent = {row["variant"]: row["wire_request"]["body"] for row in e2e.rows()}
    assert {item["variant"]: item["wire_request"]["body"] for item in items} == sent
    assert "=== plain [terse] (evals/variants.yaml, lm mode) " in human.out
    assert "=== plain [friendly] (evals/variants.yaml, lm mode) " in human.out


def test_rows_of_a_file_without_prompts_have_no_variant_key(e2e: E2E) -> None:
    e2e.project.write(
        "evals/plain.yaml",
        "evalcases:\n  - id: a\n    expected_outcome: Answers.\n    input: Hi\n",
    )

    result = e2e.run("eval", "evals/plain.yaml", "--target", "oa", "--out", "results.jsonl")

    assert result.code in (0, 1), result.err
    assert ["variant" in row for row in e2e.rows()] == [False]


def test_system_prompt_none_sends_no_system_message(e2e: E2E) -> None:
    e2e.project.write(
        "evals/bare.yaml",
        "system_prompt: none\n"
        "evalcases:\n  - id: a\n    expected_outcome: Answers.\n    input: Hi\n",
    )

    result = e2e.run("eval", "evals/bare.yaml", "--target", "oa", "--out", "results.jsonl")

    assert result.code in (0, 1), result.err
    [candidate] = e2e.candidates()
    assert json.loads(candidate.body)["messages"] == [{"role": "user", "content": "Hi"}]


def test_resume_does_not_rerun_finished_case_variant_pairs(e2e: E2E) -> None:
    cases = "".join(
        f"  - id: case-{i}\n    expected_outcome: Answers.\n    input: Question {i}?\n"
        for i in range(4)
    )
    checks = "execution:\n  evaluators:\n    - {name: says, type: contains, value: fake}\n"
    e2e.project.write(
        EVAL_FILE, "prompts:\n  a: Be brief.\n  b: Be long.\n" + checks + "evalcases:\n" + cases
    )
    e2e.server.latency_ms = 300
    path = e2e.root / "results.jsonl"
    options = ("--target", "oa", "--workers", "2", "--out", path)
    process = start_eval(e2e, "eval", EVAL_FILE, *options)

    err = interrupt_after_rows(path, 3, process)

    assert process.returncode == 130, err
    first = [json.loads(line) for line in complete_lines(path)]
    assert 3 <= len(first) < 8, "the interrupt landed mid-run"
    e2e.server.latency_ms = 0
    e2e.server.clear()

    resumed = e2e.run("eval", EVAL_FILE, "--target", "oa", "--resume", "results.jsonl")

    assert resumed.code in (0, 1), resumed.err
    rows = e2e.rows()
    keys = Counter((r["eval_id"], r["variant"]) for r in rows)
    assert len(keys) == 8, keys
    assert set(keys.values()) == {1}, keys
    assert len(e2e.candidates()) == 8 - len(first), (
        "finished (case, variant) pairs are not asked again"
    )


def test_the_variant_shows_in_summary_compare_and_junit(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    junit = e2e.root / "junit.xml"

    first = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "a.jsonl", "--junit", junit)
    e2e.project.write(EVAL_FILE, EVAL.replace("value: fake", "value: absent"))
    e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "b.jsonl")
    compared = e2e.run("compare", "a.jsonl", "b.jsonl")

    assert first.code == 0, first.err
    summary = [line.split("  ")[0] for line in first.out.splitlines()[1:3]]
    assert summary == ["oa [terse]", "oa [friendly]"], first.out
    assert compared.code == 1, compared.err
    changed = [line for line in compared.out.splitlines() if line.startswith("regressed")]
    assert len(changed) == 4, "each (case, variant) is a key of its own"
    assert sum("oa [terse]" in line for line in changed) == 2, compared.out
    assert sum("oa [friendly]" in line for line in changed) == 2, compared.out
    xmlschema.XMLSchema(XSD).validate(junit)
    names = {case.get("name") for case in ET.parse(junit).getroot().iter("testcase")}
    assert names == {
        "plain [oa] [terse]",
        "plain [oa] [friendly]",
        "own-system [oa] [terse]",
        "own-system [oa] [friendly]",
    }


def test_only_failed_reruns_only_the_failed_variants(e2e: E2E) -> None:
    cases = "".join(
        f"  - id: case-{i}\n    expected_outcome: Answers.\n    input: Question {i}?\n"
        for i in range(2)
    )
    checks = "execution:\n  evaluators:\n    - {name: says, type: contains, value: fake}\n"
    text = "prompts:\n  a: Be brief.\n  b: Be long.\n" + checks + "evalcases:\n" + cases
    e2e.project.write(EVAL_FILE, text)
    # Variant b's answers miss the expected word: its rows fail, variant a's pass.
    e2e.server.responder = lambda r: Text("nope") if r.system_prompt == "Be long." else None
    first = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "first.jsonl")
    e2e.server.responder = None
    e2e.server.clear()

    again = e2e.run(
        "eval", EVAL_FILE, "--target", "oa", "--only-failed", "first.jsonl", "--out", "again.jsonl"
    )

    assert first.code == 1, first.err
    assert again.code == 0, again.err
    assert sorted((r["eval_id"], r["variant"]) for r in e2e.rows("again.jsonl")) == [
        ("case-0", "b"),
        ("case-1", "b"),
    ]
    assert {r.system_prompt for r in e2e.candidates()} == {"Be long."}
