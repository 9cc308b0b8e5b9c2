"""A two-node Ray cluster on this machine, started with ``ray start`` as real processes: a head
and a worker node that joins it with its own CPUs and a custom resource (tests and bench)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ProjectDir

OBJECT_STORE = str(80 * 1024 * 1024)


def _ray() -> str:
    return str(Path(sys.executable).parent / "ray")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    """The head's address and the two nodes' processes (each its own process group)."""

    address: str
    temp_dir: str
    head: subprocess.Popen[bytes]
    worker: subprocess.Popen[bytes]

    def kill_worker(self) -> None:
        """Kill the worker node and everything it started, as a lost machine."""
        _kill(self.worker)

    def stop(self) -> None:
        """Stop both nodes: their own process groups, never Ray processes by name."""
        _kill(self.worker)
        _kill(self.head)


def _kill(node: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(node.pid, signal.SIGKILL)
    node.wait()


def _common(cpus: int) -> list[str]:
    return [
        f"--num-cpus={cpus}",
        "--num-gpus=0",
        f"--object-store-memory={OBJECT_STORE}",
        "--disable-usage-stats",
        "--block",
    ]


def _node(argv: list[str]) -> subprocess.Popen[bytes]:
    """``ray start ... --block`` in a new session, so its group holds every process of it."""
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    return subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


@contextlib.contextmanager
def two_nodes(head_cpus: int, worker_cpus: int) -> Generator[Cluster]:
    """Start the cluster; kill both nodes' process groups and remove its files on exit."""
    temp_dir = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's sockets live there
    port = _free_port()
    address = f"127.0.0.1:{port}"
    head = [_ray(), "start", "--head", f"--port={port}", "--node-ip-address=127.0.0.1"]
    head += ["--include-dashboard=false", f"--temp-dir={temp_dir}", *_common(head_cpus)]
    worker = [_ray(), "start", f"--address={address}", "--node-ip-address=127.0.0.1"]
    worker += ['--resources={"worker": 1}', *_common(worker_cpus)]
    head_node = _node(head)
    cluster = Cluster(address, temp_dir, head_node, head_node)
    try:
        _wait_for_nodes(address, 1)
        cluster.worker = _node(worker)
        _wait_for_nodes(address, 2)
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(temp_dir, ignore_errors=True)


def _wait_for_nodes(address: str, count: int, timeout: float = 90) -> None:
    """Wait until ``count`` nodes are alive (a separate process asks, so this one stays
    free of a Ray connection)."""
    probe = (
        "import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR');"
        "print(sum(n['Alive'] for n in ray.nodes()))"
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = subprocess.run(
            [sys.executable, "-c", probe, address],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if done.returncode == 0 and done.stdout.strip().splitlines()[-1:] == [str(count)]:
            return
        time.sleep(1)
    raise TimeoutError(f"the Ray cluster did not reach {count} nodes")


AGENT = 'sleep "${EVALWRIGHT_SLEEP:-1}"\ncat "$1"\n'
"""A 1 s agent that answers with its prompt file: the file must have reached the node."""


def agent_project(project: ProjectDir, cases: int, sleep: float = 1, workers: int = 16) -> None:
    """A project of ``cases`` cases whose ``cli`` target sleeps ``sleep`` seconds, then
    answers with its prompt file (``num_cpus: 1``)."""
    project.write("scripts/agent.sh", AGENT)
    project.write(
        ".evalwright/targets.yaml",
        f"""targets:
  - name: agent
    provider: cli
    command: [sh, scripts/agent.sh, "{{PROMPT_FILE}}"]
    num_cpus: 1
    timeout_seconds: 120
    workers: {workers}
    pass_env: [EVALWRIGHT_SLEEP]
""",
    )
    body = "".join(
        f"  - id: c{i:03d}\n    expected_outcome: Fine.\n    input: Say fine {i}.\n"
        for i in range(cases)
    )
    evaluators = "execution:\n  evaluators:\n    - {name: says, type: contains, value: fine}\n"
    project.write("evals/agents.yaml", f"{evaluators}evalcases:\n{body}")
    project.write(".env", f"EVALWRIGHT_SLEEP={sleep}\n")


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a results file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def require_ray() -> None:
    """Skip the calling test module without ``ray``, unless CI requires it (``REQUIRE_RAY``:
    there these tests must run)."""
    try:
        import ray  # noqa: F401  # pyright: ignore[reportUnusedImport]
    except ImportError:
        if os.environ.get("REQUIRE_RAY") == "1":
            raise
        pytest.skip("the Ray tests need ray (pip install -e '.[ray]')", allow_module_level=True)
