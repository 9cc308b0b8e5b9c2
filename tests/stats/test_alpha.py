"""Krippendorff's alpha (docs/judges.md#run-metrics) equals NLTK's ``AnnotationTask.alpha``,
the oracle, on random panels with missing values, for the interval and nominal metrics, and
the published worked example's nominal value."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Hashable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask  # pyright: ignore[reportMissingTypeStubs]
from nltk.metrics.distance import (  # pyright: ignore[reportMissingTypeStubs]
    binary_distance,  # pyright: ignore[reportUnknownVariableType]
    interval_distance,  # pyright: ignore[reportUnknownVariableType]
)

from evalwright.stats.alpha import krippendorff_alpha
from tests.stats.test_judging import PUBLISHED

CODERS = ("a", "b", "c", "d", "e")
# Scores as judges give them: from 0 to 1, to six places, often equal.
SCORES = st.one_of(
    st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
    st.integers(0, 10**6).map(lambda n: n / 10**6),
)
LABELS = st.sampled_from(["pass", "fail", "unsure", 3, 7.5])


def _panels(values: st.SearchStrategy[Hashable]) -> st.SearchStrategy[list[list[Hashable]]]:
    """Two to five coders, up to forty units, each value missing one time in three."""
    value_or_missing = st.one_of(st.none(), values, values)
    return st.integers(2, len(CODERS)).flatmap(
        lambda coders: st.lists(
            st.lists(value_or_missing, min_size=coders, max_size=coders), max_size=40
        )
    )


def _paired(units: Sequence[Sequence[Hashable]]) -> bool:
    return any(sum(v is not None for v in unit) > 1 for unit in units)


def _nltk(units: Sequence[Sequence[Hashable]], metric: str) -> float:
    """NLTK's alpha of ``units``, with the metric's distance."""
    distance = interval_distance if metric == "interval" else binary_distance  # pyright: ignore[reportUnknownVariableType]
    data = [
        (CODERS[coder], str(index), value)
        for index, unit in enumerate(units)
        for coder, value in enumerate(unit)
        if value is not None
    ]
    task = AnnotationTask(data=data, distance=distance)  # pyright: ignore[reportUnknownVariableType]
    return float(task.alpha())  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]


@settings(max_examples=400, deadline=None)
@given(_panels(SCORES))
def test_interval_alpha_is_nltks(units: list[list[float | None]]) -> None:
    alpha = krippendorff_alpha(CODERS[: len(units[0])] if units else ("a", "b"), units)
    if not _paired(units):
        assert alpha is None
        return
    assert alpha == pytest.approx(_nltk(units, "interval"), rel=1e-9, abs=1e-9)


@settings(max_examples=400, deadline=None)
@given(_panels(LABELS))
def test_nominal_alpha_is_nltks(units: list[list[Hashable]]) -> None:
    coders = CODERS[: len(units[0])] if units else ("a", "b")
    alpha = krippendorff_alpha(coders, units, "nominal")
    if not _paired(units):
        assert alpha is None
        return
    assert alpha == pytest.approx(_nltk(units, "nominal"), rel=1e-9, abs=1e-9)


def test_nominal_alpha_is_the_published_worked_example() -> None:
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C.
    assert krippendorff_alpha("ABCD", PUBLISHED, "nominal") == pytest.approx(0.743, abs=5e-4)


def test_every_paired_value_the_same_is_perfect_agreement() -> None:
    units = [[0.5, 0.5, None], [None, 0.5, 0.5], [0.9, None, None]]
    assert krippendorff_alpha("abc", units) == 1.0


def test_a_unit_of_the_wrong_length_and_a_word_on_the_interval_scale_are_refused() -> None:
    with pytest.raises(ValueError, match="a unit has 3 values for 2 coders"):
        krippendorff_alpha("ab", [[0.1, 0.2, 0.3]])
    with pytest.raises(TypeError, match="takes numbers, not 'pass'"):
        krippendorff_alpha("ab", [["pass", "fail"]])  # pyright: ignore[reportArgumentType, reportCallIssue]


def test_a_panels_metrics_need_no_nltk() -> None:
    code = (
        "import sys; sys.modules['nltk'] = None\n"
        "from evalwright.results.judge_facts import PanelUnit\n"
        "from evalwright.stats.judging import panel_agreement\n"
        "units = [PanelUnit('c%d' % i, 't', 'p', ('a', 'b'), s) for i, s in "
        "enumerate([(0.9, 0.8), (0.1, 0.3), (0.5, None)])]\n"
        "print(panel_agreement(units, 0.5).alpha)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    expected = krippendorff_alpha("ab", [[0.9, 0.8], [0.1, 0.3], [0.5, None]])
    assert float(done.stdout) == pytest.approx(expected)
