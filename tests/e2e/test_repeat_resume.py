"""An interrupted run with ``--repeat`` keeps its rows, and ``--resume`` completes it: every
(eval file, case, target, repeat) once, only the missing repeats asked again
(docs/running.md#repeats-and-reliability)."""

from __future__ import annotations

import json
from collections import Counter

from tests.e2e.background import complete_lines, interrupt_after_rows, start_eval
from tests.e2e.harness import E2E

CASES = 4
REPEATS = 3
EVAL_FILE = "evals/cases.yaml"
RESULTS = "results.jsonl"


def _eval_text() -> str:
    lines = [
        "execution:",
        "  evaluators:",
        "    - {name: says-fake, type: contains, value: fake}",
        "evalcases:",
    ]
    for i in range(CASES):
        lines += [
            f"  - id: case-{i}",
            f"    expected_outcome: Answers question {i}.",
            f"    input: Question number {i}?",
        ]
    return "\n".join(lines) + "\n"


def test_resume_of_an_interrupted_repeated_run_completes_every_repeat_once(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, _eval_text())
    e2e.server.latency_ms = 300
    path = e2e.root / RESULTS
    options = ("--target", "oa", "--repeat", str(REPEATS))
    process = start_eval(e2e, "eval", EVAL_FILE, *options, "--workers", "2", "--out", path)

    err = interrupt_after_rows(path, 3, process)

    assert process.returncode == 130, err
    first = [json.loads(line) for line in complete_lines(path)]
    assert 3 <= len(first) < CASES * REPEATS, "the interrupt landed mid-run"
    done = {(r["eval_id"], r["repeat"]) for r in first}
    e2e.server.latency_ms = 0
    e2e.server.clear()

    resumed = e2e.run("eval", EVAL_FILE, *options, "--resume", RESULTS)

    assert resumed.code == 0, resumed.err
    rows = e2e.rows(RESULTS)
    keys = [(r["eval_file"], r["eval_id"], r["target"], r["repeat"]) for r in rows]
    assert len(keys) == len(set(keys)) == CASES * REPEATS, "no duplicate, no missing row"
    assert Counter(r["eval_id"] for r in rows) == {f"case-{i}": REPEATS for i in range(CASES)}
    assert sorted({r["repeat"] for r in rows}) == list(range(REPEATS))
    assert len(e2e.candidates()) == CASES * REPEATS - len(done), "kept repeats are not asked"
    assert f"{CASES * REPEATS} of {CASES * REPEATS} case(s) run" in resumed.out
