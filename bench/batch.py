"""Batch mode at scale (docs/batch.md): N chat requests through ``evalwright eval --batch``
against the fake server's OpenAI Batch API, which holds each batch for a simulated delay.

Prints one JSON object: wall time, the simulated batch delay, peak RSS, requests per second,
the batches created and the rows written (and errored). See bench/README.md.

    python bench/batch.py                     # 10,000 requests, a 5 s batch delay
    python bench/batch.py --cases 2000 --batch-delay 1
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from launch import run_measured
from measure import bench_env, evalwright, warm_up
from suite import targets_yaml, write_suite

from evalwright.testing import FakeServer


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark once and print its figures."""
    parser = argparse.ArgumentParser(description="N chat requests through eval --batch")
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--batch-delay", type=float, default=5.0, metavar="SECONDS")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, FakeServer.in_thread() as server:
        root = Path(tmp)
        server.batch_delay = args.batch_delay
        write_suite(root, args.cases)
        (root / ".evalwright").mkdir()
        (root / ".evalwright" / "targets.yaml").write_text(targets_yaml(server.url, 8))
        warm_up(root)
        out = root / "results.jsonl"
        argv_ = evalwright("eval", "evals/bench.jsonl", "--batch", "--quiet", "--out", str(out))
        env = {**bench_env(), "OPENAI_API_KEY": "sk-bench"}
        measured = run_measured(argv_, root, env)
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        created = [r for r in server.requests if r.method == "POST" and r.path == "/v1/batches"]
        figures = {
            "cases": args.cases,
            "batch_delay_s": args.batch_delay,
            "exit_code": measured.code,
            "wall_s": round(measured.wall, 2),
            "cpu_s": round(measured.cpu, 2),
            "peak_rss_mib": round(measured.rss_kib / 1024, 1),
            "requests_per_s": round(args.cases / measured.wall, 1),
            "batches": len(created),
            "live_requests": len(server.requests_for("openai")),
            "rows": len(rows),
            "error_rows": sum(1 for row in rows if row["status"] != "ok"),
        }
    print(json.dumps(figures, indent=1))
    if measured.code != 0:
        print(measured.stderr_tail, file=sys.stderr)
    return 0 if measured.code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
