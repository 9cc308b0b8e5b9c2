"""The benchmark measures a command's own peak RSS, not the benchmark process's."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bench.launch import run_measured


def test_the_peak_rss_is_the_commands_own_even_from_a_large_process(tmp_path: Path) -> None:
    ballast = bytearray(256 * 1024 * 1024)
    ballast[::4096] = b"x" * len(range(0, len(ballast), 4096))  # touch every page
    small = run_measured([sys.executable, "-c", "pass"], tmp_path, dict(os.environ))
    grow = "x = bytearray(96 * 2**20); x[::4096] = b'x' * (96 * 256)"
    large = run_measured([sys.executable, "-c", grow], tmp_path, dict(os.environ))
    assert len(ballast) == 256 * 1024 * 1024
    assert (small.code, large.code) == (0, 0)
    assert small.rss_kib < 64 * 1024
    assert 96 * 1024 < large.rss_kib < 96 * 1024 + 64 * 1024
    assert small.started > 0
    assert small.wall > 0


def test_the_exit_code_and_the_end_of_stderr_are_kept(tmp_path: Path) -> None:
    script = "import sys; sys.stderr.write('x' * 5000 + 'the end'); sys.exit(3)"
    measured = run_measured([sys.executable, "-c", script], tmp_path, dict(os.environ))
    assert measured.code == 3
    assert measured.stderr_tail.endswith("the end")
    assert len(measured.stderr_tail) == 2000
