"""``evalwright report`` and ``evalwright compare`` stream their results files: a real
process's peak memory grows by little per row (bench/README.md#the-html-report has the
figures at 100,000 rows)."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
from bench.launch import run_measured

from evalwright.results.row import ResultRow
from tests.report.runs import run_suite

SMALL, LARGE = 500, 5_500
PER_ROW_KIB = 2.5
"""What a row may add to the peak: 300 MB at 100,000 rows, less the interpreter's own."""

WORDS = ("the", "loop", "never", "runs", "so", "it", "returns", "zero", "for", "any", "input")


def _answer(pick: random.Random) -> str:
    """About 2 KB of words, different for each row (as the answers of a real run are)."""
    return " ".join(pick.choice(WORDS) for _ in range(400))


def _results(path: Path, templates: list[ResultRow], count: int, seed: int) -> Path:
    """``count`` rows made from a real run's rows: each its own case, with its own answer."""
    pick = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            row = templates[n % len(templates)]
            changes: dict[str, object] = {
                "eval_id": f"{row.eval_id}-{n}",
                "candidate_answer": _answer(pick),
            }
            if row.status == "ok":
                changes["score"] = pick.choice((0.0, 1.0))
            out.write(row.model_copy(update=changes).model_dump_json() + "\n")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Path]]:
    """Per size, an old and a new results file of that many rows."""
    root = tmp_path_factory.mktemp("memory") / "project"
    (root / ".git").mkdir(parents=True)
    templates = list(run_suite(root, "real").rows)
    return {
        size: (
            _results(root / f"old-{size}.jsonl", templates, size, 1),
            _results(root / f"new-{size}.jsonl", templates, size, 2),
        )
        for size in (SMALL, LARGE)
    }


def _peak_kib(root: Path, *args: str | Path) -> int:
    argv = [sys.executable, "-m", "evalwright", *map(str, args)]
    measured = run_measured(argv, root, dict(os.environ))
    assert measured.code in (0, 1), measured.stderr_tail
    return measured.rss_kib


@pytest.mark.parametrize("command", ["report", "compare"])
def test_the_peak_grows_little_per_row(
    files: dict[int, tuple[Path, Path]], tmp_path: Path, command: str
) -> None:
    peaks: dict[int, int] = {}
    for size, (old, new) in files.items():
        if command == "report":
            args = ("report", new, "--baseline", old, "-o", tmp_path / f"{size}.html")
        else:
            args = ("compare", old, new)
        peaks[size] = _peak_kib(tmp_path, *args)
    per_row = (peaks[LARGE] - peaks[SMALL]) / (LARGE - SMALL)
    assert per_row < PER_ROW_KIB, f"{command}: {per_row:.1f} KiB a row ({peaks})"
