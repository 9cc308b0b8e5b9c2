"""The messages an evaluator sees as authored (``input_messages`` and ``expected_messages``
of a script's stdin and a judge's template, docs/eval-files.md#code) are the loader's reading
of the case: a live conversation without history has no input before its first turn, where
the evaluators once saw an empty user message the target was never sent."""

from __future__ import annotations

import json
import sys

import pytest

import evalwright as ew
from evalwright.evaluators.context import authored_messages
from tests.conftest import ProjectDir

SEEN = """import json, sys
case = json.load(sys.stdin)
seen = {"input": case["input_messages"], "expected": case["expected_messages"]}
print(json.dumps({"score": 1, "hits": [], "misses": [], "reasoning": json.dumps(seen)}))
"""

CASES = """evalcases:
  - id: fixed
    expected_outcome: o
    input: Hello?
    expected_output: Hi.
  - id: history
    expected_outcome: o
    input_messages:
      - {role: system, content: Be brief.}
      - {role: user, content: Hello?}
  - id: live
    expected_outcome: o
    turns: [Hello?]
  - id: live-with-history
    expected_outcome: o
    input_messages:
      - {role: system, content: Be brief.}
    turns: [Hello?]
  - id: simulated
    expected_outcome: o
    simulated_user: {target: sim, persona: A guest., goal: A table., max_turns: 1}
"""


@pytest.mark.parametrize(
    ("case_id", "inputs", "expected"),
    [
        ("fixed", [("user", "Hello?")], [("assistant", "Hi.")]),
        ("history", [("system", "Be brief."), ("user", "Hello?")], []),
        ("live", [], []),
        ("live-with-history", [("system", "Be brief.")], []),
        ("simulated", [], []),
    ],
)
def test_evaluators_see_the_input_the_loader_reads(
    project: ProjectDir,
    case_id: str,
    inputs: list[tuple[str, str]],
    expected: list[tuple[str, str]],
) -> None:
    project.write("evals/cases.yaml", CASES)
    suite = project.load("evals/cases.yaml")
    (case,) = [c for c in suite.cases if c.id == case_id]
    seen_in, seen_expected = authored_messages(case, suite.resolver, str(suite.path.parent))
    assert [(m["role"], m["content"]) for m in seen_in] == inputs
    assert [(m["role"], m["content"]) for m in seen_expected] == expected
    # The loader's messages: what the prompt builder sends.
    assert [m.role for m in case.input_messages] == [role for role, _ in inputs]
    assert [m.role for m in case.expected_messages] == [role for role, _ in expected]


def test_a_script_on_a_live_turn_sees_no_input_before_the_first_turn(
    project: ProjectDir,
) -> None:
    project.write("evals/seen.py", SEEN)
    script = json.dumps([sys.executable, "seen.py"])
    project.write(
        "evals/live.yaml",
        f"""evalcases:
  - id: live
    expected_outcome: o
    turns:
      - content: Hello?
        evaluators:
          - {{name: seen, type: code, script: {script}}}
    execution:
      evaluators:
        - {{name: said, type: contains, value: hi}}
""",
    )
    target = ew.CliTarget(name="sh", command=[sys.executable, "-c", "print('hi')"])
    result = ew.run(project.root / "evals/live.yaml", targets=[target], out=project.root / "r")
    (row,) = result.rows
    assert row.turns is not None
    (seen,) = row.turns[0].evaluator_results
    assert seen.status == "ok", seen.reasoning
    assert json.loads(seen.reasoning) == {"input": [], "expected": []}
