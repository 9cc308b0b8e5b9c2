"""The ``llm_judge`` evaluator (docs/eval-files.md#llm_judge): the exact texts a judge is sent,
how its reply is read, and what a bad reply costs. Judges are real targets on the fake
server, run through the whole runner in this process."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from evalwright.evaluators.judge import read_verdict
from evalwright.evaluators.texts import DEFAULT_TEMPLATE, JUDGE_SYSTEM_PROMPT
from evalwright.testing import Fault, Text
from tests.conftest import REPO, ProjectDir
from tests.e2e.harness import E2E, start

EVAL_FILE = "evals/judged.yaml"
EVAL = """execution:
  evaluators:
    - {name: judge, type: llm_judge}
evalcases:
  - id: sum
    expected_outcome: Gives the sum.
    input: |-
      What is 2+2?
      Answer with a number.
    expected_output: "4"
"""
VERDICT = {"score": 0.25, "hits": ["short"], "misses": ["wrong"], "reasoning": "off by one"}


@pytest.fixture
def e2e(project: ProjectDir) -> Iterator[E2E]:
    """A project whose targets point at a fake server in a thread."""
    yield from start(project)


def _run(e2e: E2E, *options: str, out: str = "r.jsonl") -> dict[str, Any]:
    """Run the one case on ``oa`` (judged by ``judge``); its row."""
    result = e2e.run("eval", EVAL_FILE, "--target", "oa", "--out", out, *options)
    (row,) = e2e.rows(out)
    passed = row["status"] == "ok" and row["score"] >= 0.5  # the default pass mark
    assert result.code == (0 if passed else 1), result.err
    return row


def _judge_result(row: dict[str, Any]) -> dict[str, Any]:
    (result,) = row["evaluator_results"]
    assert result["type"] == "llm_judge"
    return result


# The exact texts


def _documented_texts() -> list[str]:
    """The text blocks under the docs' heading "The judge's exact texts"."""
    doc = (REPO / "docs" / "eval-files.md").read_text(encoding="utf-8")
    section = doc.split("#### The judge's exact texts\n", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"```text\n(.*?)\n```", section, flags=re.DOTALL)


def test_the_texts_are_the_documented_ones() -> None:
    assert _documented_texts() == [DEFAULT_TEMPLATE, JUDGE_SYSTEM_PROMPT]


def test_the_judge_is_sent_exactly_the_system_prompt_and_the_filled_template(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.enqueue(Text("The sum is 5."))
    e2e.server.judge_verdict = VERDICT

    row = _run(e2e)

    (judge,) = e2e.judges()
    assert judge.model == "judge-test"
    messages = judge.json["messages"]
    assert messages[0] == {
        "role": "system",
        "content": "You are an evaluation judge. Reply with one JSON object and nothing else:\n"
        '{"score": <number from 0 to 1 in steps of 0.1>, "hits": [<up to 4 short strings: what '
        'the answer got right>],\n"misses": [<up to 4 short strings: what it missed or got '
        "wrong>], "
        '"reasoning": "<one or two sentences>"}',
    }
    assert messages[1:] == [
        {
            "role": "user",
            "content": "Grade how well the candidate answer achieves the expected outcome of "
            "the task below. Treat the\nreference answer, when there is one, as an example of "
            "a good answer, not as the only correct\nwording. Be brief and specific.\n\n"
            "[[ ## expected_outcome ## ]]\nGives the sum.\n\n"
            "[[ ## question ## ]]\nWhat is 2+2?\nAnswer with a number.\n\n"
            "[[ ## reference_answer ## ]]\n4\n\n"
            "[[ ## candidate_answer ## ]]\nThe sum is 5.",
        }
    ]
    schema = judge.json["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["score", "hits", "misses", "reasoning"]
    assert schema["additionalProperties"] is False
    result = _judge_result(row)
    assert result["raw_request"]["body"] == judge.json, "the row holds what the judge got"
    assert (result["score"], result["hits"], result["misses"]) == (0.25, ["short"], ["wrong"])
    assert result["reasoning"] == "off by one"
    assert row["score"] == 0.25


def test_a_template_gets_every_field_and_the_same_system_prompt(e2e: E2E) -> None:
    template = (
        "Q={{question}}|O={{expected_outcome}}|R={{reference_answer}}|A={{candidate_answer}}"
        "|G={{guidelines}}|I={{input_messages}}|E={{expected_messages}}"
    )
    e2e.project.write("evals/rules.instructions.md", "Be exact.\n")
    e2e.project.write(
        EVAL_FILE,
        EVAL.replace("type: llm_judge}", f"type: llm_judge, prompt: '{template}'}}").replace(
            "    input: |-\n      What is 2+2?\n      Answer with a number.\n",
            "    input_messages:\n      - role: user\n        content:\n"
            "          - Ça fait combien, 2+2 ?\n"
            "          - {type: file, value: rules.instructions.md}\n",
        ),
    )
    e2e.server.enqueue(Text("4"))
    e2e.server.judge_verdict = VERDICT

    _run(e2e)

    (judge,) = e2e.judges()
    assert judge.json["messages"][0]["content"] == JUDGE_SYSTEM_PROMPT
    prompt = judge.json["messages"][1]["content"]
    guideline = '<file path="rules.instructions.md">\nBe exact.\n</file>'
    resolved = str(e2e.root / "evals" / "rules.instructions.md")
    file_part = {
        "type": "file",
        "path": "rules.instructions.md",
        "resolved_path": resolved,
        "content": "Be exact.",
    }
    inputs = [{"role": "user", "content": ["Ça fait combien, 2+2 ?", file_part]}]
    expected = [{"role": "assistant", "content": "4"}]
    assert prompt == (
        "Q=Ça fait combien, 2+2 ?\n<Attached: rules.instructions.md>|O=Gives the sum.|R=4|A=4"
        f"|G={guideline}|I={_compact(inputs)}|E={_compact(expected)}"
    )


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# Reading a verdict


NO_STRINGS: list[str] = []
VERDICTS: list[tuple[str, tuple[float, list[str], list[str], str]]] = [
    ('{"score": 1, "hits": ["a"], "misses": [], "reasoning": "ok"}', (1.0, ["a"], [], "ok")),
    ('  {"score": 0}\n', (0.0, NO_STRINGS, NO_STRINGS, "")),
    ('```json\n{"score": 0.5, "reasoning": "half"}\n```', (0.5, NO_STRINGS, NO_STRINGS, "half")),
    ('```\n{"score": 0.5, "misses": ["m"]}\n```', (0.5, NO_STRINGS, ["m"], "")),
    (
        '{"score": 0.3, "hits": [1, null], "misses": "x", "reasoning": null}',
        (0.3, ["1", "None"], NO_STRINGS, ""),
    ),
]


@pytest.mark.parametrize(
    ("reply", "verdict"),
    VERDICTS,
    ids=["plain", "only-score", "fenced-json", "fenced", "loose-fields"],
)
def test_a_verdict_is_read_from_the_reply(
    reply: str, verdict: tuple[float, list[str], list[str], str]
) -> None:
    read = read_verdict(reply)
    assert (read.score, read.hits, read.misses, read.reasoning) == verdict
    assert isinstance(read.score, float)


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("I would say 0.8.", "not JSON: 'I would say 0.8.'"),
        ("x" * 300, "not JSON: '" + "x" * 120 + "'"),
        ('Here it is: ```json\n{"score": 1}\n```', "not JSON"),
        ('["score", 1]', "expected a JSON object"),
        ('{"hits": []}', "'score' must be a number"),
        ('{"score": "0.5"}', "'score' must be a number"),
        ('{"score": true}', "'score' must be a number"),
        ('{"score": 1.01}', "score 1.01 is outside [0, 1]"),
        ('{"score": -0.5}', "score -0.5 is outside [0, 1]"),
        ('{"score": NaN}', "is outside [0, 1]"),
        ("[" * 100_000, "not JSON"),
    ],
    ids=[
        "prose",
        "long-prose",
        "fence-after-prose",
        "array",
        "no-score",
        "string-score",
        "bool-score",
        "above-one",
        "below-zero",
        "nan",
        "too-deep",
    ],
)
def test_a_reply_that_is_not_a_verdict_is_refused(reply: str, problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        read_verdict(reply)


# A bad reply, the retry and the cache


def _verdict_text(**fields: Any) -> Text:
    return Text(json.dumps({"hits": [], "misses": [], "reasoning": "r", **fields}))


def test_an_unparsable_verdict_is_asked_again_and_only_a_verdict_is_cached(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.enqueue(Text("4"), Text("Looks right to me."), _verdict_text(score=0.9))

    first = _run(e2e, "--cache", out="first.jsonl")

    judges = e2e.judges()
    assert len(judges) == 2
    assert judges[0].body == judges[1].body, "the same request is sent again"
    assert _judge_result(first)["score"] == 0.9
    e2e.server.clear()

    second = _run(e2e, "--cache", out="second.jsonl")

    assert e2e.server.requests == [], "the verdict was cached"
    assert _judge_result(second)["score"] == 0.9
    assert second["cache"] == "hit"


def test_a_verdict_bad_twice_is_an_error_and_neither_reply_is_cached(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.enqueue(Text("4"), Text("{}"), _verdict_text(score=3))

    first = _run(e2e, "--cache", out="first.jsonl")

    assert (first["status"], first["score"]) == ("error", None)
    result = _judge_result(first)
    assert (result["status"], result["score"]) == ("error", None)
    assert result["reasoning"] == (
        "the judge gave no valid verdict in two tries: score 3 is outside [0, 1]"
    )
    assert result["raw_request"]["body"]["model"] == "judge-test"
    assert first["error"] == {
        "type": "evaluator_error",
        "message": "evaluator 'judge': " + result["reasoning"],
    }
    e2e.server.clear()
    e2e.server.enqueue(Text("Still thinking."), _verdict_text(score=0.5))

    second = _run(e2e, "--cache", out="second.jsonl")

    assert e2e.candidates() == [], "the answer was cached"
    assert len(e2e.judges()) == 2, "no bad reply came from the cache: both were asked"
    assert (second["status"], second["score"]) == ("ok", 0.5)


def test_a_cached_reply_that_is_no_verdict_is_asked_again_past_the_cache(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.judge_verdict = VERDICT
    _run(e2e, "--cache", out="first.jsonl")
    # A cache written by something else (another version, a hand edit) holds a bad reply.
    cache = e2e.root / ".evalwright" / "cache" / "responses.sqlite3"
    with contextlib.closing(sqlite3.connect(cache)) as db:
        changed = db.execute("UPDATE responses SET text = 'no' WHERE namespace = 'judge'")
        assert changed.rowcount == 1
        db.commit()
    e2e.server.clear()
    e2e.server.judge_verdict = {**VERDICT, "score": 0.5}

    row = _run(e2e, "--cache", out="second.jsonl")

    assert e2e.candidates() == []
    assert len(e2e.judges()) == 1, "the second try skips the cache"
    assert (row["status"], row["score"]) == ("ok", 0.5)
    e2e.server.clear()
    assert _run(e2e, "--cache", out="third.jsonl")["score"] == 0.5
    assert e2e.server.requests == [], "the new verdict replaced the bad reply in the cache"


def test_a_failing_judge_target_is_an_evaluator_error(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.enqueue(Text("4"), Fault(401, body={"error": {"message": "bad judge key"}}))

    row = _run(e2e)

    result = _judge_result(row)
    url = f"{e2e.server.url}/v1/chat/completions"
    assert result["reasoning"] == f"judge target 'judge' failed: HTTP 401 from {url}: bad judge key"
    assert result["raw_request"] is None, "no judge reply came back"
    assert len(e2e.judges()) == 1, "a failed call is not a bad verdict: it is not asked twice"
    assert row["error"]["type"] == "evaluator_error"
    assert row["candidate_answer"] == "4", "the answer is kept"


# Cut-off replies, output limits and the failed reply kept


def test_a_reply_cut_off_at_the_token_limit_says_so_and_is_not_asked_again(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    cut = '{"score": 0.5, "hits": ["a long list'
    e2e.server.enqueue(Text("4"), Text(cut, finish_reason="length", output_tokens=1024))

    row = _run(e2e)

    result = _judge_result(row)
    assert result["status"] == "error"
    assert result["reasoning"] == (
        "the judge's reply was cut off at 1024 tokens: raise its max_output_tokens"
    )
    assert result["reply"] == cut, "the cut-off reply is kept"
    assert len(e2e.judges()) == 1, "the identical request at temperature 0 is not sent again"


def test_the_judge_gets_a_default_output_limit_and_temperature_zero(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.judge_verdict = VERDICT

    _run(e2e)

    (judge,) = e2e.judges()
    assert (judge.json["max_completion_tokens"], judge.json["temperature"]) == (1024, 0)
    (candidate,) = e2e.candidates()
    assert "temperature" not in candidate.json, "candidates get only what their target sets"
    assert "max_completion_tokens" not in candidate.json


def test_the_judge_targets_own_limit_and_temperature_win(e2e: E2E) -> None:
    targets = e2e.root / ".evalwright" / "targets.yaml"
    text = targets.read_text(encoding="utf-8")
    targets.write_text(text + "    max_output_tokens: 300\n    temperature: 0.5\n", "utf-8")
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.judge_verdict = VERDICT

    _run(e2e)

    (judge,) = e2e.judges()
    assert (judge.json["max_completion_tokens"], judge.json["temperature"]) == (300, 0.5)


def test_a_failed_reply_is_kept_whole_up_to_4_kb(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    long_reply = "I think " + "x" * 10_000
    e2e.server.enqueue(Text("4"), Text("Not JSON."), Text(long_reply))

    row = _run(e2e)

    result = _judge_result(row)
    assert result["reasoning"].startswith("the judge gave no valid verdict in two tries: not JSON")
    assert result["reply"] == long_reply[:4096] + f"\n[{len(long_reply) - 4096} more characters]"


def test_a_verdict_result_has_no_reply_key(e2e: E2E) -> None:
    e2e.project.write(EVAL_FILE, EVAL)
    e2e.server.judge_verdict = VERDICT

    assert "reply" not in _judge_result(_run(e2e))
