"""A large CSV dataset streamed through a template case (docs/eval-files.md#large-datasets):
how soon the first request goes out, and how memory grows with the dataset's size.
See bench/README.md#datasets.

    python bench/dataset.py                   # 100,000 and 10,000 records, one JSON object each
    python bench/dataset.py --records 20000   # one size
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from launch import run_measured
from measure import bench_env, evalwright, warm_up
from suite import targets_yaml

from evalwright.testing import FakeServer

TEMPLATE = """execution:
  evaluators:
    - {name: says, type: contains, value: "{{ answer }}"}
evalcases:
  - id: sum
    dataset: sums.csv
    input_messages:
      - {role: system, content: "Answer with a number only."}
      - {role: user, content: "What is {{ a }} + {{ b }}? Reply for {{ who }}."}
    expected_outcome: "Says {{ answer }}."
"""


def write_project(root: Path, records: int, url: str, workers: int) -> Path:
    """A project with a CSV of ``records`` records and the template case that reads it."""
    (root / ".git").mkdir(parents=True)
    (root / ".evalwright").mkdir()
    (root / ".evalwright" / "targets.yaml").write_text(targets_yaml(url, workers), "utf-8")
    (root / "evals").mkdir()
    with (root / "evals" / "sums.csv").open("w", encoding="utf-8") as out:
        out.write("a,b,answer,who\n")
        for n in range(records):
            out.write(f"{n},{n + 1},{2 * n + 1},person {n % 97}\n")
    path = root / "evals" / "sums.yaml"
    path.write_text(TEMPLATE, encoding="utf-8")
    return path


def measure(records: int, latency_ms: float, workers: int) -> dict[str, Any]:
    """One ``evalwright eval`` run on the dataset: start to first request, rows, peak RSS."""
    with (
        tempfile.TemporaryDirectory(prefix="evalwright-dataset-") as tmp,
        FakeServer.in_thread(latency_ms=latency_ms, default_text="an answer") as server,
    ):
        root = Path(tmp)
        eval_file = write_project(root, records, server.url, workers)
        warm_up(root)
        out = root / "results.jsonl"
        args = ["eval", str(eval_file), "--workers", str(workers), "--out", str(out), "--quiet"]
        run = run_measured(evalwright(*args), root, bench_env())
        requests = list(server.requests)
        first = min((r.received_at for r in requests), default=None)
        rows = sum(1 for _ in out.open(encoding="utf-8")) if out.exists() else 0
        return {
            "records": records,
            "csv_mib": round((root / "evals" / "sums.csv").stat().st_size / 2**20, 2),
            "exit_code": run.code,
            "first_request_s": round(first - run.started, 3) if first is not None else None,
            "wall_s": round(run.wall, 3),
            "cpu_s": round(run.cpu, 3),
            "peak_rss_mib": round(run.rss_kib / 1024, 1),
            "requests": len(requests),
            "rows": rows,
            "measured_at": time.strftime("%Y-%m-%d"),
        }


def main() -> None:
    """Print one JSON object per dataset size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, action="append")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--workers", type=int, default=32)
    args = parser.parse_args()
    for records in args.records or [100_000, 10_000]:
        print(json.dumps(measure(records, args.latency_ms, args.workers)), flush=True)


if __name__ == "__main__":
    main()
