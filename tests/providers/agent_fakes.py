"""Helpers for the agent-target tests: fake executables written by the tests, eval files
written as JSON Lines (so hostile text needs no YAML quoting), and polling with deadlines."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.conftest import ProjectDir
from tests.e2e.harness import E2E, start, targets_yaml

# Every character a shell would act on, and text that looks like our own placeholders.
HOSTILE = (
    "He said \"hi\" and 'bye'; $(touch pwned) `touch pwned` && rm -rf pwned || echo $HOME\n"
    "second line | cat > pwned; {EVAL_ID} {PROMPT} {path} \\1 \\g<0> %s ${{ HOME }} \u00e9\u2713"
)
HOSTILE_FILE = "it's $(touch pwned); `touch pwned` & more.txt"
ANY_ANSWER = [{"name": "any", "type": "regex", "value": "^"}]
"""An evaluator that needs no judge and accepts every answer (even an empty one)."""


def write_script(path: Path, body: str, constants: dict[str, Any] | None = None) -> Path:
    """An executable Python script at ``path``: ``constants`` become module globals."""
    path.parent.mkdir(parents=True, exist_ok=True)
    head = f"#!{sys.executable}\nfrom __future__ import annotations\n"
    values = "".join(f"{name} = {value!r}\n" for name, value in (constants or {}).items())
    path.write_text(head + values + textwrap.dedent(body), encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def write_cases(
    project: ProjectDir,
    relative: str,
    cases: list[dict[str, Any]],
    evaluators: list[dict[str, Any]] | None = None,
    **header: Any,
) -> Path:
    """An eval file in JSON Lines: a header (``execution.evaluators``), then one case a line."""
    head: dict[str, Any] = dict(header)
    if evaluators is not None:
        head["execution"] = {"evaluators": evaluators}
    lines = [json.dumps(head)] if head else []
    lines += [json.dumps({"expected_outcome": "Answers.", **case}) for case in cases]
    return project.write(relative, "\n".join(lines) + "\n")


def target_block(name: str, provider: str, **keys: Any) -> str:
    """One more entry of the targets list (JSON values are valid YAML 1.2)."""
    lines = [f"  - name: {name}", f"    provider: {provider}"]
    lines += [f"    {key}: {json.dumps(value)}" for key, value in keys.items()]
    return "\n".join(lines) + "\n"


def add_targets(e2e: E2E, *blocks: str) -> None:
    """The base targets (chat APIs and the ``judge``) plus ``blocks``."""
    e2e.project.write(".evalwright/targets.yaml", targets_yaml(e2e.server.url) + "".join(blocks))


def agent_e2e(project: ProjectDir, tmp_path: Path) -> Iterator[E2E]:
    """A fake-server project whose runs keep their temporary directories under ``tmp_path``."""
    for e2e in start(project):
        scratch = tmp_path / "tmp"
        scratch.mkdir()
        e2e.env["TMPDIR"] = str(scratch)
        yield e2e


def run_eval(e2e: E2E, *args: str, in_process: bool = True) -> list[dict[str, Any]]:
    """``evalwright eval ARGS --out results.jsonl`` (in this process, or as a subprocess);
    the rows (exit 0 iff all are ok)."""
    run = e2e.run if in_process else e2e.run_process
    result = run("eval", *args, "--out", "results.jsonl", "--quiet")
    assert "Traceback" not in result.err, result.err
    rows = e2e.rows()
    expected = 0 if all(r["status"] == "ok" for r in rows) else 1
    assert result.code == expected, result.err + result.out
    return rows


def by_id(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Rows keyed by ``eval_id``."""
    return {row["eval_id"]: row for row in rows}


def records(directory: Path) -> list[dict[str, Any]]:
    """The JSON objects the fakes wrote into ``directory``, one file per invocation."""
    if not directory.exists():
        return []
    found = [json.loads(p.read_text(encoding="utf-8")) for p in directory.glob("*.json")]
    return sorted(found, key=lambda r: float(r.get("time", 0)))


def wait_until(predicate: Callable[[], bool], seconds: float = 5.0) -> bool:
    """Poll ``predicate`` until it holds or ``seconds`` pass; its last value."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return predicate()
        time.sleep(0.02)
    return True


def process_gone(pid: int) -> bool:
    """Whether process ``pid`` no longer runs (a zombie awaiting its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    status = Path(f"/proc/{pid}/status")
    try:
        text = status.read_text(encoding="utf-8")
    except OSError:
        return False
    return any(line.startswith("State:") and "Z" in line.split()[1] for line in text.splitlines())


def assert_nothing_ran(root: Path) -> None:
    """No shell ran any of :data:`HOSTILE`'s commands anywhere under ``root``."""
    assert not list(root.rglob("pwned")), "a hostile value was executed"


SPAWN_SLEEPER = """\
import os, subprocess, sys, time
from pathlib import Path


def spawn_sleeper() -> None:
    '''A child that records its pid, sleeps, then writes LATE (it must be killed first).'''
    code = (
        "import os, sys, time\\n"
        "from pathlib import Path\\n"
        "Path(sys.argv[1]).write_text(str(os.getpid()))\\n"
        "time.sleep(float(sys.argv[3]))\\n"
        "Path(sys.argv[2]).write_text('late')\\n"
    )
    subprocess.Popen(
        [sys.executable, "-c", code, CHILD_PID, LATE, str(CHILD_SLEEP)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while not Path(CHILD_PID).exists() and time.monotonic() < deadline:
        time.sleep(0.01)
"""
"""Source of ``spawn_sleeper()`` for fakes; needs the constants CHILD_PID, LATE, CHILD_SLEEP."""


def assert_child_killed(child_pid: Path, late: Path, child_sleep: float) -> None:
    """The sleeping child a fake started is gone, and never wrote its late file."""
    assert child_pid.exists(), "the fake never started its child"
    pid = int(child_pid.read_text(encoding="utf-8"))
    assert wait_until(lambda: process_gone(pid)), f"child {pid} outlived the timeout"
    # Past the moment it would have written, it still has not.
    remaining = child_pid.stat().st_mtime + child_sleep + 0.3 - time.time()
    if remaining > 0:
        time.sleep(remaining)
    assert not late.exists()
