"""The ``code`` evaluator (docs/eval-files.md#code): a real script, run as a real subprocess,
reads the case on stdin and prints its verdict; every way it can fail is an evaluator error
that says why."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from evalwright.evalfile.evaluator_specs import CodeSpec
from evalwright.evaluators import EvalContext
from evalwright.evaluators.base import EvaluatorFailure, Verdict
from evalwright.evaluators.code import run_script
from evalwright.results.parts import ScriptRequest

PYTHON = sys.executable
ECHO = """import json, sys
case = json.load(sys.stdin)
print(json.dumps({"score": 0.75, "hits": sorted(case), "misses": [case["candidate_answer"]],
                  "reasoning": json.dumps(case, ensure_ascii=False)}))
"""


def _context() -> EvalContext:
    return EvalContext(
        case_id="c1",
        question="Fix the bug?",
        expected_outcome="Finds the race.",
        reference_answer="Use a lock.",
        candidate_answer="Add a lock ✓",
        guidelines="Be brief.",
        guideline_paths=["/p/style.instructions.md"],
        input_files=["/p/code.js"],
        authored=lambda: (
            [{"role": "user", "content": "Fix the bug?"}],
            [{"role": "assistant", "content": "Use a lock."}],
        ),
    )


def _spec(script: list[str] | str, **options: Any) -> CodeSpec:
    return CodeSpec.model_validate({"name": "script", "type": "code", "script": script, **options})


def _run(tmp_path: Path, body: str, **options: Any) -> tuple[Verdict, ScriptRequest]:
    """Write ``body`` as check.py in ``tmp_path`` and run it as the evaluator's script."""
    (tmp_path / "check.py").write_text(body, encoding="utf-8")
    spec = _spec([PYTHON, "check.py"], **options)
    return asyncio.run(run_script(spec, str(tmp_path), _context()))


def _failure(tmp_path: Path, body: str, **options: Any) -> EvaluatorFailure:
    with pytest.raises(EvaluatorFailure) as caught:
        _run(tmp_path, body, **options)
    return caught.value


def test_the_script_reads_the_case_and_its_verdict_is_kept(tmp_path: Path) -> None:
    verdict, raw = _run(tmp_path, ECHO)

    assert verdict.score == 0.75
    assert verdict.hits == sorted(
        [
            "question",
            "expected_outcome",
            "reference_answer",
            "candidate_answer",
            "guidelines",
            "input_messages",
            "expected_messages",
            "guideline_paths",
            "input_files",
            "tool_calls",
            "case_id",
            "target",
            "metadata",
            "vars",
            "usage",
            "trace",
            "output",
            "input",
            "criteria",
            "expected_output",
            "token_usage",
        ]
    )
    assert verdict.misses == ["Add a lock ✓"], "the case arrives as UTF-8"
    assert json.loads(verdict.reasoning) == {
        "question": "Fix the bug?",
        "expected_outcome": "Finds the race.",
        "reference_answer": "Use a lock.",
        "candidate_answer": "Add a lock ✓",
        "guidelines": "Be brief.",
        "input_messages": [{"role": "user", "content": "Fix the bug?"}],
        "expected_messages": [{"role": "assistant", "content": "Use a lock."}],
        "guideline_paths": ["/p/style.instructions.md"],
        "input_files": ["/p/code.js"],
        "tool_calls": [],
        "case_id": "c1",
        "target": None,
        "metadata": None,
        "vars": {},
        "usage": None,
        "trace": [],
        "output": "Add a lock ✓",
        "input": [{"role": "user", "content": "Fix the bug?"}],
        "criteria": "Finds the race.",
        "expected_output": [{"role": "assistant", "content": "Use a lock."}],
        "token_usage": None,
    }
    assert raw == ScriptRequest(argv=[PYTHON, "check.py"], cwd=str(tmp_path))


AGENTV_GRADER = """import json, sys
data = json.load(sys.stdin)
output = data.get("output") or ""
expected = data["expected_output"][0]["content"]
checks = [{"text": "names the lock", "pass": "lock" in output},
          {"text": "matches the reference", "pass": expected in output},
          {"text": "answers the criteria", "pass": bool(data["criteria"])}]
passed = sum(c["pass"] for c in checks)
print(json.dumps({"score": passed / len(checks), "reason": f"{passed}/3", "checks": checks}))
"""


def test_a_grader_written_for_agentv_reads_output_and_scores_right(tmp_path: Path) -> None:
    """AgentV's and promptfoo's graders read ``output``, ``input``, ``criteria`` and
    ``expected_output``; without them this grader scored 0 with no error."""
    verdict, _ = _run(tmp_path, AGENTV_GRADER)
    assert verdict.score == pytest.approx(2 / 3)
    assert verdict.hits == ["names the lock", "answers the criteria"]
    assert verdict.misses == ["matches the reference"]
    assert verdict.reasoning == "2/3"


def test_payload_agentv_sends_only_what_agentv_sends(tmp_path: Path) -> None:
    """AgentV's Python SDK refuses a payload holding ``reference_answer``: with ``payload:
    agentv`` the grader gets AgentV's fields and nothing else."""
    verdict, _ = _run(tmp_path, ECHO.replace('case["candidate_answer"]', 'case["output"]'),
                      payload="agentv")  # fmt: skip
    assert verdict.hits == sorted(
        ["output", "input", "criteria", "expected_output", "input_files", "metadata", "messages"]
    )
    sent = json.loads(verdict.reasoning)
    assert sent["messages"] == [{"role": "assistant", "content": "Add a lock ✓"}]
    assert sent["criteria"] == "Finds the race."


def test_agentv_assertions_with_passed_are_hits_and_misses(tmp_path: Path) -> None:
    body = (
        "import json, sys\nsys.stdin.read()\n"
        "print(json.dumps({'score': 0.5, 'assertions': [{'text': 'a', 'passed': True},"
        " {'text': 'b', 'passed': False}, 'not a check']}))\n"
    )
    verdict, _ = _run(tmp_path, body)
    assert (verdict.hits, verdict.misses) == (["a"], ["b"])


def test_hits_misses_and_reasoning_may_be_left_out(tmp_path: Path) -> None:
    verdict, _ = _run(tmp_path, "import sys\nsys.stdin.read()\nprint('  {\"score\": 1}  ')\n")
    assert (verdict.score, verdict.hits, verdict.misses, verdict.reasoning) == (1.0, [], [], "")


def test_an_argv_runs_without_a_shell_and_a_string_with_one(tmp_path: Path) -> None:
    (tmp_path / "argv.py").write_text(
        'import json, sys\nprint(json.dumps({"score": 1, "reasoning": sys.argv[1]}))\n'
    )
    literal = _spec([PYTHON, "argv.py", "$HOME;x"])
    verdict, _ = asyncio.run(run_script(literal, str(tmp_path), _context()))
    assert verdict.reasoning == "$HOME;x"
    command = f"exec {PYTHON} argv.py $((40 + 2))"
    verdict, raw = asyncio.run(run_script(_spec(command), str(tmp_path), _context()))
    assert verdict.reasoning == "42"
    assert raw.argv == ["/bin/sh", "-c", command]


def test_a_non_zero_exit_carries_the_tail_of_stderr(tmp_path: Path) -> None:
    body = (
        "import sys\nprint('{\"score\": 1}')\n"
        "sys.stderr.write('early ' + 'x' * 5000 + ' the real reason')\nsys.exit(3)\n"
    )
    failure = _failure(tmp_path, body)
    message = str(failure)
    assert message.startswith("exited with status 3; stderr: ")
    assert message.endswith("x the real reason")
    assert len(message) == len("exited with status 3; stderr: ") + 2000
    assert "early" not in message
    assert failure.raw_request == ScriptRequest(argv=[PYTHON, "check.py"], cwd=str(tmp_path))


def test_a_quiet_failure_says_only_its_status(tmp_path: Path) -> None:
    assert str(_failure(tmp_path, "import os\nos._exit(1)\n")) == "exited with status 1"


@pytest.mark.parametrize(
    ("stdout", "problem"),
    [
        (
            "not json",
            "printed no valid verdict (Expecting value: line 1 column 1 (char 0)); "
            "stdout: 'not json'",
        ),
        (
            '{"score": 2}',
            "printed no valid verdict (score 2 is outside [0, 1]); stdout: '{\"score\": 2}'",
        ),
        ("[1]", "printed no valid verdict (expected a JSON object); stdout: '[1]'"),
        ("", "printed no valid verdict (Expecting value: line 1 column 1 (char 0)); stdout: ''"),
        ('{"score": 1}\n{"score": 0}', "printed no valid verdict (Extra data: line 2 column 1"),
    ],
    ids=["prose", "out-of-range", "array", "nothing", "two-verdicts"],
)
def test_output_that_is_not_one_verdict_is_an_error(
    tmp_path: Path, stdout: str, problem: str
) -> None:
    body = f"import sys\nsys.stdout.write({stdout!r})\nsys.stderr.write('warned')\n"
    message = str(_failure(tmp_path, body))
    assert message.startswith(problem)
    assert message.endswith("; stderr: warned")


def test_output_that_is_not_utf8_is_an_error(tmp_path: Path) -> None:
    body = 'import sys\nsys.stdout.buffer.write(b\'{"score": 1, "reasoning": "\\xff"}\')\n'
    message = str(_failure(tmp_path, body))
    assert message.startswith("printed no valid verdict ('utf-8' codec can't decode byte 0xff")
    assert message.endswith('stdout: \'{"score": 1, "reasoning": "\ufffd"}\'')


def test_long_output_is_shown_cut_to_200_characters(tmp_path: Path) -> None:
    message = str(_failure(tmp_path, "print('y' * 5000)\n"))
    assert message.endswith("stdout: '" + "y" * 200 + "'")


def test_a_timeout_kills_the_script_and_what_it_started(tmp_path: Path) -> None:
    late = tmp_path / "late.txt"
    body = f"""import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.5); open({str(late)!r}, 'w')"])
print("still thinking", file=sys.stderr, flush=True)
time.sleep(30)
"""
    started = time.monotonic()
    failure = _failure(tmp_path, body, timeout_seconds=0.5)
    assert time.monotonic() - started < 5
    assert str(failure) == "timed out after 0.5 s; stderr: still thinking"
    time.sleep(1.5)
    assert not late.exists(), "the script's own child was killed with it"


def test_more_output_than_the_limit_is_an_error(tmp_path: Path) -> None:
    body = "import sys\nfor _ in range(17):\n    sys.stdout.buffer.write(b'z' * (1 << 20))\n"
    assert str(_failure(tmp_path, body)) == "the command printed more than 16777216 bytes on stdout"


def test_a_script_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    spec = _spec([str(tmp_path / "missing-checker")])
    with pytest.raises(EvaluatorFailure) as caught:
        asyncio.run(run_script(spec, str(tmp_path), _context()))
    assert str(caught.value) == (
        f"cannot run '{tmp_path / 'missing-checker'}': No such file or directory"
    )
    assert caught.value.raw_request is not None


def test_the_script_runs_in_its_cwd_with_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOME_API_KEY", "sk-not-for-scripts-0123")
    monkeypatch.setenv("PLAIN_SETTING", "1")
    body = """import json, os, sys
sys.stdin.read()
names = sorted(n for n in ("SOME_API_KEY", "PLAIN_SETTING") if n in os.environ)
print(json.dumps({"score": 1, "hits": names, "reasoning": os.getcwd()}))
"""
    verdict, _ = _run(tmp_path, body)
    assert verdict.hits == ["PLAIN_SETTING"]
    assert verdict.reasoning == str(tmp_path)
