"""AgentV HEAD's Python graders score through evalwright exactly what they score under AgentV
(docs/importing.md#from-agentv). Each suite of ``examples/features`` with a Python script
grader is imported with ``evalwright import agentv`` and run on the mock target against fixed
answers; the oracle is the grader itself, run directly with Python on the payload AgentV sends
it (``output``, ``input``, ``criteria``, ``expected_output``). The imported commands are the
suites' own (``uv run ...``, ``python3 ...``): the test's environment, where uv is installed,
goes first on PATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalwright import import_agentv
from tests.conftest import run_cli
from tests.importers.agentv.conftest import HEAD

# (suite, the case with a Python grader, the grader file AgentV runs)
GRADED = [
    ("basic/evals/suite.yaml", "code-gen-python-comprehensive",
     "basic/evals/check_python_keywords.py"),
    ("readme-quickstart/evals/my-eval.eval.yaml", "fizzbuzz",
     "readme-quickstart/validators/check_syntax.py"),
    ("rubric/evals/suite.yaml", "code-quality-multi-eval", "rubric/evals/check_syntax.py"),
    ("sdk-python/evals/suite.yaml", "python-helper-local-cli",
     "sdk-python/scripts/check_expected_output.py"),
]  # fmt: skip
# The example's own package, which its grader imports (AgentV's ``uv run`` installs it).
SDK = HEAD / "sdk-python" / "src"
FIZZBUZZ = (
    "```python\nfor i in range(1, 101):\n    if i % 15 == 0:\n        print('fizzbuzz')\n"
    "    elif i % 3 == 0:\n        print('fizz')\n    elif i % 5 == 0:\n        print('buzz')\n"
    "    else:\n        print(i)\n```"
)
CAREFUL = (
    '```python\ndef second_largest(xs: list[int]) -> int:\n    """The second largest."""\n'
    "    if not isinstance(xs, list):\n        raise TypeError('a list')\n"
    "    return sorted(set(xs))[-2]\n```"
)
ANSWERS = {
    "fizzbuzz": FIZZBUZZ,
    "careful": CAREFUL,
    "docstring-only": 'def f(x):\n    """Only a docstring."""\n    return x',
    "broken": "```python\ndef f(:\n    return\n```",
    "prose": "I would rather not write code today.",
    "expected": "AgentV Python helper says hi.",  # the sdk-python case's expected output
}


def _agentv_score(grader: Path, answer: str, case: dict[str, Any]) -> float:
    """What the grader prints when AgentV hands it ``answer`` for ``case``."""
    payload = {
        "output": answer,
        "input": case.get("input_messages") or [{"role": "user", "content": case.get("input")}],
        "criteria": case["expected_outcome"],
        "expected_output": case.get("expected_messages") or [],
        "messages": [{"role": "assistant", "content": answer}],
        "input_files": [],
        "metadata": None,
    }
    done = subprocess.run(
        [sys.executable, grader.name],
        cwd=grader.parent,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(done.stdout)["score"])


def _evalwright_scores(out: Path, eval_file: Path, case_id: str, name: str) -> dict[str, float]:
    """Each answer's score from the imported code evaluator ``name``, on the mock target."""
    scores: dict[str, float] = {}
    for label, answer in ANSWERS.items():
        targets = {"targets": [{"name": "t", "provider": "mock", "response": answer}]}
        (out / ".evalwright" / "targets.yaml").write_text(json.dumps(targets))
        results = out / f"{label}.jsonl"
        done = run_cli("eval", eval_file, "--eval-id", case_id, "--target", "t", "--out", results)
        assert done.code in (0, 1), done.err
        (row,) = [json.loads(line) for line in results.read_text().splitlines()]
        (result,) = [r for r in row["evaluator_results"] if r["name"] == name]
        scores[label] = result["score"]
    return scores


@pytest.mark.parametrize(("suite", "case_id", "grader"), GRADED, ids=[g[0] for g in GRADED])
def test_python_grader_scores_as_under_agentv(
    suite: str, case_id: str, grader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", str(SDK))
    result = import_agentv(HEAD / suite, tmp_path / "out")
    assert result.eval_file is not None
    document = yaml.safe_load(result.eval_file.read_text(encoding="utf-8"))
    (case,) = [c for c in document["evalcases"] if c["id"] == case_id]
    (code,) = [e for e in case["execution"]["evaluators"] if e["type"] == "code"]
    expected = {k: _agentv_score(HEAD / grader, v, case) for k, v in ANSWERS.items()}
    assert len(set(expected.values())) > 1, expected  # the answers tell the grader's cases apart
    scores = _evalwright_scores(tmp_path / "out", result.eval_file, case_id, code["name"])
    assert scores == expected
