"""What a person sees during a run: a progress bar on a terminal, plain lines otherwise,
nothing with ``--quiet``; and the summary table at the end."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from evalwright.errors import Diagnostic, printable
from evalwright.files.project import display_path
from evalwright.orchestrator.summary import NAMED_CASES, RunSummary
from evalwright.results.row import ResultRow
from evalwright.stats.judging import JudgeMetrics

_REDRAW_SECONDS = 0.1
_LINE_SECONDS = 2.0


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


class Progress:
    """Progress on ``stream``: redrawn in place on a terminal, else a line now and then."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        quiet: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = self.stream.isatty()
        self._clock = clock
        self._started = clock()
        self._first: tuple[float, int] | None = None
        """When the first rows were done, and how many: the pace is measured from there."""
        self._last = 0.0
        self._bar: str | None = None  # the bar as last drawn, while it is on screen
        self._lock = threading.Lock()  # log lines may come from another thread

    def start(self, summary: RunSummary) -> None:
        """Remember when the run began."""
        self._started = self._clock()
        if not self.quiet and not self.tty:
            about = "" if summary.exact_total else "up to "
            self.line(f"running {about}{summary.total} case(s)")

    def warning(self, diagnostic: Diagnostic) -> None:
        """Print a warning about the run's files, located as ``validate`` prints it."""
        if not self.quiet:
            self.line(str(diagnostic))

    def line(self, text: str) -> None:
        """Print ``text`` on a line of its own (a warning, a log line; even with ``quiet``):
        on a terminal the bar is cleared first and drawn again below it."""
        with self._lock:
            if self._bar is not None:
                self.stream.write("\r\x1b[K")
            self.stream.write(text + "\n")
            if self._bar is not None:
                self.stream.write("\r" + self._bar + "\x1b[K")
            self.stream.flush()

    def row(self, row: ResultRow, summary: RunSummary) -> None:
        """Redraw the bar, or print a line now and then (and each error)."""
        if self.quiet:
            return
        now = self._clock()
        if self._first is None:
            self._first = (now, summary.done)
        last = summary.done >= summary.total
        if self.tty:
            if now - self._last >= _REDRAW_SECONDS or last:
                self._last = now
                with self._lock:
                    self._bar = self._status(summary, bar=True)
                    self.stream.write("\r" + self._bar + "\x1b[K")
                    self.stream.flush()
            return
        if row.status == "error" and not (row.error and row.error.type == "target_unreachable"):
            message = row.error.message if row.error else ""
            line = f"error: {row.eval_id} on {row.target}: {message}"
            self.line(printable(line, one_line=True))
        if now - self._last >= _LINE_SECONDS or last:
            self._last = now
            self.line(self._status(summary, bar=False))

    def batch(
        self, target: str, batch_id: str, status: str, completed: int, failed: int, total: int
    ) -> None:
        """Say how a batch goes, as a line (docs/batch.md#progress)."""
        if self.quiet:
            return
        text = f"batch {batch_id} to '{target}': {status}, {completed}/{total} done"
        text += f", {failed} failed" if failed else ""
        if status in ("expired", "cancelled", "failed"):
            text += "; the requests it did not answer are error rows (--resume sends them again)"
        self.line(printable(text, one_line=True))

    def waiting(self, target: str, requests: int, oldest_seconds: float) -> None:
        """Say what a stalled run waits on: in the bar on a terminal, else as a line."""
        if self.quiet:
            return
        plural = "request" if requests == 1 else "requests"
        text = printable(
            f"waiting on {requests} {plural} to '{target}', oldest {int(oldest_seconds)} s",
            one_line=True,
        )
        if not self.tty:
            self.line(text)
            return
        with self._lock:
            base = self._bar if self._bar is not None else "[" + "." * 24 + "]"
            self._bar = base.split(" | waiting on")[0] + " | " + text
            self.stream.write("\r" + self._bar + "\x1b[K")
            self.stream.flush()

    def _status(self, summary: RunSummary, *, bar: bool) -> str:
        done, total = summary.done, max(summary.total, 1)
        now = self._clock()
        elapsed = now - self._started
        text = (
            f"{done}/{summary.total} done, {summary.errors} error(s), "
            f"{_clock(elapsed)} elapsed, ETA {self._eta(done, total, now)}"
        )
        if not bar:
            return text
        width = 24
        filled = int(width * done / total)
        return f"[{'#' * filled}{'.' * (width - filled)}] " + text

    def _eta(self, done: int, total: int, now: float) -> str:
        """The time left at the pace since the first rows were done; ``?`` until two more
        are. The time to the first row (loading, connecting, a slow first answer while
        others run in parallel) says nothing of the pace after it."""
        if done >= total:
            return _clock(0)
        if self._first is None:
            return "?"
        since, counted = self._first
        if done - counted < 2 or now <= since:
            return "?"
        pace = (now - since) / (done - counted)
        return _clock(pace * (total - done))

    def finish(self, summary: RunSummary) -> None:  # noqa: ARG002 - the Reporter interface
        """End the bar's line."""
        if self.tty and not self.quiet:
            with self._lock:
                self._bar = None
                self.stream.write("\n")
                self.stream.flush()


def summary_table(summary: RunSummary) -> str:
    """Per target: cases, mean score, passed, errors, lossless deliveries, tokens, and time."""
    head = ("target", "cases", "mean", "passed", "errors", "lossless", "tokens in/out", "wall")
    rows: list[tuple[str, ...]] = [head]
    for name, stats in summary.targets.items():
        mean = "-" if stats.mean is None else f"{stats.mean:.3f}"
        rows.append(
            (
                name,
                str(stats.cases),
                mean,
                f"{stats.passed}/{stats.ok}",
                str(stats.errors),
                f"{stats.lossless}/{stats.cases}",
                f"{stats.input_tokens}/{stats.output_tokens}",
                f"{summary.target_wall(name):.1f}s",
            )
        )
    total_cost = summary.total_cost_usd
    if total_cost is not None:  # a run that knows no price shows no cost column
        rows = _with_costs(rows, summary)
    lines = _aligned(rows)
    if summary.repeated:
        lines.extend(["", *_aligned(_reliability_rows(summary)), ""])
    judges = summary.judges
    if judges is not None:
        lines.extend(["", *judge_lines(judges), ""])
    verdict = "interrupted" if summary.interrupted else f"wall time {summary.wall_seconds:.1f}s"
    lines.append(f"{summary.done} of {summary.total} case(s) run, {verdict}")
    if total_cost is not None:
        lines.append(
            f"cost: {usd(total_cost)} in total, {usd(summary.spent_usd)} spent by this run "
            "(cache hits and resumed rows cost nothing)"
        )
    lines.extend(_named(summary))
    lines.extend(_verdicts(summary))
    lines.append(f"results: {display_path(summary.results_path)}")
    return printable("\n".join(lines))


def judge_lines(metrics: JudgeMetrics) -> list[str]:
    """Per judge target its calls, replies that were no verdict and retries; per panel its
    agreement, alpha and the cases it disagrees on most (docs/judges.md#run-metrics)."""
    rows: list[tuple[str, ...]] = [("judge", "calls", "parse failures", "retries")]
    for name, stats in metrics.targets.items():
        rows.append((name, str(stats.calls), str(stats.parse_failures), str(stats.retries)))
    lines = _aligned(rows)
    for panel in metrics.panels:
        lines.append(
            f"panel {', '.join(panel.judges)}: {panel.cases} case(s), pass/fail agreement "
            f"{_number(panel.agreement)}, Krippendorff's alpha {_number(panel.alpha)}"
        )
        for case in panel.disagreements:
            scores = ", ".join(
                f"{judge} {'-' if score is None else f'{score:g}'}"
                for judge, score in case.scores.items()
            )
            lines.append(f"  {case.case} on {case.target}: spread {case.spread:g} ({scores})")
    return lines


def usd(value: float | None) -> str:
    """A cost as the summary shows it: cents above a dollar, six decimals below; ``-`` when
    unknown."""
    if value is None:
        return "-"
    return f"${value:.2f}" if value >= 1 else f"${value:.6f}"


def _with_costs(rows: list[tuple[str, ...]], summary: RunSummary) -> list[tuple[str, ...]]:
    """The table with each target's cost: its own calls, and its rows' judge calls."""
    costed = [(*rows[0], "cost", "judge cost")]
    for row, stats in zip(rows[1:], summary.targets.values(), strict=True):
        costed.append((*row, usd(stats.cost_usd), usd(stats.judge_cost_usd)))
    return costed


def budget_message(summary: RunSummary) -> str:
    """What ``--max-cost`` did (docs/running.md#--max-cost)."""
    return (
        f"evalwright: stopped by --max-cost: {summary.budget_stop}; spent "
        f"{usd(summary.spent_usd)}; {summary.not_run} case(s) not run; rerun with --resume "
        f"{display_path(summary.results_path)} to continue"
    )


def uncertain_note(summary: RunSummary) -> str | None:
    """What ``--max-cost`` counted at the worst case for calls whose cost is unknown, or
    ``None`` (docs/running.md#--max-cost)."""
    if not summary.uncertain_usd:
        return None
    return (
        f"evalwright: note: --max-cost counted {usd(summary.uncertain_usd)} for calls whose "
        "cost is unknown (a timeout, a dropped connection, an answer without usage) at their "
        "worst case: the API may have billed them"
    )


def rate_limit_note(summary: RunSummary) -> str | None:
    """The attempts rate limits answered 429, or ``None`` (docs/targets.md#rate-limits)."""
    if not summary.rate_limited:
        return None
    counts = ", ".join(f"{n} by {names}" for names, n in summary.rate_limited.items())
    return (
        f"evalwright: note: attempts answered 429 (rate limited) and retried: {counts} "
        "(docs/targets.md#rate-limits)"
    )


def batch_price_note(summary: RunSummary) -> str | None:
    """The batch answers priced at the live price less the documented discount, or ``None``
    (docs/batch.md#cost)."""
    if not summary.batch_discounted:
        return None
    answers = ", ".join(f"{n} of '{name}'" for name, n in summary.batch_discounted.items())
    return (
        f"evalwright: note: the price data has no batch price for {answers}: their cost_usd "
        "is the live price less the provider's documented 50% batch discount"
    )


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]


def _reliability_rows(summary: RunSummary) -> list[tuple[str, ...]]:
    """Per target, over its cases' k repeats: pass@1, pass@k, pass^k, the mean with its 95%
    confidence interval, the spread across repeats, and the flaky cases
    (docs/running.md#repeats-and-reliability)."""
    head = ("target", "k", "pass@1", "pass@k", "pass^k", "mean ±95% CI", "std dev", "flaky")
    rows: list[tuple[str, ...]] = [head]
    for name, stats in summary.targets.items():
        r = stats.reliability
        k = r.repeats
        mean = _number(r.mean)
        if r.mean is not None and r.ci95 is not None:
            mean += f" ±{r.ci95[1] - r.mean:.3f}"
        cells = (_number(r.pass_at(1)), _number(r.pass_at(k)), _number(r.pass_hat(k)))
        rows.append((name, str(k), *cells, mean, _number(r.std_dev), str(r.flaky)))
    return rows


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _named(summary: RunSummary) -> list[str]:
    """The first failed and errored cases by name, then how many more."""
    lines: list[str] = []
    failed = summary.failed_gates()
    flaky = summary.flaky_passing()
    for what, named, count in (
        ("failed", failed[:NAMED_CASES], len(failed)),
        ("errored", summary.errored_cases, summary.errors),
        ("flaky, passed within their pass_rate", flaky[:NAMED_CASES], len(flaky)),
    ):
        if named:
            more = f" (and {count - len(named)} more)" if count > len(named) else ""
            lines.append(f"{what}: {', '.join(named)}{more}")
    return lines


def _verdicts(summary: RunSummary) -> list[str]:
    """What decides the exit status (docs/running.md#exit-status): each target's mean against
    ``--threshold``, or else the cases that failed under the pass rule, which is always named
    (docs/eval-files.md#pass-rules)."""
    threshold = summary.threshold
    if threshold is None:
        failed = len(summary.failed_gates())
        return [f"{summary.rule_text}: {failed} case(s) failed" if failed else summary.rule_text]
    below = summary.below_threshold()
    lines: list[str] = [summary.rule_text]
    for name, stats in summary.targets.items():
        mean = "-" if stats.mean is None else f"{stats.mean:.3f}"
        state = "BELOW" if name in below else "meets"
        lines.append(f"{name}: mean score {mean} {state} the threshold {threshold:g}")
    return lines
