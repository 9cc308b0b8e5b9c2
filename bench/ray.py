"""200 ``cli`` cases of 1 s each on a local two-node Ray cluster (8 + 8 CPUs, ``num_cpus: 1``)
with ``--executor ray``, against the local executor running as many at once on the same machine.
See bench/README.md#agent-cases-on-ray."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the test cluster's helper

from tests.executors.ray_cluster import two_nodes  # noqa: E402

AGENT = 'sleep 1\ncat "$1"\n'


def _project(root: Path, cases: int, slots: int) -> None:
    (root / ".git").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / "scripts" / "agent.sh").write_text(AGENT)
    (root / ".evalwright").mkdir()
    (root / ".evalwright" / "targets.yaml").write_text(
        "targets:\n  - name: agent\n    provider: cli\n"
        '    command: [sh, scripts/agent.sh, "{PROMPT_FILE}"]\n'
        f"    num_cpus: 1\n    workers: {slots}\n    timeout_seconds: 300\n"
    )
    body = "".join(
        f"  - id: c{i:04d}\n    expected_outcome: Fine.\n    input: Say fine {i}.\n"
        for i in range(cases)
    )
    checks = "execution:\n  evaluators:\n    - {name: says, type: contains, value: fine}\n"
    (root / "evals").mkdir()
    (root / "evals" / "agents.yaml").write_text(f"{checks}evalcases:\n{body}")


def _run(root: Path, out: str, slots: int, *more: str) -> dict[str, object]:
    argv = [sys.executable, "-m", "evalwright", "eval", "evals", "--target", "agent"]
    argv += ["--workers", str(slots), "--out", out, "--quiet", *more]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    rows = [json.loads(line) for line in (root / out).read_text().splitlines()]
    return {
        "code": done.returncode,
        "wall_s": round(wall, 1),
        "rows": len(rows),
        "ok": sum(row["status"] == "ok" for row in rows),
        "nodes": len({row.get("node") for row in rows} - {None}),
    }


def main() -> None:
    """Print both runs' figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--slots", type=int, default=8, help="CPUs of each of the two nodes")
    args = parser.parse_args()
    total = 2 * args.slots
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "project"
        _project(root, args.cases, total)
        local = _run(root, "local.jsonl", total)
        with two_nodes(args.slots, args.slots) as cluster:
            on_ray = _run(
                root, "ray.jsonl", total, "--executor", "ray", "--ray-address", cluster.address
            )
    ideal = args.cases / total
    print(
        json.dumps(
            {"ideal_s": ideal, "local": local, "ray": on_ray, "cpu_count": os.cpu_count()}, indent=2
        )
    )


if __name__ == "__main__":
    main()
