"""The results file's lock (docs/running.md#one-run-at-a-time) where there is no ``fcntl``:
``import evalwright`` and a run work, with Windows' ``msvcrt`` lock in its place.

Windows cannot run here, so a real process is started without ``fcntl`` and with a stand-in
``msvcrt`` that behaves as Windows does where the lock depends on it: ``locking`` locks the
byte at the file's position and refuses a second lock with an ``OSError``; an open file
cannot be removed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

WINDOWS = r"""
import fcntl, json, os, sys, types

# subprocess tells Windows by whether msvcrt imports: it, and asyncio, are imported first.
import asyncio, subprocess

open_locks = {}  # fd -> (st_dev, st_ino) of each file locked through the stand-in
taken = []


def locking(fd, mode, nbytes):
    taken.append((mode, os.lseek(fd, 0, os.SEEK_CUR), nbytes))
    if mode == msvcrt.LK_UNLCK:
        fcntl.flock(fd, fcntl.LOCK_UN)
        open_locks.pop(fd, None)
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise PermissionError(13, "Permission denied") from None
    held = os.fstat(fd)
    open_locks[fd] = (held.st_dev, held.st_ino)


real_unlink, real_close = os.unlink, os.close


def unlink(path, *args, **kwargs):
    try:
        named = os.stat(path)
    except FileNotFoundError:
        named = None
    if named is not None and (named.st_dev, named.st_ino) in open_locks.values():
        raise PermissionError(13, "The process cannot access the file")
    real_unlink(path, *args, **kwargs)


def close(fd):
    open_locks.pop(fd, None)
    real_close(fd)


msvcrt = types.ModuleType("msvcrt")
msvcrt.LK_UNLCK, msvcrt.LK_NBLCK = 0, 2
msvcrt.locking = locking
if sys.argv[1] == "msvcrt":
    sys.modules["msvcrt"] = msvcrt
    os.unlink, os.close = unlink, close
else:
    sys.modules["msvcrt"] = None
sys.modules["fcntl"] = None

from pathlib import Path

import evalwright as ew
from evalwright.results.lock import ResultsLock

out = {}
results = os.path.abspath("r.jsonl")
check = ew.ContainsSpec(name="paris", value="Paris")
case = ew.EvalCase(
    id="c", expected_outcome="o", input="Capital?", execution=ew.Execution(evaluators=[check])
)
mock = ew.MockTarget(name="offline", response="Paris")
try:
    run = ew.run(ew.Suite([case], base_dir="."), targets=mock, out=results)
except ew.ConfigError as exc:
    out["error"] = str(exc)
    print(json.dumps(out))
    raise SystemExit(0)
out["scores"] = [row.score for row in run.rows]
first = ResultsLock.acquire(Path(results), "run-one")
try:
    ResultsLock.acquire(first.results, "run-two")
except ew.ConfigError as exc:
    out["second"] = str(exc)
out["held"] = os.path.exists(first.path)
first.release()
out["left"] = os.path.exists(first.path)
out["taken"] = taken
print(json.dumps(out))
"""


def _windows(tmp_path: Path, msvcrt: str) -> dict[str, Any]:
    """The script's findings, run in ``tmp_path`` without fcntl."""
    script = tmp_path / "windows.py"
    script.write_text(WINDOWS, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), msvcrt],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_without_fcntl_a_run_locks_its_file_with_msvcrt(tmp_path: Path) -> None:
    found = _windows(tmp_path, "msvcrt")
    assert found["scores"] == [1.0]
    assert found["second"].startswith("r.jsonl is in use by another run (run run-one, pid ")
    assert found["held"] is True
    assert found["left"] is False  # removed once let go, as Windows allows
    # Each lock is on the byte far past the holder's line (a locked byte cannot be read on
    # Windows), and every one taken was let go: the run's, then the first of the two.
    far = 1 << 20
    assert found["taken"] == [[2, far, 1], [0, far, 1], [2, far, 1], [2, far, 1], [0, far, 1]]
    assert not list(tmp_path.glob(".*.lock"))


def test_without_fcntl_or_msvcrt_a_run_says_it_cannot_lock(tmp_path: Path) -> None:
    found = _windows(tmp_path, "none")
    assert found["error"] == "cannot lock r.jsonl: this platform has neither fcntl nor msvcrt"
    assert not list(tmp_path.glob(".*.lock"))
