"""The measurements of ``bench/run.py``: one ``evalwright eval`` run against the fake API server
at a fixed latency, a timed command, the import time, the minimal-client baseline.
See bench/README.md."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from launch import run_measured
from suite import VERDICT, targets_yaml, write_suite

from evalwright.testing import FakeServer


def bench_env() -> dict[str, str]:
    """The environment of a normal install: bytecode is cached (some CI images turn that off,
    which would make every start compile evalwright from source)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def warm_up(root: Path) -> None:
    """Start evalwright once so its bytecode cache exists before anything is timed."""
    subprocess.run(
        evalwright("schema", "eval"),
        cwd=root,
        env=bench_env(),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import evalwright.orchestrator.run, evalwright.providers.openai.adapter, aiohttp",
        ],
        cwd=root,
        env=bench_env(),
        check=True,
    )


def evalwright(*args: str) -> list[str]:
    """The argv that runs this checkout's evalwright."""
    return [sys.executable, "-m", "evalwright", *args]


def run_eval(
    cases: int,
    latency_ms: float,
    workers: int,
    *,
    cache_rerun: bool = False,
    as_yaml: bool = False,
    judge: bool = False,
) -> dict[str, Any]:
    """One measured run (and, with ``cache_rerun``, a second run answered from the cache)."""
    with (
        tempfile.TemporaryDirectory(prefix="evalwright-bench-") as tmp,
        FakeServer.in_thread(
            latency_ms=latency_ms,
            default_text="an answer",
            judge_verdict=VERDICT if judge else None,
        ) as server,
    ):
        root = Path(tmp)
        suite = write_suite(root, cases, as_yaml=as_yaml, judge=judge)
        (root / ".evalwright").mkdir()
        (root / ".evalwright" / "targets.yaml").write_text(
            targets_yaml(server.url, workers, judge=judge), encoding="utf-8"
        )
        out = root / "results.jsonl"
        args = ["eval", str(suite), "--workers", str(workers), "--out", str(out), "--quiet"]
        if cache_rerun:
            args.append("--cache")
        wall_offset = time.time() - time.monotonic()
        run = run_measured(evalwright(*args), root, bench_env())
        calls = 2 if judge else 1
        figures = _figures(cases, latency_ms, workers, calls, server, out, run.started, wall_offset)
        figures.update(
            format="yaml" if as_yaml else "jsonl",
            exit_code=run.code,
            wall_s=round(run.wall, 3),
            cpu_s=round(run.cpu, 3),
            peak_rss_mib=round(run.rss_kib / 1024, 1),
        )
        if run.code != 0:
            figures["stderr_tail"] = run.stderr_tail
        if cache_rerun:
            out.unlink()
            figures["cached_rerun"] = _rerun(evalwright(*args), root, server)
        return figures


def _rerun(argv: list[str], root: Path, server: FakeServer) -> dict[str, Any]:
    """Run the same command again: its exit code, wall, CPU and the requests it made."""
    seen = len(server.requests)
    rerun = run_measured(argv, root, bench_env())
    return {
        "exit_code": rerun.code,
        "wall_s": round(rerun.wall, 3),
        "cpu_s": round(rerun.cpu, 3),
        "requests": len(server.requests) - seen,
    }


def _figures(
    cases: int,
    latency_ms: float,
    workers: int,
    calls: int,
    server: FakeServer,
    out: Path,
    started: float,
    wall_offset: float,
) -> dict[str, Any]:
    """The figures read from the server's requests and the rows written (``calls`` requests
    per case make the ideal ``calls * N * L / W``)."""
    requests = list(server.requests)
    lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    rows = [json.loads(line) for line in lines]
    figures: dict[str, Any] = {
        "cases": cases,
        "latency_ms": latency_ms,
        "workers": workers,
        "requests": len(requests),
        "rows": len(rows),
        "error_rows": sum(row.get("status") != "ok" for row in rows),
    }
    if not requests or not rows:
        return figures
    first = min(r.received_at for r in requests)
    last_row = max(_timestamp(row["timestamp"]) for row in rows) - wall_offset
    steady = last_row - first
    ideal = calls * cases * latency_ms / 1000 / workers
    figures.update(
        startup_s=round(first - started, 3),
        steady_wall_s=round(steady, 3),
        ideal_s=round(ideal, 3),
        efficiency=round(ideal / steady, 3) if steady else None,
    )
    return figures


def _timestamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def baseline(cases: int, latency_ms: float, workers: int) -> dict[str, Any]:
    """A minimal aiohttp client against the same server: proof the server is no bottleneck,
    and the floor of a Python client's own start-up and CPU."""
    script = Path(__file__).with_name("baseline_client.py")
    with (
        tempfile.TemporaryDirectory(prefix="evalwright-bench-") as tmp,
        FakeServer.in_thread(latency_ms=latency_ms, default_text="an answer") as server,
    ):
        argv = [sys.executable, str(script), server.url + "/v1/chat/completions"]
        run = run_measured([*argv, str(cases), str(workers)], Path(tmp), bench_env())
        first = min(request.received_at for request in server.requests)
        steady = max(request.received_at for request in server.requests) - first
    steady += latency_ms / 1000  # the last answer comes L after the last request
    ideal = cases * latency_ms / 1000 / workers
    return {
        "exit_code": run.code,
        "startup_s": round(first - run.started, 3),
        "steady_wall_s": round(steady, 3),
        "efficiency": round(ideal / steady, 3) if steady else None,
        "cpu_s": round(run.cpu, 3),
    }


def baseline_cpu(repeat: int) -> dict[str, Any]:
    """The minimal client's CPU per request, (CPU(N=2,000) - CPU(N=1)) / 1,999 at L = 0, and
    its start-up (medians of ``repeat`` runs): what aiohttp and Python cost any client."""
    one = [baseline(1, 0, 32) for _ in range(repeat)]
    busy = [baseline(2000, 0, 32) for _ in range(repeat)]
    cpu_one = statistics.median(run["cpu_s"] for run in one)
    cpu_busy = statistics.median(run["cpu_s"] for run in busy)
    return {
        "cpu_per_request_ms": round((cpu_busy - cpu_one) / 1999 * 1000, 3),
        "startup_s": statistics.median(run["startup_s"] for run in one + busy),
        "runs": one + busy,
    }


def time_command(argv: list[str], cwd: Path, repeat: int = 5) -> dict[str, Any]:
    """The median wall seconds and peak RSS of ``repeat`` runs of a command."""
    runs = [run_measured(argv, cwd, bench_env()) for _ in range(repeat)]
    return {
        "exit_codes": sorted({run.code for run in runs}),
        "wall_s": round(statistics.median(run.wall for run in runs), 3),
        "walls_s": [round(run.wall, 3) for run in runs],
        "peak_rss_mib": round(statistics.median(run.rss_kib for run in runs) / 1024, 1),
    }


def import_time(cwd: Path, repeat: int = 5) -> dict[str, Any]:
    """``import evalwright``: the cumulative in-process time ``-X importtime`` reports for the
    package (median, ms), and for reference the wall of ``python -c 'import evalwright'``
    minus the wall of ``python -c pass`` (medians)."""
    cumulative: list[float] = []
    for _ in range(repeat):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import evalwright"],
            cwd=cwd,
            env=bench_env(),
            capture_output=True,
            text=True,
            check=True,
        ).stderr
        for line in err.splitlines():
            fields = [field.strip() for field in line.removeprefix("import time:").split("|")]
            if len(fields) == 3 and fields[2] == "evalwright":
                cumulative.append(int(fields[1]) / 1000)
    with_import = time_command([sys.executable, "-c", "import evalwright"], cwd, repeat)
    bare = time_command([sys.executable, "-c", "pass"], cwd, repeat)
    return {
        "importtime_cumulative_ms": round(statistics.median(cumulative), 1),
        "wall_difference_ms": round((with_import["wall_s"] - bare["wall_s"]) * 1000, 1),
    }


def _medians(runs: list[dict[str, Any]], *keys: str) -> dict[str, Any]:
    """The median of each figure ``keys`` names over ``runs`` (None if a run lacks it)."""
    out: dict[str, Any] = {}
    for key in keys:
        values = [run.get(key) for run in runs]
        present = [value for value in values if value is not None]
        out[key] = statistics.median(present) if len(present) == len(values) else None
    return out


def repeated(repeat: int, cases: int, latency_ms: float, **options: bool) -> dict[str, Any]:
    """``repeat`` runs at W = 32: their medians, and every run's figures."""
    runs = [run_eval(cases, latency_ms, 32, **options) for _ in range(repeat)]
    keys = ("startup_s", "steady_wall_s", "efficiency", "cpu_s", "wall_s", "peak_rss_mib")
    return {"median": _medians(runs, *keys), "runs": runs}
