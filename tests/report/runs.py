"""Real runs for the report's tests: mock targets, a command-line target that fails, and
a case whose answer and metadata are hostile markup; and a tool loop on the fake server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import evalwright as ew
from evalwright.testing import FakeServer, FunctionCall, ReceivedRequest, Text, ToolCalls
from tests.conftest import ProjectDir, run_cli
from tests.e2e.harness import base_env, environment, is_judge, targets_yaml

HOSTILE = '<img src=x onerror="alert(1)"></script><script>alert(2)</script>&amp; \u2028'
"""Markup that would run if the report ever parsed row text as HTML."""

GOOD = "Paris is the capital. The loop never runs, so it returns 0."
CASE_IDS: tuple[str, ...] = ("review-loop-bug", "capital", "lossy", "hostile")


def _cases() -> list[ew.EvalCase]:
    paris = ew.Execution(evaluators=[ew.ContainsSpec(name="paris", value="Paris")])
    return [
        ew.EvalCase(
            id="review-loop-bug",
            expected_outcome="Says the function returns 0",
            input="What does calculateTotal return?",
            metadata={"topic": "review"},
            execution=paris,
        ),
        ew.EvalCase(
            id="capital",
            expected_outcome="Names Paris",
            input="Capital of France?",
            metadata={"topic": "geography"},
            execution=paris,
        ),
        ew.EvalCase(
            id="lossy",
            expected_outcome="Names Paris",
            input_messages=[
                ew.user("Capital of France?"),
                ew.assistant("Let me think."),
                ew.system("Answer in one word."),
                ew.user("Well?"),
            ],
            execution=paris,
        ),
        ew.EvalCase(
            id="hostile",
            expected_outcome=HOSTILE,
            input=f"Repeat this: {HOSTILE}",
            metadata={"note": HOSTILE},
            execution=paris,
        ),
    ]


def run_suite(root: Path, name: str, *, regress: str | None = None) -> ew.RunResult:
    """One run of every case on the targets ``gpt``, ``claude`` and ``broken`` (which always
    fails); with ``regress``, ``gpt`` answers that case without Paris."""
    gpt: dict[str, str] = dict.fromkeys(CASE_IDS, GOOD)
    gpt["hostile"] = f"Paris {HOSTILE}"
    if regress is not None:
        gpt[regress] = "I do not know."
    targets = [
        ew.MockTarget(name="gpt", responses=gpt, response=GOOD),
        ew.MockTarget(name="claude", response="London"),
        ew.CliTarget(name="broken", command=[sys.executable, "-c", "raise SystemExit(3)"]),
    ]
    suite = ew.Suite(_cases(), name="report-demo", base_dir=root)
    return ew.run(suite, targets=targets, out=root / f"{name}.jsonl", workers=4)


TOOL_RESULT = f"$(touch pwned) {HOSTILE}"
"""What ``find_user`` answers for ``mia``: hostile markup and shell, to be shown as text."""
HUGE_NOTE = "$(rm -rf ~) </script> " + "x" * 200_000
"""A huge argument of the ``book`` call."""
BOOKED = "Booked HAT083 for Mia: her seat, meal and bags are unchanged, and so is the fare."
TOOLS_EVAL = f"""tools:
  - name: find_user
    parameters:
      type: object
      properties: {{user_id: {{type: string}}}}
    results:
      - when: {{user_id: mia}}
        result: {json.dumps(TOOL_RESULT)}
      - error: user not found
  - name: book
    parameters:
      type: object
      properties: {{flight: {{type: string}}, note: {{type: string}}}}
    result: booked
execution:
  evaluators:
    - {{name: looked-up, type: tool_called, tool: find_user}}
    - {{name: never-books, type: tool_called, tool: book, negate: true}}
evalcases:
  - id: loop
    expected_outcome: Books HAT083 for Mia.
    input: Book HAT083 for mia.
  - id: runaway
    expected_outcome: Stops.
    input: Find everyone.
    max_steps: 2
  - id: choice
    expected_outcome: Picks a seat.
    input: Pick a seat.
    tools_replace: true
    tools:
      - name: pick_seat
        parameters: {{type: object, properties: {{seat: {{type: string}}}}}}
"""
LOOP: list[ToolCalls | Text] = [
    ToolCalls(
        (
            FunctionCall("find_user", {"user_id": "mia"}, "c1"),
            FunctionCall("find_user", {"user_id": "nobody"}, "c2"),
        ),
        text="Looking you up.",
    ),
    ToolCalls((FunctionCall("book", {"flight": "HAT083", "note": HUGE_NOTE}, "c3"),)),
    Text(BOOKED),
]
"""The model's answers to the ``loop`` case, step by step."""


def _tool_answer(request: ReceivedRequest) -> ToolCalls | Text | None:
    """The model of :data:`TOOLS_EVAL`: ``loop`` as :data:`LOOP`, ``runaway`` calls a tool at
    every step, ``choice`` calls ``pick_seat`` twice (the second time with arguments that are
    no JSON object)."""
    if is_judge(request):
        return None
    messages = request.json["messages"]
    step = sum(1 for m in messages if m["role"] == "assistant")
    question = next(m["content"] for m in messages if m["role"] == "user")
    if "Book" in question:
        return LOOP[step]
    if "everyone" in question:
        return ToolCalls((FunctionCall("find_user", {"user_id": "mia"}, f"r{step}"),))
    seat = FunctionCall("pick_seat", '{"seat": "12A"}', "s1")
    return ToolCalls((seat, FunctionCall("pick_seat", "not json $(x)", "s2")))


def run_tool_loop(root: Path) -> tuple[Path, list[ReceivedRequest]]:
    """A real run of :data:`TOOLS_EVAL` on an OpenAI target of the fake server: its results
    file, and the requests the server received."""
    project = ProjectDir(root)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    with FakeServer.in_thread() as server:
        project.write(".evalwright/targets.yaml", targets_yaml(server.url))
        project.write("evals/tools.yaml", TOOLS_EVAL)
        server.responder = _tool_answer
        with environment(root, base_env()):
            run_cli("eval", "evals/tools.yaml", "--target", "oa", "--out", "tools.jsonl")
        return root / "tools.jsonl", list(server.requests)
