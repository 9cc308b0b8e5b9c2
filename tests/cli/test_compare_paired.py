"""``evalwright compare`` with the paired statistics (docs/statistics.md#paired-comparison):
two runs, two targets or two prompt variants of one run; the numbers are the paired module's
(itself checked against scipy and statsmodels), the gate follows ``--fail-on``."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import pytest

import evalwright as ew
from evalwright.outputs.markdown import MAX_LISTED
from evalwright.results.row import ResultRow
from evalwright.stats.paired import Pair, paired_difference
from tests.conftest import run_cli
from tests.results.samples import sample_row


def _file(path: Path, rows: Sequence[ResultRow]) -> Path:
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
    return path


def _scores(seed: int, shift: float) -> list[tuple[str, int, float, float]]:
    """(case, repeat, A's score, B's score) for 30 cases of 2 repeats: B is A plus ``shift``,
    both kept in [0, 1]."""
    rng = random.Random(seed)
    out: list[tuple[str, int, float, float]] = []
    for case in range(30):
        base = rng.uniform(0.3, 0.7)
        for repeat in range(2):
            a = min(1.0, max(0.0, base + rng.gauss(0, 0.05)))
            b = min(1.0, max(0.0, a + shift + rng.gauss(0, 0.05)))
            out.append((f"c{case}", repeat, round(a, 3), round(b, 3)))
    return out


def _rows(scores: list[tuple[str, int, float, float]], side: int, **fields: str) -> list[ResultRow]:
    return [
        sample_row(eval_id=case, repeat=repeat, score=s[2 + side], **fields)
        for s in scores
        for case, repeat in [(s[0], s[1])]
    ]


def test_two_runs_get_the_paired_difference_in_numbers_and_words(tmp_path: Path) -> None:
    scores = _scores(1, 0.1)
    old = _file(tmp_path / "old.jsonl", _rows(scores, 0))
    new = _file(tmp_path / "new.jsonl", _rows(scores, 1))
    expected = paired_difference([Pair(c, a, b, a >= 0.5, b >= 0.5) for c, _, a, b in scores])
    assert expected.interval is not None

    result = run_cli("compare", old, new)

    i = expected.interval
    target = sample_row().target
    assert (
        f"{target}: NEW is better than OLD by {i.mean:.3f} (95% CI {i.low:+.3f} to {i.high:+.3f})"
    ) in result.out
    lines = result.out.splitlines()
    row = lines[next(k for k, line in enumerate(lines) if line.startswith("paired ")) + 1].split()
    assert row[1:3] == ["60", "30"]  # pairs, cases (clustered over the 2 repeats)
    assert row[3] == f"{i.mean:+.3f}"
    assert ew.compare(old, new).paired()[target].interval == i


def test_two_targets_of_one_run(tmp_path: Path) -> None:
    scores = _scores(2, -0.15)
    run = _file(
        tmp_path / "run.jsonl",
        _rows(scores, 0, target="gpt") + _rows(scores, 1, target="claude"),
    )

    result = run_cli("compare", run, "--targets", "gpt", "claude")

    assert "gpt \u2192 claude: claude is worse than gpt by 0.1" in result.out
    comparison = ew.compare(run, targets=("gpt", "claude"))
    (found,) = comparison.paired().values()
    assert found.pairs == 60


def test_two_prompt_variants_of_one_run(tmp_path: Path) -> None:
    scores = _scores(3, 0.0)
    run = _file(
        tmp_path / "run.jsonl",
        _rows(scores, 0, variant="terse") + _rows(scores, 1, variant="warm"),
    )

    result = run_cli("compare", run, "--variants", "terse", "warm")

    assert "no detectable difference between terse and warm (" in result.out
    assert "this run can detect" in result.out


def test_fail_on_follows_the_evidence(tmp_path: Path) -> None:
    # Every case keeps passing (scores stay above 0.5) but drops by about 0.15: no flip.
    scores = [(c, r, round(a + 0.35, 3), round(b + 0.35, 3)) for c, r, a, b in _scores(4, -0.15)]
    scores = [(c, r, min(a, 1.0), max(b, 0.51)) for c, r, a, b in scores]
    old = _file(tmp_path / "old.jsonl", _rows(scores, 0))
    new = _file(tmp_path / "new.jsonl", _rows(scores, 1))

    assert run_cli("compare", old, new).code == 0, "no case regressed"
    significant = run_cli("compare", old, new, "--fail-on", "significant-regression")
    assert significant.code == 1
    assert "NEW is worse than OLD by" in significant.out
    dropped = run_cli("compare", old, new, "--fail-on", "score-drop", "--score-drop", "0.1")
    assert dropped.code == 1
    assert "score dropped by 0.1 or more, same verdict:" in dropped.out
    assert run_cli("compare", old, new, "--fail-on", "score-drop", "--score-drop", "0.9").code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--targets", "gpt", "nope"], "the results hold no row of target 'nope'"),
        (["NEW", "--targets", "gpt", "claude"], "compare one run's two targets or two variants"),
    ],
)
def test_a_bad_comparison_is_a_clear_error(tmp_path: Path, args: list[str], message: str) -> None:
    run = _file(tmp_path / "run.jsonl", _rows(_scores(5, 0.0), 0, target="gpt"))
    args = [str(run) if a == "NEW" else a for a in args]

    result = run_cli("compare", run, *args)

    assert result.code == 2
    assert message in result.err
    assert "Traceback" not in result.err


def test_the_cases_a_given_effect_needs(tmp_path: Path) -> None:
    scores = _scores(6, 0.0)
    old = _file(tmp_path / "old.jsonl", _rows(scores, 0))
    new = _file(tmp_path / "new.jsonl", _rows(scores, 1))
    found = ew.compare(old, new).paired()[sample_row().target]
    assert found.mde is not None

    result = run_cli("compare", old, new, "--effect", f"{found.mde / 2:.6f}")

    needed = found.cases_needed(round(found.mde / 2, 6))
    assert needed is not None
    assert 110 <= needed <= 130
    assert f"needs about {needed} cases like these (30 now)" in result.out
    repeats = found.repeats_needed(round(found.mde / 2, 6))
    if repeats is None:
        said = "; more repeats of these cases alone cannot (2 now): the cases differ too much"
    else:
        said = f", or {repeats} repeats of each of these 30 cases (2 now)"
    assert f"(30 now){said}" in result.out


def _junit(path: Path) -> tuple[ET.Element, dict[str, str]]:
    """The JUnit root and each failing testcase's name with its failure message."""
    root = ET.parse(path).getroot()
    failing = {
        case.attrib["name"]: failure.attrib["message"]
        for case in root.iter("testcase")
        for failure in case.iter("failure")
    }
    return root, failing


def test_the_junit_file_and_markdown_follow_fail_on(tmp_path: Path) -> None:
    """Scores drop by about 0.15 and no case flips: each gate's JUnit file fails exactly
    what it counts and its Markdown names the same, as the exit status does."""
    scores = [(c, r, round(a + 0.35, 3), round(b + 0.35, 3)) for c, r, a, b in _scores(4, -0.15)]
    scores = [(c, r, min(a, 1.0), max(b, 0.51)) for c, r, a, b in scores]
    old = _file(tmp_path / "old.jsonl", _rows(scores, 0))
    new = _file(tmp_path / "new.jsonl", _rows(scores, 1))
    junit, markdown = tmp_path / "j.xml", tmp_path / "s.md"
    outputs = ("--junit", junit, "--summary-md", markdown)
    target = sample_row().target

    assert run_cli("compare", old, new, *outputs).code == 0
    root, failing = _junit(junit)
    assert (root.attrib["tests"], root.attrib["failures"], failing) == ("60", "0", {})
    assert markdown.read_text(encoding="utf-8").startswith(
        "## evalwright compare: passed (--fail-on regression)"
    )

    assert run_cli("compare", old, new, "--fail-on", "significant-regression", *outputs).code == 1
    root, failing = _junit(junit)
    assert (root.attrib["tests"], list(failing)) == ("1", [target])
    assert failing[target].startswith("NEW is worse than OLD by")
    text = markdown.read_text(encoding="utf-8")
    assert text.startswith("## evalwright compare: FAILED (--fail-on significant-regression)")
    assert "### Failing --fail-on significant-regression (1)" in text

    dropped = [(c, r) for c, r, a, b in scores if a - b >= 0.1]
    assert 0 < len(dropped) < len(scores)
    gate = ("--fail-on", "score-drop", "--score-drop", "0.1")
    result = run_cli("compare", old, new, *gate, *outputs)
    assert result.code == 1
    assert result.out.splitlines()[-1] == (
        f"--fail-on score-drop 0.1: FAILED by {len(dropped)} of {len(scores)}"
    )
    root, failing = _junit(junit)
    assert root.attrib["failures"] == str(len(dropped))
    named = {f"{c} (repeat {r}) [{target}]" if r else f"{c} [{target}]" for c, r in dropped}
    assert set(failing) == named
    assert all(" or more" in message for message in failing.values())
    text = markdown.read_text(encoding="utf-8")
    assert f"### Failing --fail-on score-drop 0.1 ({len(dropped)})" in text
    listed = min(len(dropped), MAX_LISTED)  # the rest are counted
    assert text.count("| score fell by ") == listed
    assert (f"and {len(dropped) - listed} more" in text) == (len(dropped) > listed)


def test_an_unwritable_output_is_a_clear_error(tmp_path: Path) -> None:
    run = _file(tmp_path / "run.jsonl", _rows(_scores(7, 0.0), 0))
    result = run_cli("compare", run, run, "--junit", tmp_path / "no" / "j.xml")
    assert result.code == 2
    assert "--junit" in result.err
    assert "no such directory" in result.err
