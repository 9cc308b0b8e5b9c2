"""OpenAI evals' answer matchers, for suites brought from there
(docs/eval-files.md#openai-evals-matchers): ``match`` (a prefix), ``includes`` (a substring)
and ``fuzzy_match`` (containment after normalising). Each accepts any one of its answers.
"""

from __future__ import annotations

import re
import string
from collections import Counter

from evalwright.evalfile.evaluator_specs import FuzzyMatchSpec, IncludesSpec, MatchSpec
from evalwright.evaluators.base import EvaluatorFailure, Verdict

MatcherSpec = MatchSpec | IncludesSpec | FuzzyMatchSpec

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")


def answers(spec: MatcherSpec, reference: str) -> list[str]:
    """The spec's accepted answers, or the case's reference answer when it names none."""
    if spec.value is not None:
        return [spec.value] if isinstance(spec.value, str) else list(spec.value)
    if not reference:
        raise EvaluatorFailure(
            f"{spec.type} needs the accepted answers: give it a value, or the case an "
            "expected answer (expected_messages)"
        )
    return [reference]


def normalize(text: str) -> str:
    """Lower case, without ASCII punctuation or the articles a, an, the, and with each run of
    whitespace one space: the normal form ``fuzzy_match`` compares."""
    lowered = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", lowered).split())


def token_f1(answer: str, accepted: str) -> float:
    """The F1 of the normalised words of ``answer`` against those of ``accepted``."""
    got, want = normalize(answer).split(), normalize(accepted).split()
    same = sum((Counter(got) & Counter(want)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(got), same / len(want)
    return 2 * precision * recall / (precision + recall)


def match(spec: MatcherSpec, answer: str, reference: str) -> Verdict:
    """Score ``answer`` with a matcher: 1 when any accepted answer matches it."""
    accepted = answers(spec, reference)
    found = next((a for a in accepted if _matches(spec, answer, a)), None)
    hit_verb, miss_verb = _VERBS[spec.type]
    if found is not None:
        hit = f"{hit_verb} {found!r}"
        return Verdict(1.0, [hit], [], hit + _f1_note(spec, answer, accepted))
    shown = ", ".join(repr(a) for a in accepted[:5]) + (", ..." if len(accepted) > 5 else "")
    miss = f"{miss_verb} {shown}"
    return Verdict(0.0, [], [miss], miss + _f1_note(spec, answer, accepted))


_VERBS = {
    "match": ("starts with", "starts with none of"),
    "includes": ("includes", "includes none of"),
    "fuzzy_match": ("fuzzily matches", "fuzzily matches none of"),
}


def _matches(spec: MatcherSpec, answer: str, accepted: str) -> bool:
    match spec:
        case MatchSpec():
            # OpenAI evals strips the completion, not the expected answer.
            return answer.strip().startswith(accepted)
        case IncludesSpec():
            if spec.case_sensitive:
                return accepted in answer
            return accepted.casefold() in answer.casefold()
        case FuzzyMatchSpec():
            got, want = normalize(answer), normalize(accepted)
            if not got or not want:
                return got == want
            return want in got or got in want


def _f1_note(spec: MatcherSpec, answer: str, accepted: list[str]) -> str:
    if not isinstance(spec, FuzzyMatchSpec):
        return ""
    return f" (word F1 {max(token_f1(answer, a) for a in accepted):.2f})"
