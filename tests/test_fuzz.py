"""The loading stage under fuzzing: thousands of mutated and generated eval files (truncated,
bytes flipped, deep nesting, anchor bombs, huge numbers, invalid UTF-8, NUL, BOM, CRLF,
duplicate keys, special files) through ``validate`` and ``prompt --json``, with a memory limit
and a time limit per command: no traceback, no hang, every error located.

The seed is random on each run and printed with any failure; ``FUZZ_SEED`` repeats a run and
``FUZZ_FILES`` changes how many files are made (default 1,000, split over two workers: each
worker first tries every mutation alone on every seed, then random ones; a deep run sets
``FUZZ_FILES=20000``).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.fuzzing import prepare_project

WORKERS = 2


def test_fuzzed_eval_files_give_located_errors_never_a_crash(tmp_path: Path) -> None:
    total = int(os.environ.get("FUZZ_FILES", "1000"))
    base_seed = int(os.environ.get("FUZZ_SEED", str(random.randrange(1 << 30))))
    project = tmp_path / "project"
    prepare_project(project)
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYDANTIC_DISABLE_PLUGINS": "__all__"}
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.fuzzing",
                str(project),
                str(base_seed + i),
                str(total // WORKERS),
            ],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(WORKERS)
    ]
    findings: list[dict[str, object]] = []
    for worker in workers:
        out, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, f"fuzz worker failed (FUZZ_SEED={base_seed}): {err[-3000:]}"
        findings += [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    shown = json.dumps(findings[:5], indent=1)[:6000]
    assert not findings, f"{len(findings)} file(s) with problems (FUZZ_SEED={base_seed}):\n{shown}"
