"""Repeats through the command line (docs/running.md#repeats-and-reliability): ``--repeat``,
``repeat:`` on a case and in the config, the (eval file, case, target, repeat) row key, the
cache per repeat, and the reliability statistics, against the fake server."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from typing import Any

import pytest

from evalwright import run
from evalwright.testing import FakeServer, Fault
from evalwright.testing.recorded import ReceivedRequest
from tests.cli.conftest import (
    EVAL,
    FLAKY,
    FLAKY_ONLY,
    FlakyAnswers,
    K,
    eval_rel,
    question_of,
    result_rows,
)
from tests.conftest import ProjectDir, run_cli

COUNTS = {"steady": (K, K), "flaky": (K, 2), "never": (K, 0)}
"""Each case's (n, c): ok repeats, and those passing."""


def _keys(rows: list[dict[str, Any]]) -> list[tuple[str, str, str, int]]:
    return [(r["eval_file"], r["eval_id"], r["target"], r["repeat"]) for r in rows]


def _pass_at(k: int) -> float:
    """pass@k over COUNTS, from the formula: mean of 1 - C(n-c, k) / C(n, k)."""
    return sum(1 - math.comb(n - c, k) / math.comb(n, k) for n, c in COUNTS.values()) / 3


def _pass_hat(k: int) -> float:
    """pass^k over COUNTS: mean of C(c, k) / C(n, k)."""
    return sum(math.comb(c, k) / math.comb(n, k) for n, c in COUNTS.values()) / 3


def _reliability_line(out: str) -> list[str]:
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("target  k "))
    return lines[head + 1].split()


def test_repeat_runs_each_case_k_times_and_reports_pass_at_k_and_the_flaky_case(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    result = eval_rel(project, "r.jsonl", "--repeat", str(K))

    assert result.code == 1, result.err  # never and flaky fail
    rows = result_rows(project.root / "r.jsonl")
    keys = _keys(rows)
    assert len(keys) == len(set(keys)) == 3 * K, "one row per (file, case, target, repeat)"
    assert sorted(r for *_, r in keys) == sorted(list(range(K)) * 3)
    assert len(repeat_server.requests_for("openai")) == 3 * K, "each repeat is a request of its own"
    flaky = sorted((r["repeat"], r["candidate_answer"]) for r in rows if r["eval_id"] == "flaky")
    assert flaky == list(enumerate(FLAKY))
    # target k pass@1 pass@k pass^k mean ±ci std flaky
    cells = _reliability_line(result.out)
    assert cells[:2] == ["a", str(K)]
    assert cells[2:5] == [f"{_pass_at(1):.3f}", f"{_pass_at(K):.3f}", f"{_pass_hat(K):.3f}"]
    assert cells[-1] == "1", "the flaky case, and only it, is flaky"


def test_run_result_reliability_matches_the_formula(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    result = run(project.root / "evals/rel.yaml", targets="a", repeat=K, workers=1)

    stats = result.reliability["a"]
    assert stats.repeats == K
    assert stats.flaky == 1
    for k in (1, 2, 3, K):
        assert stats.pass_at(k) == pytest.approx(_pass_at(k))
        assert stats.pass_hat(k) == pytest.approx(_pass_hat(k))
    assert stats.pass_at(K + 1) is None, "no case has more repeats than K"
    means = [c / n for n, c in COUNTS.values()]  # contains scores 1 or 0
    assert stats.mean == pytest.approx(sum(means) / 3)
    sd = math.sqrt(sum((m - sum(means) / 3) ** 2 for m in means) / 2)
    assert stats.ci95 == pytest.approx(
        (sum(means) / 3 - 4.303 * sd / math.sqrt(3), sum(means) / 3 + 4.303 * sd / math.sqrt(3))
    )
    flaky_sd = math.sqrt((2 * (1 - 0.4) ** 2 + 3 * 0.4**2) / 4)
    assert stats.std_dev == pytest.approx((0 + flaky_sd + 0) / 3)


def test_a_case_repeat_wins_over_the_flag_and_the_config(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    project.write(".evalwright/config.yaml", "repeat: 3\n")
    steady = "    input: Q steady\n"
    project.write("evals/rel.yaml", EVAL.replace(steady, steady + "    repeat: 2\n"))

    with_flag = eval_rel(project, "flag.jsonl", "--repeat", "4")
    from_config = eval_rel(project, "config.jsonl")

    assert with_flag.code == from_config.code == 1
    counts = Counter(r["eval_id"] for r in result_rows(project.root / "flag.jsonl"))
    assert counts == {"steady": 2, "flaky": 4, "never": 4}
    counts = Counter(r["eval_id"] for r in result_rows(project.root / "config.jsonl"))
    assert counts == {"steady": 2, "flaky": 3, "never": 3}


def test_without_repeats_the_summary_has_no_reliability_table(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    result = eval_rel(project, "r.jsonl")

    assert [r["repeat"] for r in result_rows(project.root / "r.jsonl")] == [0, 0, 0]
    assert "pass@" not in result.out


def test_cache_keeps_each_repeat_apart_and_replays_each_answer(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    project.write("evals/rel.yaml", EVAL.split("  - id: steady", maxsplit=1)[0] + FLAKY_ONLY)
    first = eval_rel(project, "first.jsonl", "--repeat", str(K), "--cache")
    sent = len(repeat_server.requests)
    second = eval_rel(project, "second.jsonl", "--repeat", str(K), "--cache")

    assert first.code == second.code == 1
    assert sent == K, "no repeat was answered from another repeat's entry"
    assert len(repeat_server.requests) == sent, "the cached rerun sends nothing"
    before, after = (
        result_rows(project.root / "first.jsonl"),
        result_rows(project.root / "second.jsonl"),
    )
    assert {r["cache"] for r in before} == {"miss"}
    assert {r["cache"] for r in after} == {"hit"}
    answers = {r["repeat"]: r["candidate_answer"] for r in after}
    assert answers == {r["repeat"]: r["candidate_answer"] for r in before}
    assert answers == dict(enumerate(FLAKY)), "different answers stay different"


def test_judge_calls_of_each_repeat_are_cached_apart(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    repeat_server.judge_verdict = {"score": 1.0, "hits": ["ok"], "misses": [], "reasoning": "fine"}
    project.write(
        "evals/rel.yaml",
        """execution:
  evaluators:
    - {name: judge, type: llm_judge, target: a}
evalcases:
  - id: steady
    expected_outcome: Fine.
    input: Q steady
""",
    )

    first = eval_rel(project, "first.jsonl", "--repeat", "3", "--cache")
    sent = len(repeat_server.requests)
    second = eval_rel(project, "second.jsonl", "--repeat", "3", "--cache")

    assert first.code == second.code == 0, first.err
    # The answer is the same on every repeat, so only the repeat tells the requests apart.
    assert sent == 6, "three answers and three verdicts, none from another repeat's entry"
    assert len(repeat_server.requests) == sent
    assert [r["cache"] for r in result_rows(project.root / "second.jsonl")] == ["hit"] * 3


def test_a_repeat_zero_run_reuses_the_cache_of_a_run_without_repeats(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    assert eval_rel(project, "plain.jsonl", "--cache").code == 1
    sent = len(repeat_server.requests)

    assert eval_rel(project, "repeat.jsonl", "--cache", "--repeat", "2").code == 1

    rows = result_rows(project.root / "repeat.jsonl")
    assert {(r["repeat"], r["cache"]) for r in rows} == {(0, "hit"), (1, "miss")}
    assert len(repeat_server.requests) == sent + 3


def test_resume_reruns_only_the_errored_repeat(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    answers = FlakyAnswers()
    calls = itertools.count()

    def once_failing(request: ReceivedRequest) -> Any:
        if next(calls) == 4:  # flaky's second repeat
            return Fault(400, body={"error": {"message": "nope"}})
        return answers(request)

    repeat_server.responder = once_failing
    first = eval_rel(project, "r.jsonl", "--repeat", "3")
    assert first.code == 1
    rows = result_rows(project.root / "r.jsonl")
    errored = [(r["eval_id"], r["repeat"]) for r in rows if r["status"] == "error"]
    assert errored == [("flaky", 1)]
    repeat_server.requests.clear()

    resumed = run_cli("eval", project.root / "evals/rel.yaml", "--target", "a", "--repeat", "3",
                      "--resume", project.root / "r.jsonl")  # fmt: skip

    assert resumed.code == 1, resumed.err
    assert [question_of(r) for r in repeat_server.requests_for("openai")] == ["Q flaky"]
    rows = result_rows(project.root / "r.jsonl")
    keys = _keys(rows)
    assert len(keys) == len(set(keys)) == 9
    assert all(r["status"] == "ok" for r in rows)


def test_only_failed_reruns_the_failed_repeats(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    assert eval_rel(project, "first.jsonl", "--repeat", str(K)).code == 1
    repeat_server.requests.clear()

    again = eval_rel(project, "again.jsonl", "--only-failed", str(project.root / "first.jsonl"))

    assert again.code == 1
    rows = result_rows(project.root / "again.jsonl")
    assert [(r["eval_id"], r["repeat"]) for r in rows] == [
        ("flaky", 1), ("flaky", 3), ("flaky", 4), *[("never", i) for i in range(K)],
    ]  # fmt: skip


def test_compare_and_junit_name_each_repeat(project: ProjectDir, repeat_server: FakeServer) -> None:
    # flaky's answers come in turn: the old run gets FLAKY[0:3], the new one FLAKY[3:5].
    assert eval_rel(project, "old.jsonl", "--repeat", "3").code == 1
    junit = project.root / "j.xml"
    assert eval_rel(project, "new.jsonl", "--repeat", "2", "--junit", str(junit)).code == 1

    compared = run_cli("compare", project.root / "old.jsonl", project.root / "new.jsonl")

    assert compared.code == 1
    assert re.search(r"regressed\s+evals/rel.yaml\s+flaky\s+a\s+1.000\s+0.000", compared.out)
    assert re.search(r"removed\s+evals/rel.yaml\s+flaky \(repeat 2\)\s+a", compared.out)
    assert "1 regressed, 0 improved, 0 new, 3 removed, 5 unchanged" in compared.out
    names = re.findall(r'<testcase [^>]*name="([^"]*)"', junit.read_text(encoding="utf-8"))
    assert sorted(names) == sorted(
        f"{case}{suffix} [a]" for case in COUNTS for suffix in ("", " (repeat 1)")
    )


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("0", "8:13: error: evalcases[0].repeat: expected a number at least 1, got 0"),
        ("1001", "8:13: error: evalcases[0].repeat: expected a number at most 1000, got 1001"),
        ("'3'", "8:13: error: evalcases[0].repeat: expected an integer, got string"),
        ("2.5", "8:13: error: evalcases[0].repeat: expected an integer, got number"),
        ("true", "8:13: error: evalcases[0].repeat: expected an integer, got boolean"),
    ],
)
def test_a_bad_case_repeat_is_a_located_error(
    project: ProjectDir, repeat_server: FakeServer, value: str, problem: str
) -> None:
    project.write(
        "evals/rel.yaml",
        EVAL.replace("    input: Q steady\n", f"    input: Q steady\n    repeat: {value}\n"),
    )

    result = eval_rel(project, "r.jsonl")
    checked = run_cli("validate", project.root / "evals/rel.yaml")

    assert result.code == 2
    assert f"rel.yaml:{problem}" in result.err
    assert checked.code == 1
    assert f"rel.yaml:{problem}" in checked.out + checked.err
    assert repeat_server.requests == []


def test_a_bad_config_repeat_is_a_located_error(
    project: ProjectDir, repeat_server: FakeServer
) -> None:
    project.write(".evalwright/config.yaml", "cache: false\nrepeat: 0\n")

    result = eval_rel(project, "r.jsonl")

    assert result.code == 2
    assert "config.yaml:2:9: error: repeat: expected a number at least 1, got 0" in result.err
    assert repeat_server.requests == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("0", "expected at least 1, got 0"),
        ("1001", "expected at most 1000, got 1001"),
        ("two", "expected a whole number, got 'two'"),
    ],
)
def test_a_bad_repeat_flag_is_a_usage_error(
    project: ProjectDir, repeat_server: FakeServer, value: str, problem: str
) -> None:
    result = eval_rel(project, "r.jsonl", "--repeat", value)

    assert result.code == 2
    assert f"argument --repeat: {problem}" in result.err
    assert repeat_server.requests == []


def test_the_schemas_know_repeat() -> None:
    case = run_cli("schema", "eval").json()["$defs"]["EvalCase"]["properties"]["repeat"]
    config = run_cli("schema", "config").json()["properties"]["repeat"]
    results = run_cli("schema", "results").json()

    for schema in (case, config):
        assert {"type": "integer", "minimum": 1, "maximum": 1000} in schema["anyOf"]
    assert results["properties"]["repeat"]["type"] == "integer"
    assert results["required"][results["required"].index("target") + 1] == "repeat"
