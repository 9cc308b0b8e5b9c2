"""An eval file with few-shot names (OpenAI-evals' ``example_user``/``example_assistant``)
run end to end (docs/eval-files.md#messages-and-parts): OpenAI gets each name on its
message, Anthropic gets the messages without them and the row says so in notes."""

from __future__ import annotations

import json

from tests.e2e.harness import E2E

EVAL_FILE = "evals/names.yaml"
EVAL = """execution:
  evaluators:
    - {name: says, type: contains, value: chien}
evalcases:
  - id: few-shot
    expected_outcome: Translates to French.
    input_messages:
      - {role: system, content: Translate to French.}
      - {role: user, name: example_user, content: cat}
      - {role: assistant, name: example_assistant, content: chat}
      - {role: user, content: dog}
"""


def test_names_reach_openai_and_are_noted_on_anthropic(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)

    result = e2e.run(
        "eval", EVAL_FILE, "--target", "oa", "--target", "an", "--out", "results.jsonl"
    )

    assert result.code in (0, 1), result.err
    rows = {row["target"]: row for row in e2e.rows()}
    sent = json.loads(e2e.candidates()[0].body)  # the targets run in file order: oa first
    wire = rows["oa"]["wire_request"]["body"]["messages"]
    assert [m.get("name") for m in wire] == [None, "example_user", "example_assistant", None]
    assert sent["messages"] == wire, "the row records the body that was sent"
    assert [m.get("name") for m in rows["oa"]["raw_request"]["chat_prompt"]][1:3] == [
        "example_user",
        "example_assistant",
    ]
    assert not rows["oa"]["delivery_notes"]
    notes = [n for n in rows["an"]["delivery_notes"] if n["rule"] == "name_unsupported"]
    assert [n["detail"].split(":")[0] for n in notes] == ["chat_prompt[1]", "chat_prompt[2]"]
    assert "example_user" not in json.dumps(rows["an"]["wire_request"]["body"])
