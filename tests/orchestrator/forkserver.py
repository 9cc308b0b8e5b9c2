"""A process that imports evalwright once, then runs ``evalwright eval`` in a forked child per
order: many real runs to kill, without paying the imports each time (tests/orchestrator/forks.py
drives it).

Started as ``python forkserver.py WAITS``, ``WAITS`` a JSON object of ``"module:NAME"`` to the
value the module's constant takes in every child (batch mode's waits, shortened). It prints
``ready``, then answers one line per order read on stdin (JSON):

- ``{"run": [args], "cwd": dir, "env": {...}, "stderr": path}``: forks a child running
  ``evalwright ARGS`` there (stdout to /dev/null, stderr to ``path``); answers its pid.
- ``{"kill": pid}``: SIGKILLs the child unless it is reaped already; answers ``killed``.
- ``{"poll": pid}``: answers ``running``, or its exit code once it ended (then reaped).
- ``{"wait": pid}``: reaps it; answers its exit code (negative: the signal that ended it).

A child is reaped only when asked, so a pid it is told to kill is always still its own.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import traceback
from typing import Any

WARM = (
    "aiohttp",
    "evalwright.cli",
    "evalwright.orchestrator.run",
    "evalwright.orchestrator.batch.cases",
    "evalwright.providers.openai.batch",
    "evalwright.providers.anthropic.batch",
    "evalwright.providers.gemini.batch",
    "evalwright.providers.azure.adapter",
)
"""Imported before any fork: what every batched run needs."""


def _child(order: dict[str, Any]) -> None:
    """Run the order's command line in this (forked) process, and leave with its code."""
    code = 70
    try:
        os.chdir(order["cwd"])
        os.environ.update(order["env"])
        quiet = os.open(os.devnull, os.O_RDWR)
        errors = os.open(order["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(quiet, 0)
        os.dup2(quiet, 1)
        os.dup2(errors, 2)
        from evalwright.cli import main

        code = main(order["run"])
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


class _Children:
    """The runs forked so far; each reaped only when asked, so its pid stays its own."""

    def __init__(self) -> None:
        self.running: set[int] = set()
        self.codes: dict[int, int] = {}
        """Exit codes of the runs reaped by a poll, until a wait takes them."""

    def start(self, order: dict[str, Any]) -> int:
        pid = os.fork()
        if pid == 0:
            _child(order)
        self.running.add(pid)
        return pid

    def kill(self, pid: int) -> str:
        if pid in self.running:
            os.kill(pid, signal.SIGKILL)
        return "killed"

    def poll(self, pid: int) -> int | str:
        if pid in self.running:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                self.running.discard(pid)
                self.codes[pid] = os.waitstatus_to_exitcode(status)
        return self.codes.get(pid, "running")

    def wait(self, pid: int) -> int:
        if pid in self.running:
            self.running.discard(pid)
            self.codes[pid] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        return self.codes.pop(pid)

    def end(self) -> None:
        """Kill and reap the runs still there (the test failed with one going)."""
        for pid in list(self.running):
            self.kill(pid)
            self.wait(pid)


def _serve() -> None:
    """Answer orders until stdin closes."""
    children = _Children()
    for text in sys.stdin:
        order: dict[str, Any] = json.loads(text)
        if "run" in order:
            answer: object = children.start(order)
        elif "kill" in order:
            answer = children.kill(order["kill"])
        elif "poll" in order:
            answer = children.poll(order["poll"])
        else:
            answer = children.wait(order["wait"])
        print(json.dumps(answer), flush=True)
    children.end()


def main() -> None:
    """Set the waits, import, say ``ready``, serve orders until stdin closes."""
    for dotted, value in json.loads(sys.argv[1]).items():
        module, name = dotted.split(":")
        setattr(importlib.import_module(module), name, value)
    for module in WARM:
        importlib.import_module(module)
    print(json.dumps("ready"), flush=True)
    _serve()


if __name__ == "__main__":
    main()
