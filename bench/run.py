"""Measure how fast ``evalwright eval`` runs against the physical limit.

Generates a synthetic suite (JSONL or YAML, optionally judge-heavy), serves it with the fake API
server at a fixed latency, runs ``evalwright eval`` as a subprocess and prints one JSON object
of figures. ``--all`` measures every goal of bench/README.md and prints the goals table, then
the JSON. See bench/README.md.

    python bench/run.py --cases 2000 --latency-ms 100 --workers 32
    python bench/run.py --yaml --judge       # the suite as YAML, an llm_judge on every case
    python bench/run.py --all                # every figure against its goal (about 6 minutes)
    python bench/run.py --all --quick        # one run each, no 20,000-case runs
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
from pathlib import Path
from typing import Any

from goals import failed_runs, goal_table
from measure import (
    baseline,
    baseline_cpu,
    evalwright,
    import_time,
    repeated,
    run_eval,
    time_command,
    warm_up,
)
from suite import write_suite

LARGE = 20_000
"""The suite size of the large runs."""


def measure_commands(report: dict[str, Any], repeat: int, large: bool) -> None:
    """``--help``, ``import evalwright``, ``validate`` of both 2,000-case suites (and of the
    20,000-case YAML suite)."""
    figures = report["figures"]
    with tempfile.TemporaryDirectory(prefix="evalwright-bench-") as tmp:
        root = Path(tmp)
        report["help"] = time_command(evalwright("--help"), root, repeat=5)
        figures["help_s"] = report["help"]["wall_s"]
        report["import"] = import_time(root)
        figures["import_ms"] = report["import"]["importtime_cumulative_ms"]
        floor = [sys.executable, "-c", "import pydantic, aiohttp"]
        report["import_floor"] = time_command(floor, root, repeat=5)
        figures["import_floor_s"] = report["import_floor"]["wall_s"]
        suites = [(2000, False), (2000, True)] + ([(LARGE, True)] if large else [])
        for cases, as_yaml in suites:
            name = f"validate_{cases}_{'yaml' if as_yaml else 'jsonl'}"
            suite = write_suite(root / name, cases, as_yaml=as_yaml)
            timed = time_command(evalwright("validate", str(suite)), root, repeat)
            report[name] = timed
            figures[f"{name}_s"] = timed["wall_s"]
            figures[f"{name}_rss_mib"] = timed["peak_rss_mib"]


def measure_runs(report: dict[str, Any], repeat: int) -> None:
    """N = 2,000, L = 100 ms, W = 32: both formats, the judge-heavy suite, the baseline."""
    figures = report["figures"]
    for fmt in ("jsonl", "yaml"):
        runs = repeated(repeat, 2000, 100, as_yaml=fmt == "yaml")
        report[f"run_2000_{fmt}"] = runs
        figures[f"startup_2000_{fmt}_s"] = runs["median"]["startup_s"]
        figures[f"efficiency_{fmt}"] = runs["median"]["efficiency"]
    runs = repeated(repeat, 2000, 100, judge=True)
    report["run_2000_judge"] = runs
    figures["efficiency_judge"] = runs["median"]["efficiency"]
    report["baseline_2000"] = baseline(2000, 100, 32)
    figures["efficiency_baseline"] = report["baseline_2000"]["efficiency"]


def measure_cpu(report: dict[str, Any], repeat: int) -> None:
    """CPU per case, (CPU(N=2,000) - CPU(N=1)) / 1,999 at L = 0, and peak RSS at N = 2,000,
    for both formats; then a cached rerun of 2,000 cases of each."""
    figures = report["figures"]
    report["baseline_cpu"] = floor = baseline_cpu(repeat)
    figures["cpu_per_request_baseline_ms"] = floor["cpu_per_request_ms"]
    figures["startup_baseline_s"] = floor["startup_s"]
    for fmt in ("jsonl", "yaml"):
        as_yaml = fmt == "yaml"
        one = repeated(repeat, 1, 0, as_yaml=as_yaml)
        busy = repeated(repeat, 2000, 0, as_yaml=as_yaml)
        report[f"cpu_1_{fmt}"], report[f"cpu_2000_{fmt}"] = one, busy
        cpu = (busy["median"]["cpu_s"] - one["median"]["cpu_s"]) / 1999 * 1000
        figures[f"cpu_per_case_{fmt}_ms"] = round(cpu, 3)
        figures[f"rss_2000_{fmt}_mib"] = busy["median"]["peak_rss_mib"]
        cached = [
            run_eval(2000, 0, 32, as_yaml=as_yaml, cache_rerun=True)["cached_rerun"]
            for _ in range(repeat)
        ]
        report[f"cached_rerun_2000_{fmt}"] = cached
        figures[f"cached_rerun_2000_{fmt}_s"] = sorted(run["wall_s"] for run in cached)[
            len(cached) // 2
        ]


def measure_large(report: dict[str, Any]) -> None:
    """Start-up and peak RSS of one 20,000-case run of each format (L = 0)."""
    figures = report["figures"]
    for fmt in ("jsonl", "yaml"):
        run = run_eval(LARGE, 0, 32, as_yaml=fmt == "yaml")
        report[f"run_{LARGE}_{fmt}"] = run
        figures[f"startup_{LARGE}_{fmt}_s"] = run.get("startup_s")
        figures[f"rss_{LARGE}_{fmt}_mib"] = run.get("peak_rss_mib")


def measure_all(repeat: int = 3, large: bool = True) -> dict[str, Any]:
    """Every figure of bench/README.md (noisy ones as the median of ``repeat`` runs), under
    ``figures`` for the goals table; the details of every run beside them."""
    report: dict[str, Any] = {"cores": os.cpu_count(), "repeat": repeat, "figures": {}}
    # Wall-clock figures depend on what else runs: the load average says how busy the machine was.
    report["load_average_at_start"] = [round(load, 2) for load in os.getloadavg()]
    measure_commands(report, repeat, large)
    measure_runs(report, repeat)
    measure_cpu(report, repeat)
    if large:
        measure_large(report)
    report["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    return report


def main() -> int:
    """Parse options, measure, print the goals table (``--all``) and one JSON object."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=100)
    parser.add_argument("--workers", type=int, default=32)
    parser.add_argument(
        "--cache-rerun", action="store_true", help="also time a second run answered from the cache"
    )
    parser.add_argument("--all", action="store_true", help="measure every figure of the goals")
    parser.add_argument(
        "--quick", action="store_true", help="with --all: one run each, no 20,000-case runs"
    )
    parser.add_argument("--yaml", action="store_true", help="write the suite as YAML, not JSONL")
    parser.add_argument("--judge", action="store_true", help="an llm_judge on every case")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="measure a minimal aiohttp client instead of evalwright",
    )
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    warm_up(Path.cwd())
    if args.all:
        report = measure_all(repeat=1 if args.quick else 3, large=not args.quick)
        print(goal_table(report["figures"]))
        loads = report["load_average_at_start"][0], report["load_average_at_end"][0]
        print(f"load average (1 min) at start and end: {loads[0]}, {loads[1]}")
        for problem in failed_runs(report):
            print(f"warning: {problem}: its figures do not measure a normal run")
    elif args.baseline:
        report = baseline(args.cases, args.latency_ms, args.workers)
    else:
        report = run_eval(
            args.cases,
            args.latency_ms,
            args.workers,
            cache_rerun=args.cache_rerun,
            as_yaml=args.yaml,
            judge=args.judge,
        )
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
