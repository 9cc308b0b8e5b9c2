"""Measure how fast ``evalwright eval`` runs against the physical limit.

Generates a synthetic JSONL suite, serves it with the fake API server at a fixed latency, runs
``evalwright eval`` as a subprocess and prints one JSON object of figures. See bench/README.md.

    python bench/run.py --cases 2000 --latency-ms 100 --workers 32
    python bench/run.py --all          # every figure of bench/README.md
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from evalwright.testing import FakeServer

TARGETS = """targets:
  - name: default
    provider: openai
    model: bench-model
    base_url: {url}/v1
    workers: {workers}
    retry: {{max_retries: 0}}
"""
GUIDELINE = "Answer in one short paragraph. Name the bug before the fix.\n"
ATTACHMENT = "function total(items) {\n  return items.reduce((a, b) => a + b.price, 0);\n}\n"


def write_suite(root: Path, cases: int, *, as_yaml: bool = False) -> Path:
    """A project with a JSONL (or YAML) suite of ``cases`` six-message cases."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / "evals").mkdir(exist_ok=True)
    (root / "evals" / "style.instructions.md").write_text(GUIDELINE, encoding="utf-8")
    (root / "evals" / "total.js").write_text(ATTACHMENT, encoding="utf-8")
    header: dict[str, Any] = {
        "description": "synthetic benchmark suite",
        "execution": {"evaluators": [{"name": "mentions", "type": "contains", "value": "answer"}]},
    }
    if as_yaml:
        header["evalcases"] = [_case(index) for index in range(cases)]
        path = root / "evals" / "bench.yaml"
        path.write_text("".join(_yaml_lines(header, "")), encoding="utf-8")
        return path
    with open(root / "evals" / "bench.jsonl", "w", encoding="utf-8") as out:
        out.write(json.dumps(header) + "\n")
        for index in range(cases):
            out.write(json.dumps(_case(index)) + "\n")
    return root / "evals" / "bench.jsonl"


def _case(index: int) -> dict[str, Any]:
    return {
        "id": f"case-{index:06d}",
        "expected_outcome": "Finds the bug and proposes a fix.",
        "input_messages": [
            {"role": "system", "content": "You are a code reviewer."},
            {
                "role": "user",
                "content": [
                    f"Review request number {index}.",
                    {"type": "file", "value": "style.instructions.md"},
                    {"type": "file", "value": "total.js"},
                ],
            },
            {"role": "assistant", "content": "What should the function return?"},
            {"role": "user", "content": "The sum of price times quantity."},
            {"role": "assistant", "content": "Then quantity is missing."},
            {"role": "user", "content": f"Please explain the fix for case {index}."},
        ],
    }


def _yaml_lines(value: Any, indent: str, lead: str = "") -> Iterator[str]:
    """Compact block-style YAML for the suite's dicts, lists and strings (plain where safe).

    ``lead`` starts the first line (``"- "`` for a mapping that is a list item).
    """
    items: Iterable[tuple[str | None, Any]] = (
        cast(dict[str, Any], value).items()
        if isinstance(value, dict)
        else ((None, item) for item in cast(list[Any], value))
    )
    for key, item in items:
        head = f"{lead or indent}{key}:" if key is not None else f"{indent}-"
        lead = ""
        if isinstance(item, dict) and key is None and _flat(cast(dict[str, Any], item)):
            pairs = cast(dict[str, Any], item).items()
            yield f"{head} {{{', '.join(f'{k}: {_scalar(v)}' for k, v in pairs)}}}\n"
        elif isinstance(item, dict):
            if key is None:
                yield from _yaml_lines(item, indent + "  ", head + " ")
                continue
            yield head + "\n"
            yield from _yaml_lines(item, indent + "  ")
        elif isinstance(item, list):
            yield head + "\n"
            yield from _yaml_lines(item, indent + "  ")
        else:
            yield f"{head} {_scalar(item)}\n"


def _flat(mapping: dict[str, Any]) -> bool:
    return all(isinstance(value, str) for value in mapping.values())


def _scalar(value: Any) -> str:
    """A string as a plain scalar where that is safe (also in flow context), else quoted."""
    text = str(value)
    plain = re.fullmatch(r"[A-Za-z][\w ./-]*[\w.?]", text) and ": " not in text
    return text if plain else json.dumps(text)


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, float, float, int]:
    """Run a command; its exit code, wall seconds, CPU seconds and peak RSS (KiB)."""
    started = time.monotonic()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    if process.stderr is not None:
        process.stderr.close()
    return os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


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
) -> dict[str, Any]:
    """One measured run (and, with ``cache_rerun``, a second run answered from the cache)."""
    with (
        tempfile.TemporaryDirectory(prefix="evalwright-bench-") as tmp,
        FakeServer.in_thread(latency_ms=latency_ms, default_text="an answer") as server,
    ):
        root = Path(tmp)
        suite = write_suite(root, cases, as_yaml=as_yaml)
        (root / ".evalwright").mkdir()
        (root / ".evalwright" / "targets.yaml").write_text(
            TARGETS.format(url=server.url, workers=workers), encoding="utf-8"
        )
        env = bench_env()
        out = root / "results.jsonl"
        args = ["eval", str(suite), "--workers", str(workers), "--out", str(out), "--quiet"]
        if cache_rerun:
            args.append("--cache")
        wall_offset = time.time() - time.monotonic()
        started = time.monotonic()
        code, wall, cpu, rss = _run(evalwright(*args), root, env)
        figures = _figures(cases, latency_ms, workers, server, out, started, wall_offset)
        figures.update(
            exit_code=code,
            wall_s=round(wall, 3),
            cpu_s=round(cpu, 3),
            peak_rss_mib=round(rss / 1024, 1),
        )
        if cache_rerun:
            out.unlink()
            code, wall, cpu, _ = _run(evalwright(*args), root, env)
            figures["cached_rerun"] = {
                "exit_code": code,
                "wall_s": round(wall, 3),
                "cpu_s": round(cpu, 3),
                "requests": len(server.requests) - cases,
            }
        return figures


def _figures(
    cases: int,
    latency_ms: float,
    workers: int,
    server: FakeServer,
    out: Path,
    started: float,
    wall_offset: float,
) -> dict[str, Any]:
    requests = list(server.requests)
    rows = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    figures: dict[str, Any] = {
        "cases": cases,
        "latency_ms": latency_ms,
        "workers": workers,
        "requests": len(requests),
        "rows": len(rows),
    }
    if not requests or not rows:
        return figures
    first = min(r.received_at for r in requests)
    last_row = max(_timestamp(json.loads(line)["timestamp"]) for line in rows) - wall_offset
    steady = last_row - first
    ideal = cases * latency_ms / 1000 / workers
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
    """A minimal aiohttp client against the same server: proof the server is no bottleneck."""
    script = Path(__file__).with_name("baseline_client.py")
    with FakeServer.in_thread(latency_ms=latency_ms, default_text="an answer") as server:
        out = subprocess.run(
            [
                sys.executable,
                str(script),
                server.url + "/v1/chat/completions",
                str(cases),
                str(workers),
            ],
            capture_output=True,
            text=True,
            check=True,
            env=bench_env(),
        ).stdout
    steady = float(json.loads(out)["steady_wall_s"])
    ideal = cases * latency_ms / 1000 / workers
    return {"steady_wall_s": round(steady, 3), "efficiency": round(ideal / steady, 3)}


def time_command(argv: list[str], cwd: Path, repeat: int = 5) -> float:
    """The best wall time of ``repeat`` runs."""
    return min(_run(argv, cwd, bench_env())[1] for _ in range(repeat))


def _median_run(repeat: int, cases: int, latency_ms: float, workers: int) -> dict[str, Any]:
    """The run with the median steady wall (or CPU, at zero latency) of ``repeat`` runs."""
    runs = [run_eval(cases, latency_ms, workers) for _ in range(repeat)]
    key = "steady_wall_s" if latency_ms else "cpu_s"
    runs.sort(key=lambda figures: figures.get(key) or 0)
    median = runs[len(runs) // 2]
    median["startup_s_median"] = statistics.median(r.get("startup_s") or 0 for r in runs)
    return median


def measure_all(repeat: int = 3) -> dict[str, Any]:
    """Every figure of bench/README.md (noisy ones as the median of ``repeat`` runs)."""
    report: dict[str, Any] = {"cores": os.cpu_count(), "repeat": repeat}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        report["help_s"] = round(time_command(evalwright("--help"), root), 3)
        suite = write_suite(root, 2000)
        report["validate_2000_s"] = round(
            time_command(evalwright("validate", str(suite)), root, repeat=3), 3
        )
        suite = write_suite(root, 2000, as_yaml=True)
        report["validate_2000_yaml_s"] = round(
            time_command(evalwright("validate", str(suite)), root, repeat=3), 3
        )
    report["baseline_2000"] = baseline(2000, 100, 32)
    report["run_2000"] = _median_run(repeat, 2000, 100, 32)
    report["cache_2000"] = run_eval(2000, 0, 32, cache_rerun=True)["cached_rerun"]
    one = _median_run(repeat, 1, 0, 32)
    busy = _median_run(repeat, 2000, 0, 32)
    report["cpu_per_case_ms"] = round((busy["cpu_s"] - one["cpu_s"]) / 1999 * 1000, 3)
    report["rss_1000_mib"] = run_eval(1000, 0, 32)["peak_rss_mib"]
    report["rss_20000_mib"] = run_eval(20000, 0, 32)["peak_rss_mib"]
    return report


def main() -> int:
    """Parse options, measure, print one JSON object."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=100)
    parser.add_argument("--workers", type=int, default=32)
    parser.add_argument(
        "--cache-rerun", action="store_true", help="also time a second run answered from the cache"
    )
    parser.add_argument("--all", action="store_true", help="measure every figure")
    parser.add_argument("--yaml", action="store_true", help="write the suite as YAML, not JSONL")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="measure a minimal aiohttp client instead of evalwright",
    )
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    warm_up(Path.cwd())
    if args.all:
        report = measure_all()
    elif args.baseline:
        report = baseline(args.cases, args.latency_ms, args.workers)
    else:
        report = run_eval(
            args.cases,
            args.latency_ms,
            args.workers,
            cache_rerun=args.cache_rerun,
            as_yaml=args.yaml,
        )
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
