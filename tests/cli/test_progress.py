"""What a person sees during a run: a bar on a terminal, lines in a log, nothing when quiet."""

from __future__ import annotations

import io
from pathlib import Path

from evalwright.cli.progress import Progress, summary_table
from evalwright.orchestrator.summary import RunSummary
from evalwright.results.row import ResultRow
from tests.results.samples import sample_row


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def row(
    target: str = "t",
    status: str = "ok",
    score: float | None = 1.0,
    error: dict[str, str] | None = None,
) -> ResultRow:
    return sample_row(
        target=target,
        status=status,
        score=score,
        usage={"input_tokens": 3, "output_tokens": 2},
        error=error,
    )


def feed(progress: Progress, summary: RunSummary, rows: list[ResultRow]) -> None:
    progress.start(summary)
    for item in rows:
        summary.add(item)
        progress.row(item, summary)
    progress.finish(summary)


def test_a_terminal_gets_a_bar_redrawn_in_place() -> None:
    stream = Terminal()
    summary = RunSummary(Path("r.jsonl"), total=2)
    feed(Progress(stream), summary, [row(), row()])
    out = stream.getvalue()
    assert out.startswith("\r[")
    assert "2/2 done, 0 error(s)" in out
    assert "#" * 24 in out
    assert out.endswith("\n")


def test_a_log_gets_lines_and_each_error() -> None:
    stream = io.StringIO()
    summary = RunSummary(Path("r.jsonl"), total=2, exact_total=False)
    failure = row(status="error", score=None, error={"type": "timeout", "message": "slow"})
    feed(Progress(stream), summary, [failure, row()])
    lines = stream.getvalue().splitlines()
    assert lines[0] == "running up to 2 case(s)"
    assert "error: case on t: slow" in lines
    assert lines[-1].startswith("2/2 done, 1 error(s)")


def test_quiet_prints_nothing() -> None:
    stream = Terminal()
    feed(Progress(stream, quiet=True), RunSummary(Path("r.jsonl"), total=1), [row()])
    assert stream.getvalue() == ""


def test_a_log_line_goes_above_the_bar_which_is_drawn_again() -> None:
    stream = Terminal()
    progress = Progress(stream, quiet=True)
    summary = RunSummary(Path("r.jsonl"), total=2)
    progress.line("before the bar")
    progress.quiet = False
    progress.start(summary)
    summary.add(row())
    progress.row(row(), summary)
    bar = stream.getvalue().rsplit("\r", 1)[1].removesuffix("\x1b[K")
    assert bar.startswith("[############............] 1/2 done")

    progress.line("INFO evalwright.x: a log line")
    progress.finish(summary)
    progress.line("after the bar")

    assert stream.getvalue().split("\n") == [
        "before the bar",
        f"\r{bar}\x1b[K\r\x1b[KINFO evalwright.x: a log line",
        f"\r{bar}\x1b[K",
        "after the bar",
        "",
    ]


def test_summary_table_per_target_and_threshold() -> None:
    summary = RunSummary(Path("r.jsonl"), total=3, pass_mark=0.5, threshold=0.9)
    for item in (row("a", score=1.0), row("a", score=0.2), row("b", status="error", score=None)):
        summary.add(item)
    table = summary_table(summary).splitlines()
    assert table[0].split() == [
        "target",
        "cases",
        "mean",
        "passed",
        "errors",
        "lossless",
        "tokens",
        "in/out",
        "wall",
    ]
    assert table[1].split()[:7] == ["a", "2", "0.600", "1/2", "0", "2/2", "6/4"]
    assert table[2].split()[:7] == ["b", "1", "-", "0/0", "1", "1/1", "3/2"]
    assert table[1].split()[7].endswith("s")
    assert table[-3:-1] == [
        "a: mean score 0.600 BELOW the threshold 0.9",
        "b: mean score - BELOW the threshold 0.9",
    ]
    assert summary.exit_code() == 1


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_eta_follows_the_pace_after_the_first_row_not_the_wait_for_it() -> None:
    clock, stream = Clock(), io.StringIO()
    progress = Progress(stream, clock=clock)
    summary = RunSummary(Path("r.jsonl"), total=100)
    progress.start(summary)
    etas: list[str] = []
    # 60 s to the first row (8 requests in parallel, a slow start), then one a second.
    for at in (60.0, 61.0, 62.0, 72.0):
        clock.now = at
        summary.add(row())
        progress.row(row(), summary)
        etas.append(stream.getvalue().splitlines()[-1].rsplit("ETA ", 1)[1])
    # The first lines cannot know the pace; then 1 s a row (97 left: 1:37), then 4 s a row
    # (96 left: 6:24). From the start, the first row alone would have said 99 minutes.
    assert etas == ["?", "?", "1:37", "6:24"]


def test_the_summary_names_the_first_failed_and_errored_cases() -> None:
    summary = RunSummary(Path("r.jsonl"), total=9)
    for n in range(7):
        summary.add(sample_row(eval_id=f"low-{n}", score=0.2))
    summary.add(sample_row(eval_id="fine", score=0.9))
    timeout = {"type": "timeout", "message": "slow"}
    summary.add(sample_row(eval_id="slow", repeat=2, status="error", score=None, error=timeout))

    lines = summary_table(summary).splitlines()

    assert "failed: low-0 on t, low-1 on t, low-2 on t, low-3 on t, low-4 on t (and 2 more)" in (
        lines
    )
    assert "errored: slow (repeat 2) on t" in lines
    assert "fine" not in summary_table(summary)
