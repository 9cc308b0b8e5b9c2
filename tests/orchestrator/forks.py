"""Real ``evalwright eval`` processes to SIGKILL, started cheaply: forked from one process that
imported evalwright once (``forkserver.py``), so a test can kill fifty runs in the time the
imports of a few would take."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Self

SCRIPT = Path(__file__).with_name("forkserver.py")


class ForkServer:
    """The fork server, with ``waits`` (module and constant to value) set in every run."""

    def __init__(self, waits: Mapping[tuple[ModuleType, str], float]) -> None:
        named = {f"{module.__name__}:{name}": value for (module, name), value in waits.items()}
        self.process = subprocess.Popen(
            [sys.executable, str(SCRIPT), json.dumps(named)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._ask(None) == "ready"

    def _ask(self, order: object) -> object:
        """Send ``order`` (None: nothing) and read the answer."""
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        if order is not None:
            self.process.stdin.write(json.dumps(order) + "\n")
            self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, "the fork server is gone"
        return json.loads(answer)

    def start(self, args: list[str], cwd: Path, env: Mapping[str, str], stderr: Path) -> int:
        """Start ``evalwright ARGS`` in ``cwd``; its pid."""
        order = {"run": args, "cwd": str(cwd), "env": dict(env), "stderr": str(stderr)}
        pid = self._ask(order)
        assert isinstance(pid, int)
        return pid

    def running(self, pid: int) -> bool:
        """Whether the run ``pid`` still runs."""
        return self._ask({"poll": pid}) == "running"

    def kill(self, pid: int, ready: Callable[[], bool], settle: float, within: float = 60) -> int:
        """SIGKILL the run ``pid`` once ``ready()`` (asked every 10 ms) and ``settle`` seconds
        more, unless it ended first; its exit code (``-9`` when killed)."""
        deadline = time.monotonic() + within
        while not ready() and self.running(pid):
            assert time.monotonic() < deadline, "the moment to kill the run never came"
            time.sleep(0.01)
        time.sleep(settle)
        self._ask({"kill": pid})
        code = self._ask({"wait": pid})
        assert isinstance(code, int)
        return code

    def close(self) -> None:
        """Stop the fork server (its runs are all reaped)."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            if self.process.stdout is not None:
                self.process.stdout.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
