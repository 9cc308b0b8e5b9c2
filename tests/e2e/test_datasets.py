"""Template cases run end to end (docs/eval-files.md#datasets-and-variables): the filled
text is what the target gets and the row records, with the record's ``vars``; a case without
records sends ``{{`` as written; a missing variable stops ``eval`` with a located error; and a
dataset is read as the run goes, not before it starts."""

from __future__ import annotations

import json

from evalwright.testing import ReceivedRequest, Text
from tests.e2e.harness import E2E, is_judge

EVAL_FILE = "evals/e.yaml"
TEMPLATE = """execution:
  evaluators:
    - {name: has, type: contains, value: "{{ answer }}"}
evalcases:
  - id: q
    dataset: d.csv
    input: "Say {{ answer }} to {{ who }}."
    expected_outcome: "Says {{ answer }}."
  - id: literal
    input: "Keep {{ answer }} as it is."
    expected_outcome: ok
    execution:
      evaluators:
        - {name: any, type: contains, value: ""}
"""


def _user_text(body: bytes) -> str:
    return json.loads(body)["messages"][-1]["content"]


def test_rows_carry_the_filled_case_and_its_record(e2e: E2E) -> None:
    e2e.project.write("evals/d.csv", "who,answer\nAda,yes\nBob,no\n")
    e2e.project.write(EVAL_FILE, TEMPLATE)

    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    assert result.code in (0, 1), result.err
    rows = {row["eval_id"]: row for row in e2e.rows()}
    assert set(rows) == {"q-1", "q-2", "literal"}
    assert rows["q-1"]["vars"] == {"who": "Ada", "answer": "yes"}
    assert rows["q-2"]["expected_outcome"] == "Says no."
    assert rows["q-2"]["wire_request"]["body"]["messages"][-1]["content"] == "Say no to Bob."
    assert "vars" not in rows["literal"]
    sent = sorted(_user_text(r.body) for r in e2e.candidates())
    assert sent == ["Keep {{ answer }} as it is.", "Say no to Bob.", "Say yes to Ada."]
    checks = {row["eval_id"]: row["evaluator_results"][0] for row in e2e.rows()}
    assert "'yes'" in json.dumps(checks["q-1"])
    assert "'no'" in json.dumps(checks["q-2"])


def test_a_missing_variable_stops_eval_with_a_located_error(e2e: E2E) -> None:
    e2e.project.write("evals/d.csv", "who\nAda\n")
    e2e.project.write(EVAL_FILE, TEMPLATE)

    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    assert result.code == 2, (result.code, result.err)
    assert "Traceback" not in result.err
    assert (
        "e.yaml:7:12: error: evalcases[0].input: record 1 (id 'q-1'): undefined variable 'answer'"
        in result.err
    )
    assert not e2e.candidates()


def test_the_first_request_is_sent_before_the_dataset_is_read_whole(e2e: E2E) -> None:
    """The dataset holds ten records when the run starts; the first request appends an
    eleventh: it is run too, so the first request went out before the dataset was read to its
    end (the run reads a few cases ahead of its workers, never the whole dataset)."""
    names = [f"P{n}" for n in range(10)]
    lines = "".join(f"{name},yes\n" for name in names)
    dataset = e2e.project.write("evals/d.csv", "who,answer\n" + lines)
    e2e.project.write(EVAL_FILE, TEMPLATE.split("  - id: literal", maxsplit=1)[0])

    def grow(request: ReceivedRequest) -> Text | None:
        if not is_judge(request) and "to P0." in _user_text(request.body):
            with dataset.open("a", encoding="utf-8") as handle:
                handle.write("Bob,no\n")
        return None

    e2e.server.responder = grow
    result = e2e.run(
        "eval", EVAL_FILE, "--target", "oa", "--workers", "1", "--out", "results.jsonl"
    )

    assert result.code in (0, 1), result.err
    assert [row["vars"]["who"] for row in e2e.rows()] == [*names, "Bob"]
