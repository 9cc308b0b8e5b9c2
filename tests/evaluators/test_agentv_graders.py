"""AgentV HEAD's own Python grader (``examples/features/basic``, MIT, copied with its licence
into tests/data/agentv-head-examples) scores through evalwright exactly what it scores under
AgentV: the oracle is the script itself, fed AgentV's payload shape (``output``, ``input``,
``criteria``, ``expected_output``; docs/agentv.md#script-graders). AgentV runs it with
``uv run``; here it runs with the test's Python, which it needs nothing beyond."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.conftest import DATA, ProjectDir, run_cli

GRADER = DATA / "agentv-head-examples" / "basic" / "evals" / "check_python_keywords.py"
FULL = (
    '```python\ndef f(x):\n    """Doc."""\n'
    '    if not isinstance(x, list):\n        raise TypeError("no")\n```'
)
ANSWERS = {
    "full": FULL,
    "partial": 'def f(x):\n    """Only a docstring."""\n    return x',
    "none": "I cannot write that.",
}


def _agentv_score(answer: str) -> float:
    """What the grader prints when AgentV gives it ``answer``: AgentV's payload shape."""
    payload = {
        "criteria": "Writes careful Python.",
        "expected_output": [],
        "output": answer,
        "messages": [{"role": "assistant", "content": answer}],
        "input_files": [],
        "input": [{"role": "user", "content": "Write f."}],
        "metadata": None,
    }
    done = subprocess.run(
        [sys.executable, str(GRADER)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(done.stdout)["score"])


@pytest.fixture
def graded(project: ProjectDir) -> dict[str, float | None]:
    """Each answer's score from evalwright running the grader under the ``mock`` target."""
    shutil.copy(GRADER, project.root / "check_python_keywords.py")
    responses = "".join(f"      {k}: {json.dumps(v)}\n" for k, v in ANSWERS.items())
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: m\n    provider: mock\n    responses:\n" + responses,
    )
    cases = "".join(
        f"  - id: {k}\n    expected_outcome: Writes careful Python.\n    input: Write f.\n"
        for k in ANSWERS
    )
    project.write(
        "e.yaml",
        "execution:\n  evaluators:\n    - name: keyword_check\n      type: code\n"
        f"      script: [{json.dumps(sys.executable)}, check_python_keywords.py]\n"
        "evalcases:\n" + cases,
    )
    out = project.root / "r.jsonl"
    result = run_cli("eval", project.root / "e.yaml", "--target", "m", "--out", out)
    assert result.code in (0, 1), result.err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {row["eval_id"]: row["evaluator_results"][0]["score"] for row in rows}


def test_agentv_python_grader_scores_as_under_agentv(graded: dict[str, float | None]) -> None:
    expected = {case: _agentv_score(answer) for case, answer in ANSWERS.items()}
    assert expected == {"full": 1.0, "partial": 0.33, "none": 0.0}
    assert graded == expected
