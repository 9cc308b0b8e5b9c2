"""Measure the HTML report at scale: build a report of a 10,000-row run, time how long
headless Chromium takes to show its overview (with its aggregate views), its case list, its
matrix sorted and filtered and its case list filtered by a tag, and measure the peak memory
of ``evalwright report`` (alone and with a baseline run) and ``evalwright compare`` as
processes of their own. See bench/README.md.

    python bench/report.py                 # 10,000 rows on two mock targets
    python bench/report.py --repeat 4      # 10,000 rows: 1,250 cases, 4 repeats each
    python bench/report.py --cases 2000
    python bench/report.py --cases 100000 --no-browser   # the commands' memory only
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from launch import run_measured
from measure import bench_env, evalwright
from playwright.sync_api import Browser, sync_playwright

import evalwright as ew

WORDS = (
    "the",
    "loop",
    "condition",
    "is",
    "never",
    "true",
    "so",
    "calculateTotal",
    "returns",
    "0",
    "for",
    "any",
    "input",
    "use",
    "items",
    "length",
    "keep",
    "functions",
    "small",
    "name",
    "bug",
    "plainly",
    "index",
    "array",
    "off",
    "by",
    "one",
    "error",
    "total",
    "sum",
    "value",
    "result",
)


def _answer(n: int) -> str:
    """A different answer per case (a report of identical rows would compress unrealistically)."""
    pick = random.Random(n)
    words = [pick.choice(WORDS) for _ in range(pick.randint(30, 90))]
    return f"{' '.join(words)} returns 0 ({pick.getrandbits(64):x})."


def _suite(cases: int) -> ew.Suite:
    check = ew.Execution(
        evaluators=[
            ew.ContainsSpec(name="zero", value="returns 0"),
            ew.ContainsSpec(name="loop", value="loop"),
        ]
    )
    return ew.Suite(
        [
            ew.EvalCase(
                id=f"case-{n:05d}",
                expected_outcome="Says the function returns 0 for any input.",
                input_messages=[
                    ew.system("You are a careful code reviewer."),
                    ew.user(f"What does calculateTotal return? (variant {n}) {_answer(n + 7)}"),
                ],
                metadata={"topic": "review", "n": n},
                tags=[f"topic-{n % 10}"],
                execution=check,
            )
            for n in range(cases)
        ],
        name="bench",
    )


def _run(root: Path, cases: int, name: str = "results", repeat: int = 1) -> Path:
    count = cases // (2 * repeat)
    targets = [
        ew.MockTarget(name="gpt", responses={f"case-{n:05d}": _answer(n) for n in range(count)}),
        ew.MockTarget(
            name="claude", responses={f"case-{n:05d}": _answer(-n - 1) for n in range(count)}
        ),
    ]
    suite = _suite(count)
    out = root / f"{name}.jsonl"
    ew.run(suite, targets=targets, out=out, workers=32, repeat=repeat)
    _price(out)
    return out


def _price(path: Path) -> None:
    """Give each row a cost (mock targets report no usage, so no price applies): the cost
    views then have a number on every row, as a priced run's do."""
    lines = path.read_text(encoding="utf-8").splitlines()
    priced: list[str] = []
    for n, line in enumerate(lines):
        row = json.loads(line)
        row["cost_usd"] = round(0.0001 + (n % 97) * 0.000001, 9)
        priced.append(json.dumps(row, ensure_ascii=False))
    path.write_text("\n".join(priced) + "\n", encoding="utf-8")


def _time_view(browser: Browser, page_path: Path, fragment: str, selector: str) -> float:
    page = browser.new_page()
    page.route(
        "**/*",
        lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort(),
    )
    started = time.perf_counter()
    page.goto(page_path.resolve().as_uri() + fragment)
    page.wait_for_selector(selector)
    elapsed = time.perf_counter() - started
    page.close()
    return elapsed


def _commands(root: Path, results: Path, baseline: Path) -> dict[str, float]:
    """Peak RSS (MiB) and wall seconds of the commands, each a process of its own."""
    commands = {
        "report": ("report", results, "-o", root / "measured.html"),
        "report_baseline": ("report", results, "--baseline", baseline, "-o", root / "b.html"),
        "compare": ("compare", baseline, results),
    }
    figures: dict[str, float] = {}
    for name, args in commands.items():
        measured = run_measured(evalwright(*map(str, args)), root, bench_env())
        if measured.code not in (0, 1):
            sys.exit(f"{name} exited {measured.code}: {measured.stderr_tail}")
        figures[f"{name}_rss_mib"] = round(measured.rss_kib / 1024, 1)
        figures[f"{name}_seconds"] = round(measured.wall, 1)
    return figures


VIEWS = {
    # The overview's last part: the aggregate views are drawn with it, in one go.
    "overview_seconds": ("", "#evaluator-rates"),
    "search_seconds": ("#v=cases&q=variant%2099", "#cases tbody tr"),
    "matrix_sorted_filtered_seconds": ("#v=matrix&sort=col1&desc=1&st=failed", "#matrix"),
    "tag_filtered_seconds": ("#v=cases&tag=topic-3&sort=cost&desc=1", "#cases tbody tr"),
}
"""Each view timed: its fragment, and what shows it is drawn."""


def _time_views(chromium: str, page_path: Path, repeats: int) -> dict[str, float]:
    """The median time of each of :data:`VIEWS` over ``repeats`` page loads."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        figures = {
            name: round(
                statistics.median(
                    _time_view(browser, page_path, fragment, selector) for _ in range(repeats)
                ),
                3,
            )
            for name, (fragment, selector) in VIEWS.items()
        }
        browser.close()
    return figures


def measure(
    cases: int, repeats: int, in_browser: bool = True, repeat: int = 1
) -> dict[str, float | int]:
    """Build the report of a ``cases``-row run (each case run ``repeat`` times), time its
    views in headless Chromium, and measure the commands that read the run's results file."""
    chromium = shutil.which("chromium")
    if chromium is None and in_browser:
        sys.exit("bench/report.py needs Chromium on PATH (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        results = _run(root, cases, repeat=repeat)
        baseline = _run(root, cases, "baseline", repeat)
        figures: dict[str, float | int] = {
            "rows": cases,
            "repeat": repeat,
            "results_bytes": results.stat().st_size,
            **_commands(root, results, baseline),
        }
        if chromium is None or not in_browser:
            return figures
        started = time.perf_counter()
        page_path = ew.write_report(results, root / "report.html")
        build = time.perf_counter() - started
        return {
            **figures,
            "report_bytes": page_path.stat().st_size,
            "size_ratio": round(page_path.stat().st_size / results.stat().st_size, 3),
            "build_seconds": round(build, 2),
            **_time_views(chromium, page_path, repeats),
        }


def main() -> None:
    """Print one JSON object of figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=10_000, help="rows in the run")
    parser.add_argument("--repeats", type=int, default=3, help="page loads to take the median of")
    parser.add_argument("--repeat", type=int, default=1, help="run each case this many times")
    parser.add_argument("--no-browser", action="store_true", help="only the commands' figures")
    args = parser.parse_args()
    figures = measure(args.cases, args.repeats, not args.no_browser, args.repeat)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
