"""The response cache: a repeated run asks nothing, and exactly the changed requests are asked
again (temperature, one message, the judge template); config, stats, clear, two runs at once."""

from __future__ import annotations

from typing import Any

from evalwright.testing import ReceivedRequest, Text
from tests.e2e.background import start_eval
from tests.e2e.harness import E2E, is_judge, judge_user_text, targets_yaml

EVAL_FILE = "evals/cache.yaml"
JUDGE = "{name: judge, type: llm_judge}"
EVAL = f"""execution:
  evaluators:
    - {{name: says-fake, type: contains, value: fake}}
    - {JUDGE}
evalcases:
  - id: first
    expected_outcome: Answers the first question.
    input: What is the first thing?
  - id: second
    expected_outcome: Answers the second question.
    input_messages:
      - {{role: user, content: What is the second thing?}}
      - {{role: assistant, content: Which one?}}
      - {{role: user, content: The second one.}}
  - id: third
    expected_outcome: Answers the third question.
    input: What is the third thing?
"""
VERDICT = {"score": 0.75, "hits": ["brief"], "misses": ["vague"], "reasoning": "fair"}
CASE_IDS = ("first", "second", "third")
TARGETS = ("oa", "ge")
# What a row must carry over from the run that filled the cache.
SAME = (
    "status",
    "score",
    "hits",
    "misses",
    "reasoning",
    "candidate_answer",
    "finish_reason",
    "expected_outcome",
    "raw_request",
    "wire_request",
    "evaluator_results",
    "usage",
    "error",
)


def _answer(request: ReceivedRequest) -> Text | None:
    """One answer per target, whatever the case or temperature: a judge prompt then depends
    only on the case, so it is unchanged when only the candidate request changes."""
    if is_judge(request):
        return None
    return Text(f"fake answer from {request.api} {request.model}", input_tokens=7, output_tokens=3)


def _setup(e2e: E2E, eval_text: str = EVAL) -> None:
    e2e.project.write(EVAL_FILE, eval_text)
    e2e.server.responder = _answer
    e2e.server.judge_verdict = VERDICT


def _run(e2e: E2E, out: str, *options: str) -> dict[tuple[str, str], dict[str, Any]]:
    """One run on both targets; its rows by (eval_id, target). The server log starts empty."""
    e2e.server.clear()
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--target", "ge", "--out", out, *options)
    assert result.code == 0, result.err + result.out
    rows = e2e.rows(out)
    assert len(rows) == len(CASE_IDS) * len(TARGETS)
    return {(r["eval_id"], r["target"]): r for r in rows}


def _states(rows: dict[tuple[str, str], dict[str, Any]]) -> dict[tuple[str, str], str]:
    return {key: row["cache"] for key, row in rows.items()}


def _all(state: str) -> dict[tuple[str, str], str]:
    return {(case, target): state for case in CASE_IDS for target in TARGETS}


def _asked(e2e: E2E, rows: dict[tuple[str, str], dict[str, Any]]) -> set[tuple[str, str]]:
    """The rows whose candidate request reached the server in the last run."""
    bodies = [request.json for request in e2e.candidates()]
    return {key for key, row in rows.items() if row["wire_request"]["body"] in bodies}


def _judged(e2e: E2E, rows: dict[tuple[str, str], dict[str, Any]]) -> set[tuple[str, str]]:
    """The rows whose judge request reached the server in the last run."""
    bodies = [request.json for request in e2e.judges()]
    return {
        key
        for key, row in rows.items()
        for result in row["evaluator_results"]
        if result["type"] == "llm_judge" and result["raw_request"]["body"] in bodies
    }


def _same(row: dict[str, Any]) -> dict[str, Any]:
    """The keys of a row a cache hit keeps, a judge's ``tries`` left out (a hit sends none)."""
    kept = {k: row[k] for k in SAME}
    if kept.get("evaluator_results"):
        kept["evaluator_results"] = [
            {k: v for k, v in result.items() if k != "tries"}
            for result in kept["evaluator_results"]
        ]
    return kept


def test_a_second_identical_run_asks_nothing_and_gives_the_same_rows(e2e: E2E) -> None:
    _setup(e2e)
    first = _run(e2e, "first.jsonl", "--cache")
    assert (len(e2e.candidates()), len(e2e.judges())) == (6, 6)
    assert _states(first) == _all("miss")
    assert all(row["attempts"] == 1 for row in first.values())

    second = _run(e2e, "second.jsonl", "--cache")

    assert e2e.server.requests == [], "a fully cached run sends no request at all"
    assert _states(second) == _all("hit")
    for key, row in second.items():
        assert (row["latency_ms"], row["attempts"]) == (0, 0)
        assert _same(row) == _same(first[key])
        assert row["status"] == "ok"
        assert row["candidate_answer"].startswith("fake answer from ")
        assert row["usage"] == {"input_tokens": 7, "output_tokens": 3}
        judge = row["evaluator_results"][1]
        assert (judge["score"], judge["hits"], judge["reasoning"]) == (0.75, ["brief"], "fair")
        # The judge's request was sent once in the first run, and not at all from the cache.
        assert first[key]["evaluator_results"][1]["tries"] == [
            {"attempts": 1, "outcome": "verdict"}
        ]
        assert judge["tries"] == [{"attempts": 0, "outcome": "verdict"}]
    cache_dir = e2e.root / ".evalwright" / "cache"
    assert any(cache_dir.iterdir()), "the cache lives under <root>/.evalwright/cache/"
    elsewhere = [
        p
        for p in e2e.root.rglob("*")
        if p.is_file() and cache_dir not in p.parents and p.suffix not in (".jsonl", ".yaml")
    ]
    assert elsewhere == []


def test_a_changed_temperature_asks_only_that_target_again(e2e: E2E) -> None:
    _setup(e2e)
    _run(e2e, "first.jsonl", "--cache")
    targets = e2e.root / ".evalwright" / "targets.yaml"
    targets.write_text(targets_yaml(e2e.server.url, "\n    temperature: 0.5"), encoding="utf-8")

    rows = _run(e2e, "second.jsonl", "--cache")

    assert _asked(e2e, rows) == {(case, "oa") for case in CASE_IDS}
    assert len(e2e.candidates()) == 3
    assert all(request.json["temperature"] == 0.5 for request in e2e.candidates())
    assert e2e.judges() == [], "the same answers give the same judge prompts: still cached"
    assert _states(rows) == {
        (case, target): "miss" if target == "oa" else "hit"
        for case in CASE_IDS
        for target in TARGETS
    }


def test_a_changed_message_asks_only_that_case_again(e2e: E2E) -> None:
    _setup(e2e)
    _run(e2e, "first.jsonl", "--cache")
    e2e.project.write(EVAL_FILE, EVAL.replace("content: The second one.", "content: Number 2."))

    rows = _run(e2e, "second.jsonl", "--cache")

    assert _asked(e2e, rows) == {("second", target) for target in TARGETS}
    assert len(e2e.candidates()) == 2
    # The judge sees the case's question, so only that case is judged again.
    assert _judged(e2e, rows) == {("second", target) for target in TARGETS}
    assert len(e2e.judges()) == 2
    assert _states(rows) == {
        (case, target): "miss" if case == "second" else "hit"
        for case in CASE_IDS
        for target in TARGETS
    }


def test_a_changed_judge_template_rejudges_without_asking_the_target(e2e: E2E) -> None:
    _setup(e2e)
    first = _run(e2e, "first.jsonl", "--cache")
    template = (
        "{name: judge, type: llm_judge, prompt: 'Grade {{candidate_answer}} for {{question}}'}"
    )
    e2e.project.write(EVAL_FILE, EVAL.replace(JUDGE, template))

    rows = _run(e2e, "second.jsonl", "--cache")

    assert e2e.candidates() == [], "the target is not asked again"
    assert len(e2e.judges()) == 6
    assert _judged(e2e, rows) == set(_all("hit"))
    assert all(judge_user_text(r).startswith("Grade fake answer from ") for r in e2e.judges())
    assert _states(rows) == _all("hit")
    for key, row in rows.items():
        assert row["candidate_answer"] == first[key]["candidate_answer"]


def test_cache_true_in_config_enables_it_and_no_cache_overrides(e2e: E2E) -> None:
    _setup(e2e)
    e2e.project.write(".evalwright/config.yaml", "cache: true\n")
    assert _states(_run(e2e, "first.jsonl")) == _all("miss")
    assert _states(_run(e2e, "second.jsonl")) == _all("hit")
    assert e2e.server.requests == []

    rows = _run(e2e, "third.jsonl", "--no-cache")

    assert _states(rows) == _all("off")
    assert (len(e2e.candidates()), len(e2e.judges())) == (6, 6)
    assert all(row["attempts"] == 1 for row in rows.values())


def test_cache_stats_and_clear(e2e: E2E) -> None:
    _setup(e2e)
    _run(e2e, "first.jsonl", "--cache")

    stats = e2e.run("cache", "stats")
    assert stats.code == 0, stats.err
    shown = stats.json()
    assert (shown["entries"], shown["candidate"], shown["judge"]) == (12, 6, 6)
    assert shown["path"].startswith(str(e2e.root / ".evalwright" / "cache") + "/")
    assert shown["bytes"] > 0

    cleared = e2e.run("cache", "clear")
    assert cleared.code == 0, cleared.err
    assert "removed 12 " in cleared.out
    emptied = e2e.run("cache", "stats", "evals")  # any directory of the project
    assert emptied.code == 0, emptied.err
    assert (emptied.json()["entries"], emptied.json()["candidate"]) == (0, 0)


def test_two_runs_at_once_share_one_cache(e2e: E2E) -> None:
    _setup(e2e)
    e2e.server.latency_ms = 50
    runs = [
        start_eval(e2e, "eval", EVAL_FILE, "--target", "oa", "--target", "ge", "--cache", *out)
        for out in (("--out", "one.jsonl"), ("--out", "two.jsonl"))
    ]
    outputs = [run.communicate(timeout=60) for run in runs]
    for run, (out, err) in zip(runs, outputs, strict=True):
        assert run.returncode == 0, err + out
        assert "Traceback" not in err
        assert "locked" not in err
    for name in ("one.jsonl", "two.jsonl"):
        rows = e2e.rows(name)
        assert len(rows) == 6
        assert all(row["status"] == "ok" for row in rows), [row["error"] for row in rows]
    e2e.server.latency_ms = 0

    rows = _run(e2e, "three.jsonl", "--cache")

    assert e2e.server.requests == []
    assert _states(rows) == _all("hit")
