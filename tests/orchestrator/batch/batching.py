"""Reading what batch mode sent the fake server, and the rows it wrote."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalwright.orchestrator.batch.state import state_path
from evalwright.testing import FakeServer, ReceivedRequest

CREATE_PATHS = ("/v1/batches", "/openai/batches", "/v1/messages/batches")


def creations(server: FakeServer) -> list[ReceivedRequest]:
    """The requests that created a batch, in order."""
    return [
        r
        for r in server.requests
        if r.method == "POST"
        and (r.path in CREATE_PATHS or r.path.endswith(":batchGenerateContent"))
    ]


def rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a results file."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def input_lines(server: FakeServer) -> list[dict[str, Any]]:
    """Every request submitted in a batch, as ``{"custom_id", "body"}``."""
    lines: list[dict[str, Any]] = []
    for sent in server.requests:
        if sent.method != "POST":
            continue
        if sent.path in ("/v1/files", "/openai/files"):
            start = sent.body.index(b"\r\n\r\n{") + 4
            end = sent.body.rindex(b"\r\n--")
            lines += [json.loads(t) for t in sent.body[start:end].splitlines()]
        elif sent.path == "/v1/messages/batches":
            lines += [
                {"custom_id": r["custom_id"], "body": r["params"]} for r in sent.json["requests"]
            ]
        elif sent.path.endswith(":batchGenerateContent"):
            inline = sent.json["batch"]["inputConfig"]["requests"]["requests"]
            lines += [{"custom_id": r["metadata"]["key"], "body": r["request"]} for r in inline]
    return lines


def submitted(out: Path) -> list[dict[str, Any]]:
    """The submitted batches in the state file of ``out`` (not the pending ones)."""
    try:
        return json.loads(state_path(out).read_text())["batches"]
    except FileNotFoundError:
        return []


def stop_batched_run(
    args: list[str],
    cwd: Path,
    ready: Callable[[], bool],
    waiting_for: str,
    how: signal.Signals = signal.SIGKILL,
    settle: float = 0.0,
) -> None:
    """Run ``evalwright eval ARGS`` as a real process until ``ready()`` (asked every 20 ms,
    within 60 s), wait ``settle`` seconds more, then send it ``how``; it is reaped whatever
    happens. The run failing first, or ``waiting_for`` never happening, fails the test."""
    child = subprocess.Popen(
        [sys.executable, "-m", "evalwright", "eval", *args],
        cwd=cwd,
        env={**os.environ, "OPENAI_API_KEY": "sk-batch-test"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not ready():
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, f"{waiting_for} did not happen"
            time.sleep(0.02)
        time.sleep(settle)
        child.send_signal(how)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if child.stderr is not None:
            child.stderr.close()
