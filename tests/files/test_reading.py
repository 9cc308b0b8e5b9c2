"""Special files (FIFOs, devices, huge sparse files) never hang a command or exhaust memory:
only regular files are read, each size limit is checked before reading, and "not a regular
file" is its own error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalwright.files.reading import (
    FileTooLarge,
    NotRegularFile,
    UnreadableFile,
    open_regular,
    read_limited,
)
from tests.conftest import ProjectDir, run_cli, run_process

CASE = """evalcases:
  - id: a
    expected_outcome: o
    input_messages:
      - role: user
        content:
          - {type: file, value: ATTACHMENT}
"""


def fifo(path: Path) -> Path:
    """A named pipe nobody writes to: a plain ``open`` of it blocks forever."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no disk (and would take ``size`` of memory to read)."""
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


def test_read_limited_reads_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    assert read_limited(path, 5) == b"hello"


def test_a_fifo_is_not_opened_for_reading(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFile, match="not a regular file: it is a FIFO"):
        open_regular(fifo(tmp_path / "pipe"))


@pytest.mark.parametrize(
    ("path", "kind"), [("/dev/zero", "a character device"), ("/dev/urandom", "a character device")]
)
def test_a_device_is_refused_before_reading(path: str, kind: str) -> None:
    with pytest.raises(NotRegularFile, match=f"it is {kind}"):
        read_limited(path, 10)


def test_a_directory_is_not_a_regular_file(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFile, match="it is a directory"):
        read_limited(tmp_path, 10)


def test_the_size_limit_is_checked_before_reading(tmp_path: Path) -> None:
    big = sparse(tmp_path / "big.txt", 3 * 1024**3)
    with pytest.raises(FileTooLarge, match=r"too large: 3221225472 bytes \(max_file_bytes is 9\)"):
        read_limited(big, 9, "max_file_bytes")


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFile, match="No such file"):
        read_limited(tmp_path / "nope", 9)


def test_a_fifo_attachment_is_not_a_regular_file_not_a_missing_one(project: ProjectDir) -> None:
    eval_file = project.write("evals/e.yaml", CASE.replace("ATTACHMENT", "pipe.txt"))
    fifo(project.root / "evals" / "pipe.txt")
    result = run_cli("validate", eval_file)
    assert result.code == 1
    assert "e.yaml:7:33: error: evalcases[0].input_messages[0].content[0].value: " in result.out
    assert "not a regular file: it is a FIFO (pipe.txt)" in result.out
    assert "not found" not in result.out


def test_a_huge_sparse_attachment_is_refused_by_size(project: ProjectDir) -> None:
    eval_file = project.write("e.yaml", CASE.replace("ATTACHMENT", "big.txt"))
    sparse(project.root / "big.txt", 2 * 1024**3)
    result = run_cli("prompt", eval_file, "--json")
    assert result.code == 2
    assert "file is too large: 2147483648 bytes (max_file_bytes is 1048576) (big.txt)" in result.err


@pytest.mark.parametrize("name", ["e.yaml", "e.jsonl"])
def test_a_fifo_eval_file_is_an_error_for_every_command(project: ProjectDir, name: str) -> None:
    path = fifo(project.root / name)
    validate = run_process("validate", path, timeout=30)
    assert validate.code == 1
    assert f"{name}:1:1: error: not a regular file: it is a FIFO" in validate.out
    for command in (("prompt", path, "--json"), ("eval", path, "--dry-run")):
        result = run_process(*command, timeout=30)
        assert result.code == 2, result.err
        assert "not a regular file: it is a FIFO" in result.err
        assert "Traceback" not in result.err


def test_a_symlink_to_a_device_as_eval_file(project: ProjectDir) -> None:
    link = project.root / "zero.yaml"
    link.symlink_to("/dev/zero")
    result = run_process("validate", link, timeout=30)
    assert result.code == 1
    assert "zero.yaml:1:1: error: not a regular file: it is a character device" in result.out


def test_a_stray_fifo_in_a_scanned_directory_is_skipped(project: ProjectDir) -> None:
    project.write("evals/good.yaml", CASE.replace("ATTACHMENT", "a.txt"))
    project.write("evals/a.txt", "attached")
    fifo(project.root / "evals" / "stray.yaml")
    fifo(project.root / "evals" / "stray.jsonl")
    result = run_process("validate", project.root / "evals", timeout=30)
    assert result.code == 0, result.out + result.err
    assert "1 file checked" in result.err


def test_a_fifo_dotenv_is_a_configuration_error(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", "targets:\n  - {name: t, provider: mock}\n")
    eval_file = project.write("e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    fifo(project.root / ".env")
    result = run_process("eval", eval_file, "--target", "t", "--out", project.root / "r.jsonl")
    assert result.code == 2, result.err
    assert ".env: not a regular file: it is a FIFO" in result.err


def test_an_over_long_jsonl_line_is_located(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("evalwright.evalfile.jsonl_items.MAX_JSONL_LINE_BYTES", 100)
    line = '{"id": "a", "expected_outcome": "o", "input": "' + "x" * 200 + '"}'
    eval_file = project.write(
        "e.jsonl", '{"id": "b", "expected_outcome": "o", "input": "hi"}\n' + line + "\n"
    )
    result = run_cli("validate", eval_file)
    assert result.code == 1
    assert "e.jsonl:2:1: error: line is longer than 100 bytes" in result.out
