"""OpenAI evals' matchers (docs/eval-files.md#openai-evals-matchers): ``match`` is a prefix of
the stripped answer, ``includes`` a substring, ``fuzzy_match`` containment either way after
normalising; any one accepted answer will do, and the case's reference answer stands in for a
missing ``value``."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from evalwright.evalfile.evaluator_specs import FuzzyMatchSpec, IncludesSpec, MatchSpec
from evalwright.evaluators.base import EvaluatorFailure
from evalwright.evaluators.builtin import check
from evalwright.evaluators.matchers import normalize, token_f1
from tests.conftest import ProjectDir, run_cli


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("B", 1.0),
        ("  B) the second option\n", 1.0),  # the answer is stripped before the prefix test
        ("Answer: B", 0.0),  # a prefix, not a substring
        ("b", 0.0),  # case counts
    ],
)
def test_match_is_a_prefix_of_the_stripped_answer(answer: str, score: float) -> None:
    assert check(MatchSpec(name="m", value=["B", "Option B"]), answer).score == score


def test_match_accepts_any_answer_of_a_list_and_names_the_one_found() -> None:
    verdict = check(MatchSpec(name="m", value=["Paris", "Lyon"]), "Lyon is closer")
    assert (verdict.score, verdict.hits) == (1.0, ["starts with 'Lyon'"])
    missed = check(MatchSpec(name="m", value=["Paris", "Lyon"]), "Marseille")
    assert missed.misses == ["starts with none of 'Paris', 'Lyon'"]


def test_includes_finds_a_substring_with_or_without_case() -> None:
    spec = IncludesSpec(name="i", value=["42", "forty-two"])
    assert check(spec, "The answer is 42.").score == 1.0
    assert check(spec, "The answer is Forty-Two.").score == 0.0
    loose = IncludesSpec(name="i", value="forty-two", case_sensitive=False)
    assert check(loose, "The answer is Forty-Two.").score == 1.0


@pytest.mark.parametrize(
    ("accepted", "answer", "score"),
    [
        ("The Eiffel Tower", "eiffel tower!", 1.0),  # articles, case and punctuation go
        ("Eiffel Tower", "It is the Eiffel   Tower, in Paris.", 1.0),  # accepted within answer
        ("the Eiffel Tower in Paris, France", "Eiffel Tower", 1.0),  # answer within accepted
        ("Louvre", "Eiffel Tower", 0.0),
        ("The", "", 1.0),  # both normalise to nothing: equal
        ("Louvre", "...", 0.0),  # one empty, the other not
    ],
)
def test_fuzzy_match_compares_normal_forms_either_way(
    accepted: str, answer: str, score: float
) -> None:
    assert check(FuzzyMatchSpec(name="f", value=accepted), answer).score == score


def test_normal_form_and_word_f1() -> None:
    assert normalize("  The cat, a HAT; an apple!  ") == "cat hat apple"
    assert normalize("theory") == "theory"  # only whole words are articles
    assert token_f1("the red cat", "a red dog") == pytest.approx(0.5)
    assert token_f1("blue", "red") == 0.0
    verdict = check(FuzzyMatchSpec(name="f", value="red cat"), "my red cat")
    assert verdict.reasoning.endswith("(word F1 0.80)")


def test_the_reference_answer_stands_in_for_a_missing_value() -> None:
    assert check(MatchSpec(name="m"), "Paris.", reference="Paris").score == 1.0
    assert check(IncludesSpec(name="i"), "in Lyon", reference="Paris").score == 0.0
    with pytest.raises(EvaluatorFailure, match="fuzzy_match needs the accepted answers"):
        check(FuzzyMatchSpec(name="f"), "Paris")


def test_negate_and_bad_values() -> None:
    assert check(MatchSpec(name="m", value="No", negate=True), "Yes").score == 1.0
    with pytest.raises(ValidationError, match="expected at least one value"):
        MatchSpec.model_validate({"name": "m", "type": "match", "value": []})


EVAL = """execution:
  evaluators:
    - {name: starts, type: match}
    - {name: holds, type: includes, value: [Lyon, "mock answer"]}
    - {name: fuzzy, type: fuzzy_match, value: "A MOCK answer!!"}
evalcases:
  - id: right
    expected_outcome: Starts with the reference.
    input: x
    expected_messages: [{role: assistant, content: This is}]
  - id: wrong
    expected_outcome: Starts with the reference.
    input: x
    expected_messages: [{role: assistant, content: That was}]
  - id: none
    expected_outcome: Has no reference.
    input: x
"""


def test_a_run_scores_the_matchers_against_the_reference_answer(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", "targets:\n  - {name: m, provider: mock}\n")
    path = project.write("evals/e.yaml", EVAL)
    out = project.root / "r.jsonl"

    ran = run_cli("eval", path, "--target", "m", "--out", out)

    assert ran.code == 1, ran.err  # the case without a reference is an evaluator error
    rows = {r["eval_id"]: r for r in map(json.loads, out.read_text("utf-8").splitlines())}
    scores = {k: [e["score"] for e in r["evaluator_results"]] for k, r in rows.items()}
    assert scores["right"] == [1.0, 1.0, 1.0]  # the mock answers "This is a mock answer."
    assert scores["wrong"] == [0.0, 1.0, 1.0]
    assert rows["none"]["status"] == "error"
    assert "match needs the accepted answers" in rows["none"]["error"]["message"]
