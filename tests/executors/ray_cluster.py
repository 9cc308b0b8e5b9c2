"""A two-node Ray cluster on this machine, started with ``ray start`` as real processes: a head
and a worker node that joins it with its own CPUs and a custom resource (tests and bench)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

OBJECT_STORE = str(80 * 1024 * 1024)


def _ray() -> str:
    return str(Path(sys.executable).parent / "ray")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    """The head's address and the worker node's process (killed to lose the node)."""

    address: str
    temp_dir: str
    worker: subprocess.Popen[bytes]

    def kill_worker(self) -> None:
        """Kill the worker node and everything it started, as a lost machine."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait()


def _common(cpus: int) -> list[str]:
    return [
        f"--num-cpus={cpus}",
        "--num-gpus=0",
        f"--object-store-memory={OBJECT_STORE}",
        "--disable-usage-stats",
    ]


@contextlib.contextmanager
def two_nodes(head_cpus: int, worker_cpus: int) -> Iterator[Cluster]:
    """Start the cluster; stop it (``ray stop`` and the worker's processes) on exit."""
    temp_dir = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's sockets live there
    port = _free_port()
    address = f"127.0.0.1:{port}"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    head = [_ray(), "start", "--head", f"--port={port}", "--node-ip-address=127.0.0.1"]
    head += ["--include-dashboard=false", f"--temp-dir={temp_dir}", *_common(head_cpus)]
    subprocess.run(head, check=True, env=env, capture_output=True, timeout=120)
    worker_cmd = [_ray(), "start", f"--address={address}", "--node-ip-address=127.0.0.1"]
    worker_cmd += ["--block", '--resources={"worker": 1}', *_common(worker_cpus)]
    worker = subprocess.Popen(
        worker_cmd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    cluster = Cluster(address, temp_dir, worker)
    try:
        _wait_for_nodes(address, 2)
        yield cluster
    finally:
        cluster.kill_worker()
        subprocess.run([_ray(), "stop", "--force"], env=env, capture_output=True, timeout=120)
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
            [sys.executable, "-c", probe, address], capture_output=True, text=True, timeout=60
        )
        if done.returncode == 0 and done.stdout.strip().splitlines()[-1:] == [str(count)]:
            return
        time.sleep(1)
    raise TimeoutError(f"the Ray cluster did not reach {count} nodes")
