"""A rate limit at the issue's shape (issue 23): N cases through ``evalwright eval`` at W workers
against the fake server enforcing requests- (and tokens-) per-minute buckets with OpenAI's
headers. Prints one JSON object: the rows and error rows, the requests and the 429s the server
answered (in the first second and after), and the sustained throughput as a share of the
limit. See bench/README.md.

    python bench/ratelimit.py                       # 600 cases, 1,200 a minute, 64 workers
    python bench/ratelimit.py --tpm 60000           # a tokens-per-minute limit too
    python bench/ratelimit.py --command "CMD ..."   # another tool against the same limit

With ``--command`` the command runs instead of evalwright (split as a shell would, no shell),
with ``BENCH_URL`` in its environment: the server's base URL; its rows are the tool's own
business, and only the server's figures are printed.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

from launch import run_measured
from measure import bench_env, evalwright, warm_up
from suite import write_suite

from evalwright.testing import FakeServer, RateLimits

TARGETS = """targets:
  - name: default
    provider: openai
    model: bench-model
    base_url: {url}/v1
    api_key: sk-bench
"""


def server_figures(limits: RateLimits, server: FakeServer, latency_ms: float) -> dict[str, Any]:
    """What the server saw: requests, 429s (all, in the first second, after it), and the
    answered requests a second, as a share of the limit and of the best a client could do."""
    requests = sorted(request.received_at for request in server.requests)
    figures: dict[str, Any] = {
        "requests": len(requests),
        "answered": limits.admitted,
        "refused_429": limits.refused,
    }
    if not requests:
        return figures
    first = requests[0]
    early = sum(1 for at in limits.refused_at if at < first + 1)
    span = max(requests[-1] + latency_ms / 1000 - first, 1e-3)
    # The limit that binds: the one whose share of its rate was the largest. A full bucket
    # lets its burst through at once; the rest come at the rate.
    share, best = 0.0, 0.0
    for per_minute, used in (
        (limits.requests_per_minute, limits.admitted),
        (limits.tokens_per_minute, limits.admitted_tokens),
    ):
        if per_minute:
            rate, burst = per_minute / 60, max(1.0, per_minute * limits.burst_seconds / 60)
            share = max(share, used / span / rate)
            best = max(best, max(used - burst, 0) / rate + latency_ms / 1000)
    figures.update(
        share_429=round(limits.refused / len(requests), 4),
        refused_first_second=early,
        refused_after=limits.refused - early,
        share_429_after_first_second=round(
            (limits.refused - early) / max(1, sum(1 for at in requests if at >= first + 1)), 4
        ),
        span_s=round(span, 2),
        answered_per_s=round(limits.admitted / span, 2),
        tokens_per_request=round(limits.admitted_tokens / max(1, limits.admitted), 1),
        share_of_limit=round(share, 3),
        share_of_best=round(best / span, 3),
    )
    return figures


def _rows(out: Path) -> dict[str, Any]:
    if not out.exists():
        return {"rows": 0, "error_rows": 0}
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    errors = [row for row in rows if row["status"] != "ok"]
    return {"rows": len(rows), "error_rows": len(errors)}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One run, evalwright's or ``args.command``'s, against the limit."""
    limits = RateLimits(
        requests_per_minute=args.rpm, tokens_per_minute=args.tpm, burst_seconds=args.burst
    )
    with (
        tempfile.TemporaryDirectory(prefix="evalwright-bench-") as tmp,
        FakeServer.in_thread(latency_ms=args.latency_ms, default_text="an answer") as server,
    ):
        root = Path(tmp)
        suite = write_suite(root, args.cases)
        (root / ".evalwright").mkdir()
        (root / ".evalwright" / "targets.yaml").write_text(TARGETS.format(url=server.url))
        out = root / "results.jsonl"
        if args.command:
            argv = shlex.split(args.command)
            env = {**bench_env(), "BENCH_URL": server.url}
        else:
            warm_up(root)
            argv = evalwright(
                "eval", str(suite), "--workers", str(args.workers), "--out", str(out), "--quiet"
            )
            env = bench_env()
        server.limits = limits  # after the warm-up, which sends nothing
        run = run_measured(argv, root, env)
        figures = {
            "tool": args.command or "evalwright",
            "cases": args.cases,
            "workers": args.workers,
            "requests_per_minute": args.rpm,
            "tokens_per_minute": args.tpm,
            "burst_seconds": args.burst,
            "latency_ms": args.latency_ms,
            "exit_code": run.code,
            "wall_s": round(run.wall, 2),
            **({} if args.command else _rows(out)),
            **server_figures(limits, server, args.latency_ms),
        }
        if run.code != 0:
            figures["stderr_tail"] = run.stderr_tail
    return figures


def main(argv: list[str] | None = None) -> int:
    """Parse options, run once, print the figures."""
    parser = argparse.ArgumentParser(description="N cases against a rate limit")
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--workers", type=int, default=64)
    parser.add_argument("--rpm", type=float, default=1200, help="requests per minute")
    parser.add_argument("--tpm", type=float, default=None, help="tokens per minute")
    parser.add_argument("--burst", type=float, default=1.0, help="seconds of limit at once")
    parser.add_argument("--latency-ms", type=float, default=100)
    parser.add_argument("--command", help="run this instead of evalwright (BENCH_URL is set)")
    args = parser.parse_args(argv)
    figures = measure(args)
    print(json.dumps(figures, indent=1))
    return 0 if figures["exit_code"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
