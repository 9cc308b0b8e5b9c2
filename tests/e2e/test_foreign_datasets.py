"""Real lines of openai/evals, inspect_ai and MT-bench datasets (tests/data/foreign-formats)
read unchanged as datasets and run against the fake server (docs/eval-files.md#foreign-formats):
each record is one case, and the row's wire request holds the source's messages exactly."""

from __future__ import annotations

import json
import shutil
from typing import Any, cast

from tests.conftest import DATA
from tests.e2e.harness import E2E

SAMPLES = DATA / "foreign-formats"


def _lines(name: str) -> list[dict[str, Any]]:
    text = (SAMPLES / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _copy(e2e: E2E, name: str) -> None:
    (e2e.root / "evals" / "data").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SAMPLES / name, e2e.root / "evals" / "data" / name)


def _run(e2e: E2E, eval_file: str) -> list[dict[str, Any]]:
    checked = e2e.run("validate", eval_file)
    assert checked.code == 0, checked.out + checked.err
    result = e2e.run("eval", eval_file, "--target", "oa", "--out", "results.jsonl")
    assert result.code in (0, 1), result.err
    return e2e.rows()


def test_openai_evals_samples_send_their_messages_exactly(e2e: E2E) -> None:
    _copy(e2e, "openai-evals-match.jsonl")
    e2e.project.write(
        "evals/match.yaml",
        """execution:
  evaluators:
    - {name: match, type: match}
evalcases:
  - id: phrase
    dataset: {path: data/openai-evals-match.jsonl, format: openai-evals}
""",
    )

    rows = _run(e2e, "evals/match.yaml")

    source = _lines("openai-evals-match.jsonl")
    assert [row["eval_id"] for row in rows] == ["phrase-1", "phrase-2", "phrase-3"]
    for row, line in zip(rows, source, strict=True):
        assert row["wire_request"]["body"]["messages"] == line["input"]
        assert row["reference_answer"] == line["ideal"]
        assert row["vars"] == line
    sent = [json.loads(request.body)["messages"] for request in e2e.candidates()]
    assert sent == [line["input"] for line in source]


def test_inspect_samples_send_their_messages_exactly(e2e: E2E) -> None:
    _copy(e2e, "inspect-theory-of-mind.jsonl")
    e2e.project.write(
        "evals/tom.yaml",
        """evalcases:
  - id: tom
    dataset: {path: data/inspect-theory-of-mind.jsonl, format: inspect}
    execution:
      evaluators:
        - {name: has, type: includes}
""",
    )

    rows = _run(e2e, "evals/tom.yaml")

    source = _lines("inspect-theory-of-mind.jsonl")
    assert [row["eval_id"] for row in rows] == ["tom-1", "tom-2", "tom-3"]
    for row, line in zip(rows, source, strict=True):
        assert row["wire_request"]["body"]["messages"][-1:] == line["input"]
        assert row["reference_answer"] == row["expected_outcome"] == line["target"]


def test_mt_bench_questions_run_as_live_conversations(e2e: E2E) -> None:
    _copy(e2e, "mt-bench-question.jsonl")
    e2e.project.write(
        "evals/mt.yaml",
        """evalcases:
  - id: mt
    dataset: {path: data/mt-bench-question.jsonl, format: mt-bench}
    expected_outcome: "A good answer to each {{ category }} turn."
    execution:
      evaluators:
        - {name: replied, type: contains, value: ""}
""",
    )

    _run(e2e, "evals/mt.yaml")

    source = _lines("mt-bench-question.jsonl")
    rows = e2e.results()
    assert [row.eval_id for row in rows] == [str(line["question_id"]) for line in source]
    for row, line in zip(rows, source, strict=True):
        assert row.metadata == {"category": line["category"]}
        assert row.expected_outcome == f"A good answer to each {line['category']} turn."
        last = list(row.full_turns())[-1].wire_request
        assert last is not None
        wire: Any = last
        messages = cast(list[dict[str, Any]], wire.body["messages"])
        users = [m["content"] for m in messages if m["role"] == "user"]
        assert users == line["turns"]
