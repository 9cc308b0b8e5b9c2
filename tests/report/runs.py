"""Real runs for the report's tests: mock targets, a command-line target that fails, and
a case whose answer and metadata are hostile markup."""

from __future__ import annotations

import sys
from pathlib import Path

import evalwright as ew

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
