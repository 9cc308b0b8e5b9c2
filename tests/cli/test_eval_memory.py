"""``evalwright eval`` holds no finished row: its memory does not grow with the suite."""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path

from evalwright.results.row import ResultRow
from tests.conftest import ProjectDir, run_cli

CASES = 40
PREFIX = "held-check-"  # this test's rows, not those other tests left to the collector
TARGETS = """\
targets:
  - {name: default, provider: mock, response: "ok", delay_ms: 15}
"""


def _live_rows_once_half_written(out: Path, counts: list[int]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        lines = out.read_bytes().count(b"\n") if out.exists() else 0
        if lines >= CASES // 2:
            gc.collect()  # garbage is not held: only rows something still refers to count
            rows = (o for o in gc.get_objects() if type(o) is ResultRow)
            counts.append(sum(1 for row in rows if row.eval_id.startswith(PREFIX)))
            return
        time.sleep(0.01)


def test_finished_rows_are_not_held_during_a_run(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    cases = "".join(
        f'{{"id": "{PREFIX}{n}", "expected_outcome": "ok", "input": "q{n}"}}\n'
        for n in range(CASES)
    )
    project.write("evals/many.jsonl", '{"description": "many"}\n' + cases)
    out = project.root / "r.jsonl"
    counts: list[int] = []
    watcher = threading.Thread(target=_live_rows_once_half_written, args=(out, counts))
    watcher.start()
    result = run_cli(
        "eval", project.root / "evals/many.jsonl", "--workers", "1", "--out", out, "--quiet"
    )
    watcher.join()
    assert result.code == 0, result.err
    assert counts, "the watcher never saw half the rows written"
    # Rows in flight may be alive; the ones already written must not be kept.
    assert counts[0] <= 3, f"{counts[0]} rows alive with {CASES // 2} written"
