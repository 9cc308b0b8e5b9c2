"""Writing the results file (docs/running.md#the-results-file), seen through whole runs in
this process: each row is on disk before the next case is judged, a resumed file is appended
to and then compacted in place, and a row holding text UTF-8 cannot encode becomes an error
row instead of being lost."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalwright.testing import Fault, ReceivedRequest
from tests.conftest import ProjectDir
from tests.e2e.harness import E2E, start

SUITE = "evals/suite.yaml"
# Reports how many complete rows the results file held when the script ran.
COUNT_ROWS = """import json, sys
from pathlib import Path
sys.stdin.read()
data = Path(sys.argv[1]).read_bytes()
whole = data.endswith(bytes([10])) or not data
print(json.dumps({"score": 1, "reasoning": f"{data.count(bytes([10]))} {whole}"}))
"""


@pytest.fixture
def e2e(project: ProjectDir) -> Iterator[E2E]:
    """A project whose targets point at a fake server in a thread."""
    yield from start(project)


def _suite(count: int, evaluator: str = "{name: says, type: contains, value: fake}") -> str:
    lines = ["execution:", "  evaluators:", f"    - {evaluator}", "evalcases:"]
    for i in range(count):
        lines += [f"  - id: case-{i}", "    expected_outcome: x", f"    input: Question {i}?"]
    return "\n".join(lines) + "\n"


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return text.splitlines()


def test_each_row_is_on_disk_before_the_next_case_is_judged(e2e: E2E) -> None:
    results = e2e.root / "r.jsonl"
    script = f"{{name: count, type: code, script: [python3, count.py, {results}]}}"
    e2e.project.write(SUITE, _suite(4, script))
    e2e.project.write("evals/count.py", COUNT_ROWS)

    result = e2e.run("eval", SUITE, "--target", "oa", "--workers", "1", "--out", results)

    assert result.code == 0, result.err
    rows = [json.loads(line) for line in _lines(results)]
    assert [r["eval_id"] for r in rows] == [f"case-{i}" for i in range(4)]
    seen = [r["evaluator_results"][0]["reasoning"] for r in rows]
    assert seen == ["0 True", "1 True", "2 True", "3 True"], "written whole and flushed"


def test_a_resumed_file_is_compacted_in_place_keeping_order_and_mode(e2e: E2E) -> None:
    e2e.project.write(SUITE, _suite(3))
    e2e.server.enqueue(Fault(400, body={"error": {"message": "no"}}))
    results = e2e.root / "r.jsonl"
    assert e2e.run("eval", SUITE, "--target", "oa", "--workers", "1", "--out", results).code == 1
    first = _lines(results)
    assert [json.loads(line)["status"] for line in first] == ["error", "ok", "ok"]
    results.chmod(0o640)  # not what a new temporary file gets (0o600)

    result = e2e.run("eval", SUITE, "--target", "oa", "--resume", results)

    assert result.code == 0, result.err
    final = _lines(results)
    assert final[1:] == first[1:], "kept rows are kept byte for byte, in their places"
    rerun = json.loads(final[0])
    assert (rerun["eval_id"], rerun["status"]) == ("case-0", "ok")
    assert rerun["run_id"] == json.loads(first[0])["run_id"]
    assert stat.S_IMODE(results.stat().st_mode) == 0o640, "the file keeps its permissions"
    assert sorted(p.name for p in e2e.root.iterdir()) == [".evalwright", ".git", "evals", "r.jsonl"]


def _surrogate_answer(request: ReceivedRequest) -> Fault | None:
    """For Question 1, a chat completion whose JSON escapes half a surrogate pair."""
    if "Question 1?" not in json.dumps(request.json):
        return None
    message = {"role": "assistant", "content": "half a pair: \ud83d, then fake"}
    body = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    return Fault(200, body=json.dumps(body).encode("ascii"))


def test_a_row_with_a_lone_surrogate_becomes_an_error_row(e2e: E2E) -> None:
    e2e.project.write(SUITE, _suite(3))
    e2e.server.responder = _surrogate_answer
    results = e2e.root / "r.jsonl"

    result = e2e.run("eval", SUITE, "--target", "oa", "--workers", "1", "--out", results)

    assert result.code == 1, result.err
    data = results.read_bytes()
    data.decode("utf-8")  # the file stays valid UTF-8
    rows = {r["eval_id"]: r for r in map(json.loads, _lines(results))}
    assert [r["status"] for r in rows.values()] == ["ok", "error", "ok"]
    broken = rows["case-1"]
    assert broken["candidate_answer"] is None
    assert (broken["eval_file"], broken["target"], broken["score"]) == (SUITE, "oa", None)
    assert broken["error"]["type"] == "target_error"
    message = broken["error"]["message"]
    assert message.startswith(
        "the row cannot be written: it holds text that is not valid Unicode (a lone surrogate); "
        "null: candidate_answer"
    )
    assert broken["wire_request"]["body"]["messages"][-1]["content"] == "Question 1?"
    assert "\\ud83d" not in data.decode("utf-8"), "the surrogate is not written escaped either"
