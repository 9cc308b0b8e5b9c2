"""The goals of bench/README.md and the table that holds measured figures against them.

A figure is one number of ``python bench/run.py --all`` (its key in the report's ``figures``);
a goal is an upper (or, for efficiency, lower) limit on it, or none for figures kept for
reference. See bench/README.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast


@dataclass(frozen=True)
class Goal:
    """A figure's label, unit and limit: at most ``limit``, or at least with ``at_least``."""

    key: str
    figure: str
    unit: str = ""
    limit: float | None = None
    at_least: bool = False

    def goal_text(self) -> str:
        """``≤ 0.3 s``, ``≥ 0.9``, or ``—`` for a figure without a goal."""
        if self.limit is None:
            return "—"
        return f"{'≥' if self.at_least else '≤'} {_number(self.limit, self.unit)}"

    def status(self, measured: float | None) -> str:
        """``met``, ``not met``, ``not measured``, or ``—`` for a figure without a goal."""
        if measured is None:
            return "not measured"
        if self.limit is None:
            return "—"
        met = measured >= self.limit if self.at_least else measured <= self.limit
        return "met" if met else "not met"


GOALS: tuple[Goal, ...] = (
    Goal("validate_2000_yaml_s", "validate, 2,000-case YAML (wall)", "s", 0.3),
    Goal("validate_20000_yaml_s", "validate, 20,000-case YAML (wall)", "s", 3),
    Goal("validate_20000_yaml_rss_mib", "validate, 20,000-case YAML: peak RSS", "MiB", 150),
    Goal("validate_2000_jsonl_s", "validate, 2,000-case JSONL (wall)", "s"),
    Goal("startup_2000_jsonl_s", "start-up to the first request, JSONL", "s", 0.25),
    Goal("startup_2000_yaml_s", "start-up to the first request, 2,000-case YAML", "s", 0.4),
    Goal("startup_baseline_s", "start-up to the first request, minimal aiohttp client", "s"),
    Goal("import_floor_s", "`python -c 'import pydantic, aiohttp'` (wall)", "s"),
    Goal("cpu_per_case_jsonl_ms", "CPU per case, JSONL, N = 2,000", "ms", 0.5),
    Goal("cpu_per_case_yaml_ms", "CPU per case, YAML, N = 2,000", "ms", 0.5),
    Goal("cpu_per_request_baseline_ms", "CPU per request, minimal aiohttp client", "ms"),
    Goal("rss_2000_jsonl_mib", "peak RSS, JSONL, N = 2,000", "MiB", 80),
    Goal("rss_2000_yaml_mib", "peak RSS, YAML, N = 2,000", "MiB", 80),
    Goal("efficiency_jsonl", "steady efficiency, JSONL (N·L/W)", "", 0.95, at_least=True),
    Goal("efficiency_yaml", "steady efficiency, YAML (N·L/W)", "", 0.95, at_least=True),
    Goal("efficiency_judge", "judge-heavy efficiency (2·N·L/W)", "", 0.9, at_least=True),
    Goal("efficiency_baseline", "minimal aiohttp client, same load (N·L/W)", ""),
    Goal("cached_rerun_2000_jsonl_s", "cached rerun, 2,000 cases, JSONL (wall)", "s", 1),
    Goal("cached_rerun_2000_yaml_s", "cached rerun, 2,000 cases, YAML (wall)", "s"),
    Goal("startup_20000_jsonl_s", "start-up, 20,000 cases, JSONL", "s"),
    Goal("startup_20000_yaml_s", "start-up, 20,000 cases, YAML", "s"),
    Goal("rss_20000_jsonl_mib", "peak RSS, 20,000 cases, JSONL", "MiB"),
    Goal("rss_20000_yaml_mib", "peak RSS, 20,000 cases, YAML", "MiB"),
    Goal("help_s", "`evalwright --help` (wall)", "s", 0.1),
    Goal("import_ms", "`import evalwright` (-X importtime, cumulative)", "ms", 20),
)
"""Every figure ``--all`` reports, in the order of the table."""


def goal_rows(
    figures: Mapping[str, float | None], goals: Sequence[Goal] = GOALS
) -> list[tuple[str, str, str, str]]:
    """One ``(figure, goal, measured, status)`` row per goal."""
    rows: list[tuple[str, str, str, str]] = []
    for goal in goals:
        measured = figures.get(goal.key)
        shown = "—" if measured is None else _number(measured, goal.unit)
        rows.append((goal.figure, goal.goal_text(), shown, goal.status(measured)))
    return rows


def goal_table(figures: Mapping[str, float | None], goals: Sequence[Goal] = GOALS) -> str:
    """The goals as a Markdown table of figure, goal, measured and met / not met."""
    lines = ["| figure | goal | measured | |", "|---|---|---|---|"]
    lines += [f"| {' | '.join(row)} |" for row in goal_rows(figures, goals)]
    return "\n".join(lines) + "\n"


def _number(value: float, unit: str) -> str:
    text = f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
    return f"{text} {unit}" if unit else text


def failed_runs(report: object, where: str = "") -> list[str]:
    """Where in ``report`` a run exited non-zero or wrote error rows: its figures would not
    measure a normal run."""
    found: list[str] = []
    if isinstance(report, dict):
        figures = cast(dict[str, object], report)
        codes = figures.get("exit_codes", [figures.get("exit_code", 0)])
        errors = figures.get("error_rows", 0)
        if codes != [0] or errors:
            found.append(f"{where or 'report'}: exit codes {codes}, error rows {errors}")
        for key, value in figures.items():
            found += failed_runs(value, f"{where}.{key}" if where else key)
    elif isinstance(report, list):
        for index, value in enumerate(cast(list[object], report)):
            found += failed_runs(value, f"{where}[{index}]")
    return found
