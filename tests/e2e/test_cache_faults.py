"""A damaged or read-only response cache, met by real ``evalwright`` processes
(docs/running.md#when-the-cache-is-damaged-or-read-only): the run writes every row and ends
with one warning naming the file and what is wrong, never a traceback; ``cache stats`` and
``cache clear`` say what is wrong with an exit status, and ``clear`` removes a damaged file.

File permissions do not bind root, so as root the processes run without the capabilities
that override them (``setpriv`` from util-linux drops them): the read-only layouts are real.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evalwright.results.cache import CACHE_FILE
from evalwright.results.cache_schema import SCHEMA_VERSION
from evalwright.testing import ReceivedRequest, Text
from tests.conftest import CliResult
from tests.e2e.harness import E2E, is_judge
from tests.results.test_cache_faults import PAGE, flip_bytes

EVAL_FILE = "evals/cached.yaml"


def eval_text(cases: int) -> str:
    """``cases`` cases, each asking its own question."""
    listed = "".join(
        f"  - {{id: c{i}, input: question {i}, expected_outcome: Answers.}}\n" for i in range(cases)
    )
    return "execution:\n  evaluators:\n    - {name: says, type: contains, value: answer}\n" + (
        "evalcases:\n" + listed
    )


def _answer(request: ReceivedRequest) -> Text | None:
    """An answer of its own for each question, long enough to fill a few pages."""
    if is_judge(request):
        return None
    question = request.json["messages"][-1]["content"]
    return Text(f"the answer to {question}. " * 20, input_tokens=5, output_tokens=7)


def expected(question: int) -> str:
    """What the server answers to case ``c{question}``."""
    return f"the answer to question {question}. " * 20


def unprivileged(e2e: E2E, *args: str) -> CliResult:
    """``evalwright ARGS`` in the project root as a real process that file permissions
    bind."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv is not None, "as root, these tests need setpriv (util-linux)"
        dropped = "-dac_override,-dac_read_search,-fowner"
        prefix = [setpriv, "--inh-caps=-all", f"--bounding-set={dropped}", "--"]
    completed = subprocess.run(
        [*prefix, sys.executable, "-m", "evalwright", *args],
        cwd=e2e.root,
        env=e2e.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return CliResult(completed.returncode, completed.stdout, completed.stderr)


@pytest.fixture
def project(e2e: E2E) -> Iterator[E2E]:
    """The e2e project, its directories made writable again afterwards."""
    e2e.server.responder = _answer
    yield e2e
    for directory in [e2e.root, *e2e.root.rglob("*")]:
        if directory.is_dir() and not directory.is_symlink():
            directory.chmod(directory.stat().st_mode | stat.S_IWUSR)


def cache_dir(e2e: E2E) -> Path:
    """The project's cache directory."""
    return e2e.root / ".evalwright" / "cache"


def fill(e2e: E2E, cases: int) -> None:
    """A first run (in this process) that caches ``cases`` answers."""
    e2e.project.write(EVAL_FILE, eval_text(cases))
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--cache", "--out", "first.jsonl")
    assert result.code == 0, result.err
    assert [row["cache"] for row in e2e.rows("first.jsonl")] == ["miss"] * cases


def faulted_run(e2e: E2E, cases: int) -> tuple[list[dict[str, Any]], list[str]]:
    """A run of ``cases`` cases on the cache as a real process: its rows (every one ok, with
    the server's answer) and its warning lines."""
    e2e.project.write(EVAL_FILE, eval_text(cases))
    result = unprivileged(e2e, "eval", EVAL_FILE, "--target", "oa", "--cache", "--out", "r.jsonl")
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    rows = sorted(e2e.rows("r.jsonl"), key=lambda row: int(row["eval_id"][1:]))
    assert [row["eval_id"] for row in rows] == [f"c{i}" for i in range(cases)]
    assert [row["candidate_answer"] for row in rows] == [expected(i) for i in range(cases)]
    assert all(row["status"] == "ok" for row in rows)
    return rows, [line for line in result.err.splitlines() if "warning" in line]


def _garbage(directory: Path) -> None:
    (directory / CACHE_FILE).write_bytes(bytes(range(256)) * 32)


def _truncated(directory: Path) -> None:
    path = directory / CACHE_FILE
    path.write_bytes(path.read_bytes()[: PAGE + 1000])


def _zeroed_header(directory: Path) -> None:
    path = directory / CACHE_FILE
    path.write_bytes(bytes(100) + path.read_bytes()[100:])


def _directory_at_the_file(directory: Path) -> None:
    (directory / CACHE_FILE).unlink()
    (directory / CACHE_FILE).mkdir()


def _cache_directory_a_file(directory: Path) -> None:
    shutil.rmtree(directory)
    directory.write_text("not a directory\n")


def _link_to_nowhere(directory: Path) -> None:
    directory.symlink_to(directory.parent / "gone" / "cache")


def _read_only_file(directory: Path) -> None:
    (directory / CACHE_FILE).chmod(0o444)


def _read_only_directory(directory: Path) -> None:
    directory.chmod(0o555)


def _read_only_parent(directory: Path) -> None:
    directory.parent.chmod(0o555)


def _old_schema(directory: Path) -> None:
    db = sqlite3.connect(directory / CACHE_FILE, isolation_level=None)
    db.execute("ALTER TABLE responses DROP COLUMN checksum")
    db.execute("PRAGMA user_version = 0")
    db.close()


def _newer_schema(directory: Path) -> None:
    db = sqlite3.connect(directory / CACHE_FILE, isolation_level=None)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()


@dataclass(frozen=True)
class Layout:
    """A cache made faulty by ``arrange`` (after a first run filled it, if ``filled``), what
    a run on it says and does, and what ``cache stats`` and ``cache clear`` say."""

    arrange: Callable[[Path], None]
    filled: bool
    warning: str
    """What follows ``evalwright: warning: `` in the run's one warning (``{file}``,
    ``{dir}``: the cache file and directory)."""
    states: tuple[str, str]
    """The rows' ``cache``: of the cases cached before, and of the one new case."""
    stats: tuple[int, str]
    clear: tuple[int, str]
    kept: bool
    """Whether the arranged file (or directory) is left after ``cache clear`` (``filled``
    layouts: the others have none, and ``stats`` and ``clear`` make none)."""


DAMAGED = "the response cache {file} is damaged"
CLEAR_HINT = "; `evalwright cache clear` removes it"
REMOVED = "removed the damaged response cache {file}"
NONE = "no response cache in {dir}"
READ_ONLY = "the response cache {file} cannot be written (attempt to write a readonly database"
LAYOUTS = {
    "garbage": Layout(
        _garbage,
        True,
        DAMAGED + " (file is not a database): the run went on without it" + CLEAR_HINT,
        ("off", "off"),
        (1, "evalwright: error: " + DAMAGED + " (file is not a database)" + CLEAR_HINT),
        (0, REMOVED + " (file is not a database)"),
        False,
    ),
    "truncated": Layout(
        _truncated,
        True,
        DAMAGED + " (database disk image is malformed): the run went on without it" + CLEAR_HINT,
        ("off", "off"),
        (1, "evalwright: error: " + DAMAGED + " (database disk image is malformed)"),
        (0, REMOVED + " (database disk image is malformed)"),
        False,
    ),
    "zeroed-header": Layout(
        _zeroed_header,
        True,
        DAMAGED + " (file is not a database): the run went on without it" + CLEAR_HINT,
        ("off", "off"),
        (1, "evalwright: error: " + DAMAGED + " (file is not a database)"),
        (0, REMOVED + " (file is not a database)"),
        False,
    ),
    "newer-schema": Layout(
        _newer_schema,
        True,
        DAMAGED + f" (written by a newer evalwright: schema {SCHEMA_VERSION + 1}, this one reads "
        f"{SCHEMA_VERSION}): the run went on without it" + CLEAR_HINT,
        ("off", "off"),
        (1, "evalwright: error: " + DAMAGED + " (written by a newer evalwright"),
        (0, REMOVED + " (written by a newer evalwright"),
        False,
    ),
    "old-schema": Layout(
        _old_schema,
        True,
        "the response cache {file} was written by an earlier evalwright, without checksums: "
        "3 entries dropped, to be asked again",
        ("miss", "miss"),
        (0, "evalwright: warning: the response cache {file} was written by an earlier"),
        (0, "removed 0 cached response(s) from {file}"),
        True,
    ),
    "directory-at-the-file": Layout(
        _directory_at_the_file,
        True,
        "the response cache {file} cannot be used (it is a directory, not a file): "
        "the run went on without it",
        ("off", "off"),
        (1, "evalwright: error: the response cache {file} cannot be used (it is a directory"),
        (1, "(it is a directory, not a file): nothing was removed"),
        True,
    ),
    "cache-directory-a-file": Layout(
        _cache_directory_a_file,
        True,
        "the response cache {file} cannot be used ({dir} is not a directory): "
        "the run went on without it",
        ("off", "off"),
        (1, "evalwright: error: the response cache {file} cannot be used ({dir} is not a"),
        (1, "({dir} is not a directory): nothing was removed"),
        True,
    ),
    "cannot-be-created": Layout(
        _link_to_nowhere,
        False,
        "the response cache {file} cannot be used ({dir} is not a directory): "
        "the run went on without it",
        ("off", "off"),
        (0, NONE),
        (0, NONE),
        True,
    ),
    "read-only-file": Layout(
        _read_only_file,
        True,
        READ_ONLY + ": SQLite writes the file and creates its -wal and -shm files beside it): "
        "answers were read from it, 1 new one(s) not stored",
        ("hit", "miss"),
        (0, '"entries": 3'),
        (1, "evalwright: error: " + READ_ONLY),
        True,
    ),
    "read-only-directory": Layout(
        _read_only_directory,
        True,
        READ_ONLY + ": SQLite writes the file and creates its -wal and -shm files beside it): "
        "the run went on without it",
        ("off", "off"),
        (1, "evalwright: error: " + READ_ONLY),
        (1, "nothing was removed"),
        True,
    ),
    "read-only-parent": Layout(
        _read_only_parent,
        False,
        "the response cache {file} cannot be used (cannot create {dir}: Permission denied): "
        "the run went on without it",
        ("off", "off"),
        (0, NONE),
        (0, NONE),
        True,
    ),
}


def _filled_and_arranged(e2e: E2E, layout: Layout) -> None:
    if layout.filled:
        fill(e2e, 3)
    layout.arrange(cache_dir(e2e))


def _said(template: str, e2e: E2E) -> str:
    return template.format(file=cache_dir(e2e) / CACHE_FILE, dir=cache_dir(e2e))


@pytest.mark.parametrize("name", LAYOUTS)
def test_a_run_on_a_faulty_cache_writes_every_row_and_warns_once(project: E2E, name: str) -> None:
    layout = LAYOUTS[name]
    _filled_and_arranged(project, layout)

    rows, warnings = faulted_run(project, 4)

    assert warnings == ["evalwright: warning: " + _said(layout.warning, project)]
    old, new = layout.states if layout.filled else (layout.states[1], layout.states[1])
    assert [row["cache"] for row in rows] == [old] * 3 + [new]


def _outcome(result: CliResult) -> tuple[int, str]:
    assert "Traceback" not in result.err
    return result.code, result.out + result.err


@pytest.mark.parametrize("name", LAYOUTS)
def test_cache_stats_and_clear_say_what_is_wrong(project: E2E, name: str) -> None:
    layout = LAYOUTS[name]
    _filled_and_arranged(project, layout)
    path = cache_dir(project) / CACHE_FILE
    arranged = path if path.exists() or path.is_symlink() else cache_dir(project)

    code, said = _outcome(unprivileged(project, "cache", "stats"))
    assert (code, _said(layout.stats[1], project) in said) == (layout.stats[0], True), said
    code, said = _outcome(unprivileged(project, "cache", "clear"))
    assert (code, _said(layout.clear[1], project) in said) == (layout.clear[0], True), said

    if not layout.filled:  # told there is none, and none made
        assert not cache_dir(project).is_dir()
        return
    assert (arranged.exists() or arranged.is_symlink()) == layout.kept
    if not layout.kept:
        assert list(cache_dir(project).iterdir()) == [], "its -wal and -shm files went too"
        assert _outcome(unprivileged(project, "cache", "stats")) == (0, _said(NONE, project) + "\n")


def test_a_damaged_entry_is_asked_again_once_then_replayed(project: E2E) -> None:
    fill(project, 3)
    path = cache_dir(project) / CACHE_FILE
    data = path.read_bytes()
    at = data.index(expected(1).encode())
    path.write_bytes(data[:at] + b"T" + data[at + 1 :])  # "the answer" -> "The answer"

    stats = unprivileged(project, "cache", "stats")
    assert (stats.code, stats.json()["damaged"], stats.json()["entries"]) == (0, 1, 3)
    assert stats.err == (
        f"evalwright: warning: 1 damaged entry(ies) in {path} (checksum mismatch): a run asks "
        "them again and stores the new answers\n"
    )
    project.server.clear()
    rows, warnings = faulted_run(project, 3)
    assert [row["cache"] for row in rows] == ["hit", "miss", "hit"]
    assert len(project.candidates()) == 1
    assert warnings == [
        f"evalwright: warning: 1 damaged entry in the response cache {path} (checksum "
        "mismatch): asked again, not replayed"
    ]

    rows, warnings = faulted_run(project, 3)
    assert [row["cache"] for row in rows] == ["hit"] * 3
    assert warnings == []


def test_300_flipped_bytes_replay_no_wrong_answer(project: E2E) -> None:
    """The file of a cache of 120 answers with 300 bytes flipped past its first page: no run
    replays a damaged answer, and every row is the server's."""
    fill(project, 120)
    path = cache_dir(project) / CACHE_FILE
    flip_bytes(path, 300, seed=3)
    project.server.clear()

    rows, warnings = faulted_run(project, 120)  # each row's answer is the server's

    hits = sum(row["cache"] == "hit" for row in rows)
    assert len(project.candidates()) == 120 - hits
    assert hits < 120
    assert 1 <= len(warnings) <= 2
    assert all(str(path) in line for line in warnings)
    code, said = _outcome(unprivileged(project, "cache", "clear"))
    assert code == 0, said
